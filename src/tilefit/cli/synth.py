"""tilefit synth: synthetic model captures, reproducible from a seed."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path

from tilefit.batch.bundle import BUNDLE_SUFFIX, write_bundle, write_folder
from tilefit.cli import common
from tilefit.formats.save import write_capture
from tilefit.generate.synth import TILES_PER_IPU, Mix, Recipe, synth_model
from tilefit.model.errors import InputError

NAME = "synth"
WRITES: dict[str, str] = {}  # -o is a folder or a file by its name: run checks it, knowing which
HELP = "write a synthetic model's tile captures (IPU-like tiles, reproducible from a seed)"
EXAMPLE = """examples:
  tilefit synth -o model.jsonl                        # 1,472 tiles, one capture per line
  tilefit synth --tiles 64 --seed 3 -o tiles/         # a folder of NAME.json
  tilefit synth --tiles 1 --pressure 0.97 -o tight.json

Most tiles fit, some are tight (often fragmented: production fails where a
better order fits) and some are over capacity. The same arguments write the
same bytes.
"""
_BASE = Recipe()
# Beyond these a run is a typo that would fill the disk or memory, not a model.
MAX_TILES = 1_000_000
MAX_REQUESTS = 1_000_000
# A model's recipes keep the pressure to 4 decimals (below 0.0001 it would be 0), and
# past a thousand times the storage a pressure is a typo whose sizes near 2^62.
MIN_PRESSURE = 0.0001
MAX_PRESSURE = 1000.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="PATH",
        help="a .jsonl bundle, a .json capture (with --tiles 1), or a folder (a name "
        "without a suffix, or ending in /)",
    )
    parser.add_argument(
        "--tiles", type=int, default=TILES_PER_IPU, metavar="N", help="how many (default 1472)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="N", help="the model's seed (default 0)"
    )
    parser.add_argument(
        "--requests",
        type=int,
        default=_BASE.requests,
        metavar="N",
        help="about this many per tile (500)",
    )
    parser.add_argument(
        "--layers", type=int, default=_BASE.layers, metavar="N", help="layers per tile (24)"
    )
    parser.add_argument(
        "--pressure",
        type=float,
        metavar="RATIO",
        help="every tile at this live-storage lower bound / available storage "
        f"({MIN_PRESSURE:g} to {MAX_PRESSURE:g}), "
        "instead of the mix of fitting, tight and over-capacity tiles",
    )
    parser.add_argument("--prefix", default="model", help="names are PREFIX-tileNNNN")
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    common.check_count(args.tiles, "--tiles", 1, MAX_TILES)
    common.check_count(args.seed, "--seed", 0)
    common.check_count(args.requests, "--requests", 1, MAX_REQUESTS)
    common.check_count(args.layers, "--layers", 1, MAX_REQUESTS)
    base = replace(_BASE, requests=args.requests, layers=args.layers)
    mix = Mix()
    if args.pressure is not None:
        if not MIN_PRESSURE <= args.pressure <= MAX_PRESSURE:  # false for nan too
            raise InputError(
                "--pressure", f"must be a number from {MIN_PRESSURE:g} to {MAX_PRESSURE:g}"
            )
        band = (args.pressure, args.pressure)
        mix = replace(mix, fits=band, tight=band, over=band)
    if not args.output:  # Path("") is the current folder: an unset variable would fill it
        raise InputError("--output", "is empty: name a .jsonl bundle, a .json capture or a folder")
    out = Path(args.output)
    # A trailing / names a folder, whatever its name looks like (tiles.v2/, model.jsonl/).
    folder = args.output.endswith(("/", os.sep))
    suffix = "" if folder else out.suffix.lower()
    if suffix not in (BUNDLE_SUFFIX, ".json"):
        if suffix:
            raise InputError(
                "--output",
                f"{out}: a {suffix} file is neither a .jsonl bundle nor a .json capture "
                "(a folder's name has no suffix, or ends in /)",
            )
        if out.exists() and not out.is_dir():
            raise InputError("--output", f"{out}: exists and is not a folder")
        if "/" in args.prefix or "\\" in args.prefix:  # checked before the folder is made
            raise InputError("--prefix", "names become file names in a folder: no / or \\")
    common.check_writable("--output", out, folder=not suffix)
    captures = synth_model(args.tiles, args.seed, mix=mix, base=base, prefix=args.prefix)
    if suffix == BUNDLE_SUFFIX:
        count = write_bundle(captures, out)
    elif suffix == ".json":
        if args.tiles != 1:
            raise InputError("--output", "a .json file holds one capture: use --tiles 1")
        write_capture(next(captures), out)
        count = 1
    else:
        count = write_folder(captures, out)
    if args.json:
        from tilefit.output.jsonout import synth_json

        common.print_json(synth_json(count, str(out), args.seed))
    else:
        print(f"wrote {count} capture{'s' if count != 1 else ''} to {out}")
    return common.EXIT_OK
