"""The five verdicts, as a type: what each implies and the one sentence that says it.

Every consumer (the CLI, ``--json``, the report, the batch summary, the toolchains)
asks a ``Verdict`` what it means instead of comparing strings: ``places`` (a
placement within the memory is given), ``proves`` (none can exist), and its
``sentence`` and short ``meaning``. A ``Verdict`` is a ``str``, so the JSON and the
batch's rows carry exactly the names they always did.
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    FITS = "fits"
    FRAGMENTATION = "fragmentation"
    CAPACITY = "capacity"
    INFEASIBLE = "infeasible"
    UNDETERMINED = "undetermined"

    @property
    def places(self) -> bool:
        """A placement within the memory comes with it (refereed)."""
        return self in (Verdict.FITS, Verdict.FRAGMENTATION)

    @property
    def proves(self) -> bool:
        """No placement can exist: a bound or a search route proved it."""
        return self in (Verdict.CAPACITY, Verdict.INFEASIBLE)

    @property
    def decided(self) -> bool:
        return self.places or self.proves

    @property
    def meaning(self) -> str:
        """A few words, for a summary's counts."""
        return _MEANING[self]

    @property
    def sentence(self) -> str:
        """The verdict in one sentence, as the report's banner says it."""
        return _SENTENCE[self]


_MEANING = {
    Verdict.FITS: "the production placement fits",
    Verdict.FRAGMENTATION: "a better placement exists",
    Verdict.CAPACITY: "no placement can exist",
    Verdict.INFEASIBLE: "no placement exists",
    Verdict.UNDETERMINED: "not decided",
}

_SENTENCE = {
    Verdict.FITS: "The production placement fits: nothing to fix on this tile.",
    Verdict.FRAGMENTATION: (
        "Fragmentation: a better placement exists under the very same constraints."
    ),
    Verdict.CAPACITY: (
        "Capacity deficit: no placement can exist, whatever the order or the addresses."
    ),
    Verdict.INFEASIBLE: (
        "Infeasible: no placement exists, although the bounds show no deficit (alignment "
        "gaps, bank separation or the memory's stretches use up the room)."
    ),
    Verdict.UNDETERMINED: (
        "Undetermined: no strategy fits and the bounds show no deficit; the search found "
        "neither a placement nor a proof within its time limit."
    ),
}


def verdict_of(name: str) -> Verdict:
    """The verdict of that name (ValueError naming the five otherwise)."""
    try:
        return Verdict(name)
    except ValueError:
        known = ", ".join(v.value for v in Verdict)
        raise ValueError(f"unknown verdict {name!r}: one of {known}") from None
