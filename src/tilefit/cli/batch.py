"""tilefit batch: every capture of a model, one SQLite row each, locally or on Dask."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable
from functools import partial

from tilefit.batch.inputs import Source, expand
from tilefit.batch.progress import Progress
from tilefit.batch.run import Runner, prepare, run_batch
from tilefit.batch.runner import LocalRunner, WorkerError
from tilefit.batch.store import Store
from tilefit.batch.work import MODES, Settings, warm_up
from tilefit.cli import common
from tilefit.cli.summary import summary_lines
from tilefit.model.errors import InputError
from tilefit.model.words import counted, plural

NAME = "batch"
HELP = "diagnose every capture of a model (files, folders, .jsonl bundles) into a SQLite database"
EXAMPLE = """examples:
  tilefit synth --tiles 32 --seed 1 -o model.jsonl
  tilefit batch model.jsonl --db results.sqlite                # all cores
  tilefit batch model.jsonl --db results.sqlite --resume       # after Ctrl-C
  tilefit synth --tiles 8 --seed 3 -o tiles/
  tilefit batch tiles/ --db replays.sqlite --mode replay --jobs 2
  tilefit batch model.jsonl --db dask.sqlite --scheduler tcp://HOST:8786  # needs a Dask scheduler
  tilefit batch --summary results.sqlite --csv results.csv

Each capture's row is written as soon as it finishes. A malformed capture,
a crashed worker or a capture past the time limit gets an error row and the
run goes on. An interrupted run continues with --resume (same INPUTs): the
recorded captures are skipped, so each capture ends with exactly one row.

exit codes: 0 the run completed and every capture has a row without error
(tiles that do not fit are results: the summary says how many); 1 the run
completed but some captures have error rows; 2 bad input or usage; 130
interrupted (rerun with --resume).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="capture files (.json, minimalloc .csv), folders of them, .jsonl bundles",
    )
    parser.add_argument("--db", metavar="FILE", help="the results database (SQLite)")
    parser.add_argument(
        "--mode",
        choices=sorted(MODES),
        default="diagnose",
        help="what to do with each capture (default: diagnose)",
    )
    parser.add_argument(
        "--no-search",
        action="store_true",
        help="diagnose with the strategies and bounds only, no exact search",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="time for the engine on one capture (default 10); a local worker still "
        "busy at twice this (at least 1 s more) is stopped and the capture gets an error row",
    )
    parser.add_argument(
        "--jobs", type=int, metavar="N", help="local worker processes (default: all cores)"
    )
    parser.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="run on this Dask distributed scheduler instead of local workers",
    )
    again = parser.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true", help="skip captures already recorded")
    again.add_argument(
        "--overwrite", action="store_true", help="forget the recorded rows and start again"
    )
    parser.add_argument(
        "--summary", metavar="FILE", help="print the summary of a results database and stop"
    )
    parser.add_argument("--csv", metavar="FILE", help="also export every row to this CSV file")
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar and no summary (exit code only)"
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        if args.summary is not None:
            if args.inputs or args.db:
                raise InputError("--summary", "takes the database alone, without INPUT or --db")
            with Store.open(args.summary, create=False) as store:
                _report(store, args)
            return common.EXIT_OK
        settings = _settings(args)
        sources = expand(args.inputs)
        if not sources:
            raise InputError(
                "INPUT", "no captures found (.json or .jsonl files, XLA dumps, .tflite models)"
            )
        # main compared the outputs with the INPUTs named; a folder's files are inputs too.
        outputs = [(option, v) for option, v in (("--db", args.db), ("--csv", args.csv)) if v]
        common.refuse_overwrite(outputs, sorted({s.path for s in sources}))
        with Store.open(args.db, overwrite=args.overwrite) as store:
            return _run(store, sources, settings, args)
    except sqlite3.Error as error:  # locked by another run, disk full, ...
        raise InputError("", f"results database: {error}", args.db or args.summary) from None


def _settings(args: argparse.Namespace) -> Settings:
    if not args.inputs:
        raise InputError("INPUT", "name at least one capture, folder or .jsonl bundle")
    if not args.db:
        raise InputError("--db", "is required: the SQLite file that receives the rows")
    common.check_seconds(args.time_limit, "--time-limit")
    common.check_count(args.jobs, "--jobs", 1, common.MAX_PROCESSES)
    if args.jobs is not None and args.scheduler:
        raise InputError("--jobs", "applies to local workers, not with --scheduler")
    if args.no_search and args.mode != "diagnose":
        raise InputError("--no-search", "applies to --mode diagnose only")
    return Settings(mode=args.mode, time_limit=args.time_limit, search=not args.no_search)


def _run(store: Store, sources: list[Source], settings: Settings, args: argparse.Namespace) -> int:
    prepare(store, settings, resume=args.resume, overwrite=args.overwrite)
    runner: Runner
    warming: Callable[[], None] | None = None
    if args.scheduler:
        from tilefit.batch.dask_runner import DaskRunner

        runner = DaskRunner(args.scheduler)  # its workers compile, each on its machine
    else:
        runner = LocalRunner(args.jobs)
        warming = partial(warm_up, settings)  # here, before the progress line is drawn
    progress = Progress.for_terminal(sys.stderr, quiet=args.quiet)
    try:
        counts = run_batch(sources, store, settings, runner, progress, warming)
    except WorkerError as error:
        raise InputError("--jobs", str(error)) from None
    except KeyboardInterrupt:
        print(
            f"tilefit: interrupted; {_safe_rows(store.count())} safe in {args.db}: "
            "rerun with --resume to finish",
            file=sys.stderr,
        )
        return 130
    if counts.empty and not args.quiet:
        print(
            f"tilefit batch: skipped {counted(counts.empty, 'input')} with nothing to plan "
            "(a module without a temp heap, a model without a tensor in the arena)",
            file=sys.stderr,
        )
    if counts.foreign and not args.quiet:
        print(
            f"tilefit batch: skipped {counted(counts.foreign, '.json file')} found in the "
            'folders that name neither "format": "tilefit-capture" nor "requests" '
            "(another tool's, such as TPU-MLIR's own: name a file to have it read)",
            file=sys.stderr,
        )
    _report(store, args)
    return common.EXIT_NO if store.error_count() else common.EXIT_OK


def _report(store: Store, args: argparse.Namespace) -> None:
    if args.csv:
        store.export_csv(args.csv)
    if args.json:
        from tilefit.output.jsonout import summary_json

        common.print_json(summary_json(store))
    elif not args.quiet:
        print("\n".join(summary_lines(store)))


def _safe_rows(count: int) -> str:
    return f"{counted(count, 'row')} {plural(count, 'is', 'are')}"
