"""The ``tilefit`` command: parse, call, print. Each command is a module here."""

from __future__ import annotations

import argparse
import os
import re
import sys
from contextlib import suppress
from importlib import import_module
from time import monotonic

from tilefit import __version__
from tilefit.model.errors import InputError, answered_interrupt, by_interrupt

# Only what ``--version`` and ``--help`` need is loaded above (tests/cli/test_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType
    from typing import Any, NoReturn

    from tilefit.cli.common import Invocation

# In the order a user meets them: replay and explain one tile, then see it,
# then whole models, then tools. Each command's name and the module that holds it
# (the module's NAME says the same; tests/cli/test_cli_usage.py checks it): a command
# imports only its own module, so what it does not use is never loaded.
COMMANDS = {
    "diagnose": "diagnose",
    "replay": "replay",
    "bound": "bound",
    "diff": "diff",
    "whatif": "whatif",
    "experiment": "experiment",
    "place": "place",
    "solve": "solve",
    "check": "check",
    "plot": "plot",
    "report": "report",
    "batch": "batch",
    "synth": "synth",
    "convert": "convert",
    "import": "importing",
    "export": "export",
    "replan": "replan",
    "compile": "compiling",
}


def _command(name: str) -> ModuleType:
    return import_module(f"tilefit.cli.{COMMANDS[name]}")


def _columns() -> int:
    """``shutil.get_terminal_size().columns``: COLUMNS where it is a positive number, else
    the terminal's width on stdout, else 80. Asked here because argparse's formatter, made
    for every argument added, imports shutil for it, and shutil its archives' modules:
    2 ms of every command."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Help(argparse.HelpFormatter):
    """argparse's help formatter, as wide as it would make itself (``_columns``)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
        **more: Any,
    ) -> None:
        # argparse's own default: the terminal's columns less 2.
        wide = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, wide, **more)


class _RawHelp(_Help, argparse.RawDescriptionHelpFormatter):
    """The commands' help: their descriptions and examples kept as written."""


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
        from tilefit.cli.common import EXIT_USAGE

        self.exit(EXIT_USAGE, f"tilefit: {message} (see: {self.prog} --help)\n")

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
    import difflib  # only for a mistyped word

    found = difflib.get_close_matches(word.split("=")[0], known, n=1, cutoff=0.75)
    return found[0] if found else None


def build_parser(argv: Sequence[str] | None = None) -> _Parser:
    """The parser of every command, or, given the arguments of one command, the parser
    that command needs alone: a command imports only its own module and ``--version``
    none at all. Arguments that name no command get the others named (for the usage
    error) but not loaded."""
    given = list(sys.argv[1:] if argv is None else argv)
    asks_help = not given or given[0] in ("-h", "--help")
    chosen = given[0] if given and given[0] in COMMANDS else None
    parser = _Parser(
        prog="tilefit",
        formatter_class=_Help,
        description=(
            "Replay a tile's captured allocation requests and tell fragmentation "
            "(a better placement exists) from a capacity deficit (none can)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"tilefit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = {}
    for name in COMMANDS:
        if argv is not None and not asks_help and name != chosen:
            if chosen is None:  # no command given: the usage error names every one
                parser.commands[name] = sub.add_parser(name, formatter_class=_Help)  # not loaded
            continue  # another command given: this one's parser (0.2 ms each) is not made
        module = _command(name)
        p = sub.add_parser(
            module.NAME,
            help=module.HELP,
            description=module.HELP,
            epilog=module.EXAMPLE,
            formatter_class=_RawHelp,
        )
        module.add_arguments(p)
        from tilefit.cli import common

        files = (
            getattr(module, "READS", common.READS),
            getattr(module, "WRITES", common.WRITES),
            getattr(module, "FOLDERS", common.FOLDERS),
        )
        p.set_defaults(run=module.run, files=files)
        parser.commands[module.NAME] = p
    return parser


def main(argv: Sequence[str] | None = None, invocation: Invocation | None = None) -> int:
    """Run one command; ``invocation`` (default: one that starts now) is what the command
    is told (when it began) and leaves for ``entry`` (whether to end at once)."""
    parser, args = _parse(argv)
    from tilefit.cli.common import Invocation

    return _run(parser, args, invocation if invocation is not None else Invocation(monotonic()))


def _parse(argv: Sequence[str] | None) -> tuple[_Parser, argparse.Namespace]:
    """The command's arguments; ``--version`` and ``--help`` end here, before the rest of
    the command line's machinery (``common``) is loaded."""
    given = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(given)
    return parser, parser.parse_command(given)


def _run(parser: _Parser, args: argparse.Namespace, invocation: Invocation) -> int:
    from tilefit.cli import common

    if args.command is None:
        parser.print_help()
        return common.EXIT_USAGE
    args.invocation = invocation
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
    parser, args = _parse(None)
    from tilefit.cli import common

    invocation = common.Invocation(monotonic() if started is None else started)
    code = _run(parser, args, invocation)
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
