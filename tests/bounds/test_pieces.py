"""The pieces bound never rules out a placement that exists; it sees what the spec's bounds miss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from checkout import ROOT
from hypothesis import strategies as st
from search_brute import brute_force
from search_captures import count_answers
from test_bounds import captures

from tilefit.bounds.columns import union_table
from tilefit.bounds.deficit import bound
from tilefit.bounds.pieces import all_usable, pieces_short, usable
from tilefit.cli import main
from tilefit.formats.load import read_capture
from tilefit.formats.save import capture_text
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.edits import Resize, apply_edits
from tilefit.verdicts.diagnose import diagnose

EXAMPLES = ROOT / "examples"


@st.composite
def aligned_captures(draw: st.DrawFn) -> Capture:
    capture = draw(captures())
    requests = tuple(
        Request(
            r.id, r.size, r.start, r.end, draw(st.sampled_from((1, 2, 4))), r.cls, r.interleaved
        )
        for r in capture.requests[:5]
    )
    return Capture(capture.name, capture.horizon, capture.memory, requests)


def _a_shortfall_means_brute_force_finds_no_placement(capture: Capture) -> bool:
    short = pieces_short(capture)
    if short is not None:
        assert brute_force(capture) is None
        assert short.excess > 0
        counted = [capture.request_by_id[i] for i in short.requests]
        assert all(r.start <= short.step < r.end for r in counted)
        assert sum(r.size for r in counted) == short.demand
    return short is not None


def test_a_shortfall_means_brute_force_finds_no_placement() -> None:
    short, ran = count_answers(
        st.tuples(aligned_captures()), 300, _a_shortfall_means_brute_force_finds_no_placement
    )
    # Measured on these 300 cases (2026-12-02): a shortfall on 182.
    assert short >= ran // 4


def test_it_is_at_least_as_strong_as_the_support_aware_bound() -> None:
    def each(capture: Capture) -> bool:
        deficit = bound(capture).support_deficit > 0
        if deficit:
            assert pieces_short(capture) is not None
        return deficit

    deficits, ran = count_answers(st.tuples(captures()), 200, each)
    # Measured on these 200 cases (2026-12-02): a support-aware deficit on 120.
    assert deficits >= ran // 4


def test_the_allowed_table_is_reused_only_where_it_gives_the_same_answer() -> None:
    # Where every request fits every interval of its allowed set, pieces_short reads the
    # allowed sets' table it is given instead of building its own: the same answer.
    def each(capture: Capture) -> bool:
        table = union_table(capture)
        reused = all_usable(capture, table)
        assert pieces_short(capture, table) == pieces_short(capture)
        return reused

    reused, ran = count_answers(st.tuples(aligned_captures()), 300, each)
    assert 0 < reused < ran  # both ways taken


def test_a_stretch_too_short_for_a_request_does_not_count() -> None:
    # 90 B in all, 20 B of them a scratch-only aperture; the 25 B scratch fits no stretch there.
    memory = Memory(100, (Range(0, 70, "main"), Range(80, 100, "aperture", ("scratch",))))
    capture = Capture(
        "t", 4, memory, (Request("w", 60, 0, 4), Request("s", 25, 1, 2, cls="scratch"))
    )
    assert bound(capture).support_deficit == 0  # 85 B in 90 B: the spec's bounds see nothing
    assert usable(memory, capture.requests[1]) == ((0, 70),)
    short = pieces_short(capture)
    assert short is not None
    assert (short.step, short.demand, short.usable, short.union) == (1, 85, 70, ((0, 70),))
    assert short.requests == ("w", "s")
    d = diagnose(capture, search=False)
    assert (d.verdict, d.route, d.subset) == ("infeasible", "pieces", ("w", "s"))


def test_alignment_shortens_a_stretch() -> None:
    memory = Memory(16, (Range(1, 9),))
    assert usable(memory, Request("a", 8, 0, 1)) == ((1, 9),)
    assert usable(memory, Request("a", 8, 0, 1, alignment=2)) == ()


def test_trimming_1_0_staging_by_its_deficit_leaves_the_aperture_unusable() -> None:
    capture = read_capture(EXAMPLES / "1-0.json")
    trimmed = apply_edits(capture, [Resize("m*.l3.cast.staging", -16_328, True, "trim")])
    short = pieces_short(trimmed)
    assert short is not None
    assert (short.step, short.excess) == (54, 12_288)  # the 12 KiB host aperture
    enough = apply_edits(capture, [Resize("m*.l3.cast.staging", -24_384, True, "trim")])
    assert pieces_short(enough) is None


def test_bound_prints_the_pieces_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = Memory(100, (Range(0, 70, "main"), Range(80, 100, "aperture", ("scratch",))))
    capture = Capture(
        "t", 4, memory, (Request("w", 60, 0, 4), Request("s", 25, 1, 2, cls="scratch"))
    )
    path = tmp_path / "t.json"
    path.write_text(capture_text(capture))
    assert main(["bound", str(path)]) == 0
    assert (
        "pieces bound: at step 1, 85 B live may use only [0, 70) = 70 B of stretches long "
        "enough to hold each: 15 B short"
    ) in capsys.readouterr().out.splitlines()
    assert main(["bound", str(path), "--json"]) == 0
    pieces = json.loads(capsys.readouterr().out)["pieces"]
    assert (pieces["step"], pieces["demand"], pieces["usable"]) == (1, 85, 70)
