"""What every toolchain shares (issue 46, item 4): one capture maker, one acceptance of a
plan given back (its ids, then the one referee of outside plans), one replan, and a
runtime check that fits a runtime reporting only the planned section."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tilefit.cli.export import runtime_lines
from tilefit.model.capture import Capture, Memory, Origin, Range, Request
from tilefit.model.edits import with_capacity
from tilefit.model.errors import InputError
from tilefit.model.placement import Placement
from tilefit.toolchains import toolchain
from tilefit.toolchains.base import Allocator, RuntimeCheck, Sizes
from tilefit.toolchains.replan import replan
from tilefit.verdicts.check import check
from tilefit.verdicts.imported import at_own_heap, referee, review

ALLOCATOR = Allocator("Tool", "slab", ("size/first-fit",))
# a lives [0, 2), b [1, 3), c [2, 4): a and c may share bytes, b meets both
REQUESTS = (
    Request("a", 64, 0, 2, alignment=64),
    Request("b", 64, 1, 3, alignment=64),
    Request("c", 64, 2, 4, alignment=64),
)
LEAST = Placement("p", {"a": 0, "b": 64, "c": 0})  # top 128: the live bound
WASTEFUL = Placement("p", {"a": 0, "b": 64, "c": 128})  # top 192


def capture(heap: int = 192, capacity: int | None = None) -> Capture:
    return ALLOCATOR.capture("p", REQUESTS, heap, "p.file", least=64, capacity=capacity)


def test_the_capture_maker_gives_one_range_the_origin_and_the_horizon() -> None:
    made = capture()
    assert made.memory == Memory(192, (Range(0, 192, "slab"),))
    assert made.origin == Origin("Tool", 192, "p.file", "slab")
    assert (made.horizon, made.production, len(made.requests)) == (4, ("size/first-fit",), 3)
    assert capture(capacity=100).memory == Memory(100, (Range(0, 100, "slab"),))
    assert capture(heap=0).memory.size == 64  # never below the alignment given
    xla = Allocator("XLA", "heap", (), range="temp").capture("m", REQUESTS, 192, "d", horizon=9)
    assert (xla.memory.ranges[0].name, xla.horizon) == ("temp", 9)


def test_the_referee_holds_a_plan_to_the_toolchain_s_heap_grown_to_its_top() -> None:
    asked = capture(capacity=100)  # --capacity below the heap: the capture's question
    assert not check(asked, WASTEFUL).valid  # the plain referee answers the capture's question
    assert referee(asked, WASTEFUL).valid  # the toolchain's plan, in the toolchain's heap
    assert at_own_heap(asked).memory.size == 192
    small = capture(heap=128)  # a plan above the toolchain's own heap: the toolchain grows it
    assert referee(small, WASTEFUL).valid and at_own_heap(small, 192).memory.size == 192
    overlapping = Placement("p", {"a": 0, "b": 0, "c": 128})
    assert [v.kind for v in referee(small, overlapping).violations] == ["overlap"]
    plain = replace(small, origin=None)  # no toolchain: the capture as it is
    assert not referee(plain, WASTEFUL).valid and at_own_heap(plain, 500) is plain


def test_the_range_s_name_and_classes_are_kept_where_the_memory_grows() -> None:
    classed = replace(
        capture(heap=128),
        memory=with_capacity(Memory(128, (Range(0, 128, "slab", ("default",)),)), 128, "x"),
    )
    grown = at_own_heap(classed, 192).memory
    assert grown.ranges == (Range(0, 192, "slab", ("default",)),)


def test_accept_names_ids_of_another_plan_and_the_referee_s_first_violation() -> None:
    chain = toolchain("iree")
    chain.accept(capture(), WASTEFUL, "p.main.0")  # nothing to say
    chain.accept(capture(heap=128), WASTEFUL, "p.main.0")  # a worse plan may go back too
    with pytest.raises(InputError) as unknown:
        chain.accept(capture(), Placement("p", {**LEAST.offsets, "s9": 0}), "p.main.0")
    assert unknown.value.rule == (
        "names 1 slice p.main.0 does not plan (s9): a placement of another program?"
    )
    with pytest.raises(InputError) as rejected:
        chain.accept(capture(), Placement("p", {"a": 0, "b": 0, "c": 128}), "p.main.0")
    assert rejected.value.rule.startswith("the referee rejects it on p.main.0's capture: 1 ")
    assert review(capture(), Placement("p", {"a": 0, "b": 0, "c": 128})).check.valid is False


def test_replan_keeps_the_toolchain_s_plan_unless_tilefit_s_ends_lower() -> None:
    lowered = replan(capture(), WASTEFUL, 10.0)
    assert (lowered.tilefit, lowered.top, lowered.proven, lowered.lower_bound) == (
        True,
        128,
        True,
        128,
    )
    assert lowered.placement is not None and check(capture(), lowered.placement).valid
    kept = replan(capture(heap=128), LEAST, 10.0)  # at the bound: kept, proven, not searched
    assert (kept.placement, kept.tilefit, kept.proven, kept.top) == (LEAST, False, True, 128)
    assert kept.standing.best_top is None and kept.answer is None  # no search ran
    assert lowered.answer is not None and lowered.answer.placement == lowered.placement
    broken = Placement("p", {"a": 0, "b": 0, "c": 128})
    refused = replan(capture(), broken, 10.0)
    assert refused.refused is not None and not refused.tilefit and refused.placement == broken
    none_given = replan(capture(), None, 10.0)
    assert none_given.tilefit and none_given.top == 128


def test_a_runtime_that_reports_the_planned_section_only_says_no_whole() -> None:
    chain = toolchain("iree")
    slabs = RuntimeCheck(Sizes(192, 128), None, 2, True, True)
    assert runtime_lines(chain, slabs)[0] == "  IREE's runtime: slab 192 -> 128 B"
    arena = RuntimeCheck(Sizes(192, 128), Sizes(900, 836), 100, True, False)
    lines = runtime_lines(toolchain("tflm"), arena)
    assert lines[0] == "  TFLM's runtime: head 192 -> 128 B, whole arena 900 -> 836 B"
    assert lines[1].endswith("(they do not vary on these inputs: a weak comparison)")
