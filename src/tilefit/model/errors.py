"""The one error type for bad input: a place and the rule it breaks."""

from __future__ import annotations


class InputError(Exception):
    """Bad input. ``place`` names where (a JSON path or ``line N``), ``rule`` what is wrong."""

    def __init__(self, place: str, rule: str, source: str | None = None) -> None:
        self.place = place
        self.rule = rule
        self.source = source
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = f"{self.source}: {self.place}" if self.source else self.place
        return f"{where}: {self.rule}" if where else self.rule

    def located(self, source: str) -> InputError:
        """The same error, naming the file it came from."""
        return InputError(self.place, self.rule, source)
