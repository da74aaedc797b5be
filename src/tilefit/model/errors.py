"""The one error type for bad input (a place and the rule it breaks), and how to tell
an exception that Ctrl-C caused."""

from __future__ import annotations

# Every integer of the input is below 2^62 (capture-v1), so that a sum of two
# fits in 64 bits; a larger one (or one at or below -2^62) is bad input.
INT_LIMIT = 1 << 62
INT_LIMIT_TEXT = "2^62"


class InputError(Exception):
    """Bad input. ``place`` names where (a JSON path or ``line N``), ``rule`` what is wrong."""

    def __init__(self, place: str, rule: str, source: str | None = None) -> None:
        self.place = place
        self.rule = rule
        self.source = source
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = ": ".join(part for part in (self.source, self.place) if part)
        return f"{where}: {self.rule}" if where else self.rule

    def located(self, source: str) -> InputError:
        """The same error, naming the file it came from."""
        return InputError(self.place, self.rule, source)


def by_interrupt(error: BaseException, context: bool = False) -> bool:
    """Whether ``error`` is a KeyboardInterrupt or caused by one: Python 3.11 wraps an
    exception raised while a class sets its attributes' names (``__set_name__``, as
    ``functools.cached_property`` has in the standard library's ``ipaddress``) in a
    RuntimeError, so a Ctrl-C landing in such an import arrives as that. With
    ``context``, an exception raised while one was being handled counts too (numba's
    object mode ends in a SystemError over the interrupt it did not check for)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or (cause.__context__ if context else None)
    return False


def answered_interrupt() -> None:
    """Tell Python that the Ctrl-C being answered is handled, before exiting with 130.

    CPython notes a KeyboardInterrupt that escapes code run from a string
    (``exec(text)``, which numba's compiler does while it builds functions), and at exit
    of ``python -m`` it then ends the process by SIGINT (status -2) instead of the
    exit status asked for, though the interrupt was caught and answered. Running an
    empty string clears that note, as every ``exec`` of a string starts by doing."""
    exec("")
