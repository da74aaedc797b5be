"""tilefit synth: synthetic model captures, reproducible from a seed."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from tilefit.batch.bundle import BUNDLE_SUFFIX, write_bundle, write_folder
from tilefit.cli import common
from tilefit.formats.save import write_capture
from tilefit.generate.synth import TILES_PER_IPU, Mix, Recipe, synth_model
from tilefit.model.errors import InputError

NAME = "synth"
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        help="a .jsonl bundle, a .json capture (with --tiles 1), or a folder",
    )
    parser.add_argument("--tiles", type=int, default=TILES_PER_IPU, help="how many (default 1472)")
    parser.add_argument("--seed", type=int, default=0, help="the model's seed (default 0)")
    parser.add_argument(
        "--requests", type=int, default=_BASE.requests, help="about this many per tile (500)"
    )
    parser.add_argument("--layers", type=int, default=_BASE.layers, help="layers per tile (24)")
    parser.add_argument(
        "--pressure",
        type=float,
        help="every tile at this live-storage lower bound / available storage, "
        "instead of the mix of fitting, tight and over-capacity tiles",
    )
    parser.add_argument("--prefix", default="model", help="names are PREFIX-tileNNNN")
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.tiles < 1:
        raise InputError("--tiles", "must be at least 1")
    if args.requests < 1 or args.layers < 1:
        raise InputError("--requests", "and --layers must be at least 1")
    base = replace(_BASE, requests=args.requests, layers=args.layers)
    mix = Mix()
    if args.pressure is not None:
        if not args.pressure > 0:
            raise InputError("--pressure", "must be > 0")
        band = (args.pressure, args.pressure)
        mix = replace(mix, fits=band, tight=band, over=band)
    captures = synth_model(args.tiles, args.seed, mix=mix, base=base, prefix=args.prefix)
    out = Path(args.output)
    suffix = out.suffix.lower()
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
