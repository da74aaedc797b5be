"""The one error type for bad input: a place and the rule it breaks."""

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
