"""The ``tilefit`` command: parse, call, print. Each command is a module here."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections.abc import Sequence
from contextlib import suppress
from importlib import import_module
from time import monotonic
from types import ModuleType
from typing import NoReturn

from tilefit import __version__
from tilefit.cli import common
from tilefit.model.errors import InputError, answered_interrupt, by_interrupt

# In the order a user meets them: replay and explain one tile, then see it,
# then whole models, then tools.
COMMANDS = (
    "diagnose",
    "replay",
    "bound",
    "diff",
    "whatif",
    "experiment",
    "place",
    "solve",
    "check",
    "plot",
    "report",
    "batch",
    "synth",
    "convert",
    "importing",
    "export",
    "replan",
    "compiling",
)


def _commands() -> list[ModuleType]:
    return [import_module(f"tilefit.cli.{name}") for name in COMMANDS]


class _Parser(argparse.ArgumentParser):
    """A usage error is bad input like any other: one line, exit 2, no usage block.

    The line points at the help of the command given (``tilefit diagnose --help``), or at
    ``tilefit --help`` when there is none.
    """

    commands: dict[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        chosen = re.search(r"invalid choice: '([^']*)'", message)
        if chosen and (near := _near(chosen[1], list(getattr(self, "commands", {})))):
            message = f"{message}; did you mean {near}?"
        self.exit(common.EXIT_USAGE, f"tilefit: {message} (see: {self.prog} --help)\n")

    def parse_command(self, argv: Sequence[str] | None) -> argparse.Namespace:
        """``parse_args``, except that arguments no command knows are the command's error
        (argparse leaves them to the top parser, whose hint was ``tilefit --help``), with
        the command's nearest option named when one is near."""
        args, unknown = self.parse_known_args(argv)
        if unknown:
            parser = self.commands.get(args.command, self) if args.command else self
            options = [o for action in parser._actions for o in action.option_strings]
            near = {u: n for u in unknown if (n := _near(u, options))}
            said = [n if len(near) == 1 else f"{n} for {u}" for u, n in near.items()]
            hint = f"; did you mean {', '.join(said)}?" if near else ""
            parser.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")
        return args


def _near(word: str, known: list[str]) -> str | None:
    """The known word nearest a mistyped one, if one is near enough."""
    found = difflib.get_close_matches(word.split("=")[0], known, n=1, cutoff=0.75)
    return found[0] if found else None


def build_parser() -> _Parser:
    parser = _Parser(
        prog="tilefit",
        description=(
            "Replay a tile's captured allocation requests and tell fragmentation "
            "(a better placement exists) from a capacity deficit (none can)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"tilefit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = {}
    for module in _commands():
        p = sub.add_parser(
            module.NAME,
            help=module.HELP,
            description=module.HELP,
            epilog=module.EXAMPLE,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        files = (
            getattr(module, "READS", common.READS),
            getattr(module, "WRITES", common.WRITES),
            getattr(module, "FOLDERS", common.FOLDERS),
        )
        p.set_defaults(run=module.run, files=files)
        parser.commands[module.NAME] = p
    return parser


def main(argv: Sequence[str] | None = None, invocation: common.Invocation | None = None) -> int:
    """Run one command; ``invocation`` (default: one that starts now) is what the command
    is told (when it began) and leaves for ``entry`` (whether to end at once)."""
    parser = build_parser()
    args = parser.parse_command(argv)
    if args.command is None:
        parser.print_help()
        return common.EXIT_USAGE
    args.invocation = invocation if invocation is not None else common.Invocation(monotonic())
    try:
        _check_file_options(args)
        common.check_outputs(args, *args.files)
        common.check_toolchain_inputs(args)
        code: int = args.run(args)
    except InputError as error:
        print(f"tilefit: {error.message}", file=sys.stderr)
        return common.EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (``tilefit ... | head``): nothing to say, nobody to hear it.
        return common.EXIT_BROKEN_PIPE
    except OSError as error:
        where = [str(part) for part in (error.filename,) if part]
        print(
            "tilefit: " + ": ".join([*where, error.strerror or str(error)]),
            file=sys.stderr,
        )
        return common.EXIT_USAGE
    except (KeyboardInterrupt, RuntimeError) as error:
        if not by_interrupt(error):
            raise
        print("tilefit: interrupted", file=sys.stderr)
        return common.EXIT_INTERRUPTED
    return code


_FILE_OPTIONS = ("output", "csv", "db", "edits_out")  # options that name a file to write


def _check_file_options(args: argparse.Namespace) -> None:
    """An empty file name is a mistake, never "no file": say so before any work."""
    for name in _FILE_OPTIONS:
        if getattr(args, name, None) == "":
            raise InputError(f"--{name.replace('_', '-')}", "is empty: name a file")


def entry(started: float | None = None) -> None:
    """The console command: ``main`` on ``sys.argv``, then exit with its code.

    ``started`` (monotonic) is when the process began (``tilefit.__main__`` passes its
    first statements' time); by default, now.
    """
    invocation = common.Invocation(monotonic() if started is None else started)
    code = main(None, invocation)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = common.EXIT_BROKEN_PIPE
    if code == common.EXIT_BROKEN_PIPE:
        common.silence_stdout()
    if invocation.quick_exit:
        with suppress(OSError, ValueError):
            sys.stderr.flush()
        os._exit(code)
    if code == common.EXIT_INTERRUPTED:
        answered_interrupt()
    sys.exit(code)
