"""The two-part answer of an imported capture (``verdicts/headline``), built where the
toolchains are known: the command that takes tilefit's plan back is the toolchain's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tilefit.model.capture import Capture
    from tilefit.verdicts.answer import Answer
    from tilefit.verdicts.diagnose import Diagnosis
    from tilefit.verdicts.headline import Headline


def _adoption(tool: str, capture: str) -> str | None:
    from tilefit.toolchains import adoption

    return adoption(tool, capture)


def diagnosis_headline(d: Diagnosis) -> Headline | None:
    """``diagnose``'s and the report's; None for a capture not imported."""
    return _headline(d, d.capture, d.bound.available)


def answer_headline(capture: Capture, answer: Answer) -> Headline | None:
    """``solve``'s; None for a capture not imported."""
    return _headline(answer, capture.name, capture.available)


def _headline(answer: Answer, name: str, available: int) -> Headline | None:
    """The bytes that must leave are the capacity answer's (``tilefit.bounds.capacity``)."""
    heap = answer.heap
    if heap is None:
        return None
    from tilefit.verdicts.headline import headline  # an import's answer only

    leaving = 0 if answer.capacity is None else answer.capacity.leaving
    return headline(heap, answer.verdict, available, leaving, _adoption(heap.tool, name))


def headline_json(h: Headline | None, placement: str | None = None) -> dict[str, Any] | None:
    """Both parts, the toolchain's first (null for a capture not imported)."""
    if h is None:
        return None
    return {
        "own": {
            "tool": h.tool,
            "plan": h.plan,
            "heap": h.heap,
            "available": h.available,
            "fits": h.own_fits,
            "over": h.over,
            "text": h.own_text,
        },
        "tilefit": {
            "verdict": h.verdict.value,
            "fits": h.verdict.places,
            "top": h.top,
            "proven": h.proven,
            "saved": h.saved,
            "leaving": h.leaving,
            "adopt": h.adopt,
            "text": h.tilefit_text(placement),
        },
        "title": h.title,
    }
