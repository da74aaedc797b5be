"""The checker rejects each broken rule by kind and agrees with a brute-force referee."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import combinations, pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.placement import Placement
from tilefit.verdicts.check import KINDS, check
from tilefit.verdicts.clearance import clear_in_columns

# Memory [0, 64): four 16-byte elements; [32, 48) open only to scratch;
# addresses >= 48 interleaved.
MEMORY = Memory(
    size=64,
    ranges=(
        Range(0, 32, "main"),
        Range(32, 48, "host", ("scratch",)),
        Range(48, 64, "wide"),
    ),
    elements=(0, 16, 32, 48),
    interleaved_offset=48,
)
CAPTURE = Capture(
    name="rules",
    horizon=10,
    memory=MEMORY,
    requests=(
        Request("a", 8, 0, 4, alignment=8),
        Request("b", 8, 2, 6, alignment=4),
        Request("s1", 4, 0, 10),
        Request("s2", 4, 0, 10),
        Request("x", 8, 0, 10, cls="scratch"),
        Request("i", 8, 0, 10, interleaved=True),
        Request("c", 4, 6, 10),
    ),
    sequences=(Sequence("S", ("s1", "s2")),),
    conflicts=(Conflict("a", "S"), Conflict("a", "c")),
)
VALID = {"a": 0, "b": 8, "s1": 24, "s2": 28, "x": 32, "i": 48, "c": 56}


def kinds_of(offsets: dict[str, int], capture: Capture = CAPTURE) -> list[str]:
    return [v.kind for v in check(capture, Placement(capture.name, offsets)).violations]


def moved(**changes: int) -> dict[str, int]:
    return {**VALID, **changes}


def test_valid_placement_is_accepted() -> None:
    result = check(CAPTURE, Placement("rules", VALID))
    assert result.valid
    assert result.violations == ()
    assert all(result.count(kind) == 0 for kind in KINDS)


def test_missing_offset() -> None:
    offsets = {k: v for k, v in VALID.items() if k != "x"}
    result = check(CAPTURE, Placement("rules", offsets))
    assert not result.valid
    assert [(v.kind, v.ids) for v in result.violations] == [("missing", ("x",))]


def test_unknown_ids_including_a_sequence_id() -> None:
    result = check(CAPTURE, Placement("rules", moved(zz=0, S=24)))
    assert [(v.kind, v.ids) for v in result.violations] == [
        ("unknown", ("S",)),
        ("unknown", ("zz",)),
    ]
    assert "is a sequence" in result.violations[0].detail


def test_misaligned() -> None:
    result = check(CAPTURE, Placement("rules", moved(b=10)))
    assert [(v.kind, v.ids) for v in result.violations] == [("alignment", ("b",))]
    assert "alignment 4" in result.violations[0].detail


def test_outside_allowed_set_by_class() -> None:
    # b is not scratch, so the host range is closed to it.
    result = check(CAPTURE, Placement("rules", moved(b=40)))
    assert [(v.kind, v.ids) for v in result.violations] == [("range", ("b",))]
    assert "[40, 48)" in result.violations[0].detail


def test_interleaved_request_below_the_interleaved_offset() -> None:
    capture = Capture("il", 10, MEMORY, (Request("i", 8, 0, 10, interleaved=True),))
    assert kinds_of({"i": 8}, capture) == ["range"]
    assert kinds_of({"i": 56}, capture) == []
    assert kinds_of({"i": 60}, capture) == ["range"]  # past the end of memory


def test_a_request_may_span_two_adjacent_ranges_that_admit_it() -> None:
    # Scratch may use both main and host, which touch at 32.
    capture = Capture("span", 10, MEMORY, (Request("x", 8, 0, 10, cls="scratch"),))
    assert kinds_of({"x": 28}, capture) == []
    # A default request may not: host is closed to it.
    other = Capture("span", 10, MEMORY, (Request("y", 8, 0, 10),))
    assert kinds_of({"y": 28}, other) == ["range"]
    # Nor across a gap between ranges.
    gap = Memory(32, (Range(0, 8), Range(12, 32)))
    assert kinds_of({"y": 4}, Capture("gap", 10, gap, (Request("y", 8, 0, 10),))) == ["range"]


def test_overlap() -> None:
    result = check(CAPTURE, Placement("rules", moved(b=0)))
    assert [(v.kind, v.ids) for v in result.violations] == [("overlap", ("a", "b"))]
    assert "share addresses [0, 8) during steps [2, 4)" in result.violations[0].detail


def test_requests_live_at_different_steps_may_share_addresses() -> None:
    # q starts at 4, the step p ends: lifetimes are half-open.
    capture = Capture(
        "reuse", 10, Memory(16, (Range(0, 16),)), (Request("p", 8, 0, 4), Request("q", 8, 4, 9))
    )
    assert kinds_of({"p": 0, "q": 0}, capture) == []
    assert kinds_of({"p": 0, "q": 7}, capture) == []


def test_sequence_members_out_of_order() -> None:
    result = check(CAPTURE, Placement("rules", moved(s2=16)))
    assert [(v.kind, v.ids) for v in result.violations] == [("sequence", ("S", "s1", "s2"))]
    assert "must start at 28" in result.violations[0].detail


def test_conflict_sides_share_an_element() -> None:
    # c at [0, 4) lives after a and b but shares element 0 with a.
    result = check(CAPTURE, Placement("rules", moved(c=0)))
    assert [(v.kind, v.ids) for v in result.violations] == [("conflict", ("a", "c"))]
    assert "element 0 [0, 16)" in result.violations[0].detail


def test_conflict_with_a_sequence_side_counts_every_member() -> None:
    # s1 stays in element 0, s2 reaches element 1, where a now sits.
    offsets = moved(b=0, s1=12, s2=16, a=24)
    result = check(CAPTURE, Placement("rules", offsets))
    assert [(v.kind, v.ids) for v in result.violations] == [("conflict", ("a", "S"))]
    assert "s2" in result.violations[0].detail


def test_every_violation_is_listed_in_rule_order() -> None:
    offsets = {k: v for k, v in VALID.items() if k != "x"}
    offsets.update(zz=1, b=10, i=8, s2=40, c=0)
    result = check(CAPTURE, Placement("rules", offsets))
    assert [v.kind for v in result.violations] == [
        "missing",
        "unknown",
        "alignment",
        "range",  # s2 in the host range, closed to its class
        "range",  # i below the interleaved offset
        "overlap",  # b [10, 18) and i [8, 16)
        "sequence",
        "conflict",
    ]


def test_result_does_not_depend_on_offset_order() -> None:
    offsets = moved(b=0, s2=16, c=0, zz=3)
    backwards = dict(reversed(list(offsets.items())))
    assert check(CAPTURE, Placement("r", offsets)) == check(CAPTURE, Placement("r", backwards))


def test_overlaps_beyond_the_cap_are_counted_not_listed() -> None:
    n = 30
    capture = Capture(
        "pile", 5, Memory(8, (Range(0, 8),)), tuple(Request(f"r{k}", 4, 0, 5) for k in range(n))
    )
    result = check(capture, Placement("pile", {f"r{k}": 0 for k in range(n)}), max_overlaps=7)
    assert not result.valid
    assert len(result.violations) == 7
    assert result.overlaps_not_listed == n * (n - 1) // 2 - 7
    assert result.count("overlap") == n * (n - 1) // 2


def test_offsets_beyond_64_bits_are_still_compared_exactly() -> None:
    capture = Capture(
        "far", 5, Memory(8, (Range(0, 8),)), (Request("p", 4, 0, 5), Request("q", 4, 0, 5))
    )
    far = 2**70
    assert kinds_of({"p": far, "q": far + 3}, capture) == ["range", "range", "overlap"]
    assert kinds_of({"p": far, "q": far + 4}, capture) == ["range", "range"]


# --- brute force -------------------------------------------------------------

CLASSES = ("default", "scratch", "resident")


def brute_force(capture: Capture, offsets: dict[str, int]) -> Counter[tuple[str, tuple[str, ...]]]:
    """Every violation, byte by byte and pair by pair, straight from the spec text."""
    memory = capture.memory
    found: Counter[tuple[str, tuple[str, ...]]] = Counter()
    ids = [r.id for r in capture.requests]
    for r in capture.requests:
        if r.id not in offsets:
            found["missing", (r.id,)] += 1
    for ident in offsets:
        if ident not in ids:
            found["unknown", (ident,)] += 1
    placed = [r for r in capture.requests if r.id in offsets]

    def addresses(r: Request) -> set[int]:
        return set(range(offsets[r.id], offsets[r.id] + r.size))

    low = memory.size if memory.interleaved_offset is None else memory.interleaved_offset
    for r in placed:
        if offsets[r.id] % r.alignment:
            found["alignment", (r.id,)] += 1
        allowed = {
            x
            for rng in memory.ranges
            if rng.classes is None or r.cls in rng.classes
            for x in range(rng.start, rng.end)
            if not r.interleaved or x >= low
        }
        if not addresses(r) <= allowed:
            found["range", (r.id,)] += 1
    for p, q in combinations(placed, 2):
        if set(range(p.start, p.end)) & set(range(q.start, q.end)) and addresses(p) & addresses(q):
            found["overlap", (p.id, q.id)] += 1
    for seq in capture.sequences:
        for before, after in pairwise(seq.members):
            if before in offsets and after in offsets:
                size = capture.request_by_id[before].size
                if offsets[after] != offsets[before] + size:
                    found["sequence", (seq.id, before, after)] += 1

    def element(x: int) -> int:
        return max(k for k, e in enumerate(memory.elements) if e <= x)

    def touched(ident: str) -> set[int]:
        members = (
            capture.sequence_by_id[ident].members if ident in capture.sequence_by_id else (ident,)
        )
        return {
            element(x)
            for m in members
            if m in offsets
            for x in addresses(capture.request_by_id[m])
            if 0 <= x < memory.size
        }

    for edge in capture.conflicts:
        if touched(edge.a) & touched(edge.b):
            found["conflict", (edge.a, edge.b)] += 1
    return found


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Capture, dict[str, int]]:
    size = draw(st.integers(8, 40))
    cuts = sorted(draw(st.sets(st.integers(0, size), min_size=2, max_size=6)))
    ranges = tuple(
        Range(s, e, None, draw(st.none() | st.sets(st.sampled_from(CLASSES)).map(tuple)))
        for s, e in pairwise(cuts)
        if draw(st.integers(0, 3))
    ) or (Range(cuts[0], cuts[-1]),)
    elements = (0, *sorted(draw(st.sets(st.integers(1, size - 1), max_size=4))))
    memory = Memory(size, ranges, elements, draw(st.none() | st.integers(0, size)))
    n = draw(st.integers(1, 7))
    requests = []
    for k in range(n):
        start = draw(st.integers(0, 5))
        requests.append(
            Request(
                f"r{k}",
                draw(st.integers(1, 8)),
                start,
                draw(st.integers(start + 1, 6)),
                alignment=draw(st.sampled_from((1, 2, 4))),
                cls=draw(st.sampled_from(CLASSES)),
                interleaved=draw(st.booleans()),
            )
        )
    order = draw(st.permutations([r.id for r in requests]))
    sequences, taken = [], 0
    while taken < n and draw(st.booleans()):
        length = draw(st.integers(1, n - taken))
        sequences.append(Sequence(f"S{len(sequences)}", tuple(order[taken : taken + length])))
        taken += length
    sides = [r.id for r in requests] + [s.id for s in sequences]
    edges = draw(st.lists(st.tuples(st.sampled_from(sides), st.sampled_from(sides)), max_size=4))
    conflicts = tuple(Conflict(a, b) for a, b in edges if a != b)
    capture = Capture("random", 6, memory, tuple(requests), tuple(sequences), conflicts)
    offsets = {
        r.id: offset
        for r in requests
        if (offset := draw(st.none() | st.integers(-2, size + 2))) is not None
    }
    for ident in draw(st.lists(st.sampled_from(["ghost", *[s.id for s in sequences]]), max_size=2)):
        offsets[ident] = draw(st.integers(0, size))
    return capture, offsets


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_agrees_with_brute_force(scenario: tuple[Capture, dict[str, int]]) -> None:
    capture, offsets = scenario
    result = check(capture, Placement(capture.name, offsets))
    assert Counter((v.kind, v.ids) for v in result.violations) == brute_force(capture, offsets)
    assert result.valid == (not brute_force(capture, offsets))


@settings(max_examples=100, deadline=None)
@given(scenarios(), st.integers(1, 3))
def test_capped_overlaps_are_a_subset_and_the_count_is_exact(
    scenario: tuple[Capture, dict[str, int]], cap: int
) -> None:
    capture, offsets = scenario
    expected = {ids for (kind, ids) in brute_force(capture, offsets) if kind == "overlap"}
    result = check(capture, Placement(capture.name, offsets), max_overlaps=cap)
    listed = [v.ids for v in result.violations if v.kind == "overlap"]
    assert len(listed) == min(cap, len(expected))
    assert set(listed) <= expected
    assert result.count("overlap") == len(expected)


@settings(max_examples=400, deadline=None)
@given(scenarios(), st.booleans())
def test_the_columns_clear_exactly_the_valid_placements_they_look_at(
    scenario: tuple[Capture, dict[str, int]], one_kind: bool
) -> None:
    """The referee's look in numpy columns (no object per placed request) says "valid"
    only where the walk, rule by rule, finds nothing, and says it wherever the walk finds
    nothing on a capture of one allowed set and no sequence or conflict."""
    capture, offsets = scenario
    requests = capture.requests
    if one_kind:
        requests = tuple(replace(r, cls=requests[0].cls, interleaved=False) for r in requests)
    capture = replace(capture, requests=requests, sequences=(), conflicts=())
    valid = not brute_force(capture, offsets)
    cleared = clear_in_columns(capture, offsets)
    assert valid or not cleared
    if one_kind:
        assert cleared == valid
    assert check(capture, Placement(capture.name, offsets)).valid == valid


def test_a_valid_placement_of_one_kind_is_cleared_in_columns_and_a_broken_one_is_not() -> None:
    requests = (Request("a", 4, 0, 2, alignment=4), Request("b", 4, 1, 3), Request("c", 8, 2, 4))
    capture = Capture("cols", 4, Memory(16, (Range(0, 16),)), requests)
    good = {"a": 0, "b": 4, "c": 8}
    assert clear_in_columns(capture, good)
    for broken in ({**good, "b": 2}, {**good, "a": 2}, {**good, "c": 9}, {"a": 0, "b": 4}):
        assert not clear_in_columns(capture, broken)
        assert not check(capture, Placement("cols", broken)).valid


def test_offsets_that_are_not_ints_are_walked_not_cleared_in_columns() -> None:
    # numpy would make 4.5 and "4" the int 4; the referee reads them as given.
    requests = (Request("a", 4, 0, 2), Request("b", 4, 1, 3))
    capture = Capture("cols", 3, Memory(16, (Range(0, 16),)), requests)
    for odd in (4.5, "4", 1 << 70):
        offsets: dict[str, Any] = {"a": 0, "b": odd}
        assert not clear_in_columns(capture, offsets)
    assert clear_in_columns(capture, {"a": 0, "b": 4})
