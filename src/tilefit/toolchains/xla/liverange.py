"""``*-live-range.txt``: the flattened instruction sequence and each value's range.

The text is ``HloLiveRange::ToString`` (xla/hlo/utils/hlo_live_range.cc):

    HloLiveRange (max 27):
      InstructionSequence:
        0:p0
      BufferLiveRange:
        fusion.2{}:10-21
      Live ranges at 24 (peak):

Ranges are inclusive at both ends (XLA frees a value after its end step), on
the sequence of every computation flattened into one (while and conditional
bodies inline, fusions one step). ``max`` is the number of steps; a value may
end at it. In older XLA versions the same text follows the allocations in the
buffer-assignment file, which is why the section is looked for, not assumed
to start the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilefit.model.errors import InputError
from tilefit.model.words import counted

_HEADER = re.compile(r"^HloLiveRange \(max (\d+)\):$")
_STEP = re.compile(r"^    (\d+):(\S+)$")
_RANGE = re.compile(r"^    ([^\s{}]+)(\{[0-9,]*\}):(\d+)-(\d+)$")
_PEAK = ("  Live ranges at ", "  Peak memory could not be determined")


@dataclass(frozen=True, slots=True)
class LiveRanges:
    steps: int  # XLA's "max": the flattened sequence's length
    sequence: tuple[str, ...]  # instruction names, by step
    ranges: dict[str, tuple[int, int]]  # "INSTRUCTION{INDEX}" -> inclusive (first, last) step


def parse_live_ranges(text: str) -> LiveRanges:
    lines = text.split("\n")
    start = next((k for k, line in enumerate(lines) if _HEADER.match(line.rstrip("\r"))), None)
    if start is None:
        raise InputError("line 1", "no 'HloLiveRange (max N):' section: not XLA's live ranges")
    header = _HEADER.match(lines[start].rstrip("\r"))
    assert header is not None
    steps = int(header[1])
    sequence: list[str] = []
    ranges: dict[str, tuple[int, int]] = {}
    section = ""
    for number, raw in enumerate(lines[start + 1 :], start=start + 2):
        line = raw.rstrip("\r")
        if line.startswith(_PEAK):
            break  # the peak listing follows; the ranges are complete
        if not line:
            continue
        if line in ("  InstructionSequence:", "  BufferLiveRange:"):
            section = line.strip()
            continue
        if section == "InstructionSequence:" and (step := _STEP.match(line)):
            if int(step[1]) != len(sequence):
                raise InputError(f"line {number}", f"step {step[1]} out of order")
            sequence.append(step[2])
            continue
        if section == "BufferLiveRange:" and (live := _RANGE.match(line)):
            first, last = int(live[3]), int(live[4])
            if not first <= last <= steps:
                raise InputError(f"line {number}", f"range {first}-{last} not within 0-{steps}")
            ranges[live[1] + live[2]] = (first, last)
            continue
        raise InputError(f"line {number}", f"not a line of XLA's live ranges: {line[:80]!r}")
    else:
        raise InputError(
            f"line {len(lines)}",
            "the live ranges end before 'Live ranges at N (peak)': the file is cut short",
        )
    if len(sequence) != steps:
        raise InputError(
            f"line {start + 1}", f"max {steps} but {counted(len(sequence), 'step')} in the sequence"
        )
    return LiveRanges(steps, tuple(sequence), ranges)
