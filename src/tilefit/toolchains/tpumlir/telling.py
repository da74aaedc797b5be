"""A verdict on a TPU-MLIR capture in TPU-MLIR's words: the layer group (its ops), the
slices tried (which dimension was cut) and those the group ended with, the tensors by
TPU-MLIR's names with their timesteps on the circle as its trace gives them
(``timesteps 2..0 (wraps)``; an in-place input's slot handed to its output said), and
for a failed attempt with a placement (fragmentation: TPU-MLIR's greedy missed it) the
placement it lacked, each tensor's address in TPU-MLIR's hex form too (``0x00010000``,
as its trace prints ``addr``). ``diagnose`` prints these lines and gives the same facts
under ``--json``'s ``tpumlir`` key.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tilefit.model.capture import Capture, Request
from tilefit.model.placement import Placement
from tilefit.model.words import counted
from tilefit.toolchains.tpumlir.words import (
    TOOL,
    GroupWords,
    cut_json,
    cut_text,
    ended_text,
    group_words,
)
from tilefit.verdicts.answer import Answer


def hex_address(offset: int) -> str:
    """An address as TPU-MLIR's trace prints one: ``0x00010000``."""
    return f"0x{offset:08x}"


def timesteps_text(request: Request, period: int) -> str:
    """``timesteps 1..0 (wraps)``: its first and last timestep, both inclusive, as
    TPU-MLIR's trace gives ``timestep_start`` and ``timestep_end``."""
    if request.start == 0 and request.end == period:
        return f"timesteps 0..{period - 1} (every timestep)"
    last = (request.end - 1) % period
    return f"timesteps {request.start}..{last}" + (" (wraps)" if request.wraps else "")


def as_traced(capture: Capture, request: Request) -> tuple[Request, str | None]:
    """The request with its lifetime as TPU-MLIR's trace gives it, and the tensor taking
    its slot in place where the capture ends it there (``capture.in_place_ends``)."""
    allocator = capture.allocator
    period = capture.period or capture.horizon
    tensor = (
        next((t for t in allocator.tensors if t.name == request.id), None) if allocator else None
    )
    if allocator is None or tensor is None or tensor.arc.held or tensor.arc.span >= period:
        return request, None
    end = tensor.arc.end + 1
    if end == request.end:
        return request, None
    taker = next(
        (op.name for op in allocator.ops if op.reads[:1] == (request.id,) and op.in_place), None
    )
    return replace(request, end=end), taker


def lacked(capture: Capture, answer: Answer) -> Placement | None:
    """The placement TPU-MLIR lacked: the verdict's, where its allocator failed an attempt
    whose tensors fit (fragmentation); None otherwise (a placed attempt's plan is its own,
    the capture's placement file)."""
    if capture.observed_failed is None or not answer.verdict.places:
        return None
    return answer.placement


def told_lines(capture: Capture, answer: Answer) -> list[str]:
    """The verdict in TPU-MLIR's words; none for a capture not from TPU-MLIR."""
    words = group_words(capture)
    if words is None:
        return []
    lines = [f"in {TOOL}'s words:"]
    lines += [f"  {line}" for line in _group_lines(capture, words)]
    lines.append(f"  {_meaning(capture, answer)}")
    placement = lacked(capture, answer)
    period = capture.period or capture.horizon
    width = max(len(r.id) for r in capture.requests)
    for request in capture.requests:
        r, taker = as_traced(capture, request)
        row = f"    {r.id:<{width}}  {r.size:>9,} B  {timesteps_text(r, period):<32}"
        if placement is not None and r.id in placement.offsets:
            offset = placement.offsets[r.id]
            row += f"  -> {offset:>9,} ({hex_address(offset)})"
        if taker is not None:
            row += f"  ({taker} takes its slot in place at timestep {request.end % period})"
        lines.append(row.rstrip())
    return lines


def _group_lines(capture: Capture, words: GroupWords) -> list[str]:
    ops = "not shown in the trace" if words.ops is None else ", ".join(words.ops)
    count = "" if words.ops is None else f" ({counted(len(words.ops), 'op')})"
    lines = [f"layer group{count}: {ops}"]
    if words.tried is not None:
        lines.append(f"{cut_text(words.tried)} tried: {words.said}")
    ended = ended_text(words)
    if ended is not None and capture.observed_failed is not None:
        lines.append(ended)
    return lines


def _meaning(capture: Capture, answer: Answer) -> str:
    """What the verdict means for TPU-MLIR's attempt, above the tensor table."""
    failed = capture.observed_failed
    if failed is None:
        return "TPU-MLIR placed it (its plan is the import's placement file). The tensors:"
    if answer.verdict.places:
        return (
            f"fragmentation: TPU-MLIR found no block for {failed}, yet every tensor fits; "
            "the placement it lacked (tensor -> address, TPU-MLIR's hex):"
        )
    if answer.capacity is not None:
        return (
            f"capacity: no placement of these tensors exists ({answer.capacity.bound.short}, "
            f"{answer.capacity.over_text}): the group had to be cut further. The tensors:"
        )
    if answer.verdict.proves:
        return "no placement of these tensors exists (the search's proof). The tensors:"
    return "undecided within the time limit. The tensors:"


def told_json(capture: Capture, answer: Answer) -> dict[str, Any] | None:
    """The same facts for ``--json`` (null for a capture not from TPU-MLIR)."""
    words = group_words(capture)
    if words is None:
        return None
    placement = lacked(capture, answer)
    period = capture.period or capture.horizon
    tensors = []
    for request in capture.requests:
        r, _ = as_traced(capture, request)
        offset = None if placement is None else placement.offsets.get(r.id)
        tensors.append(
            {
                "tensor": r.id,
                "size": r.size,
                "timesteps": {
                    "start": r.start,
                    "end": (r.end - 1) % period,
                    "wraps": r.wraps,
                    "every": r.start == 0 and r.end == period,
                },
                "offset": offset,
                "hex": None if offset is None else hex_address(offset),
            }
        )
    failed = capture.observed_failed
    return {
        "group": None if words.ops is None else list(words.ops),
        "slices": None if words.tried is None else str(words.tried),
        "cut": None if words.tried is None else cut_json(words.tried),
        "ended": None if words.ended is None else str(words.ended),
        "given_up": words.given_up,
        "slices_cost": words.cost,
        "failed": failed is not None,
        "no_block_for": failed,
        "fragmentation": failed is not None and answer.verdict.places,
        "tensors": tensors,
    }
