"""tilefit diff: what changed between two captures, and which changes overload the second.

The seed's finding, pinned: against its baseline, 1-0's four overloaded
windows are made by the late cast's lifetimes (the FP16 operand and the
staging moved in time), not by the QKV weights the production error names.
And the diff itself agrees with brute force on random captures and edits.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from checkout import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.bounds.deficit import bound
from tilefit.cli import main
from tilefit.formats.load import read_capture
from tilefit.formats.save import capture_text
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.edits import Drop, Edit, Lifetime, Resize, apply_edits
from tilefit.output.schema import output_schema
from tilefit.verdicts.diff import CaptureDiff, diff, revert_edits

EXAMPLES = ROOT / "examples"
BASELINE, LATE_CAST = str(EXAMPLES / "1-0-baseline.json"), str(EXAMPLES / "1-0.json")
WINDOW_STEPS = [12, 26, 40, 54]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- the seed's 1-0


def seed_diff() -> CaptureDiff:
    return diff(read_capture(BASELINE), read_capture(LATE_CAST))


def test_only_the_casts_lifetimes_changed() -> None:
    d = seed_diff()
    assert d.matched == 119 and len(d.requests) == 12
    assert all(c.kinds == ("moved",) for c in d.requests)
    assert {c.id.split(".", 1)[1] for c in d.requests} == {
        "l3.mlp_down.in16",
        "l3.mlp_down.in8",
        "l3.cast.staging",
    }
    assert not (d.sequences or d.conflicts_added or d.conflicts_removed or d.memory.changed)


def test_the_cast_lifetimes_make_every_overloaded_window_not_the_qkv_weights() -> None:
    d = seed_diff()
    assert [w.step for w in d.windows] == WINDOW_STEPS
    qkv = set(d.other.members("w3.attn_qkv"))
    for mb, w in enumerate(d.windows):
        p = f"m{mb}.l3"
        assert [c.id for c in w.causes] == [f"{p}.mlp_down.in16", f"{p}.cast.staging"]
        assert all(c.kinds == ("moved",) for c in w.causes)
        in16, staging = (d.other.request_by_id[c.id] for c in w.causes)
        assert [c.adds for c in w.causes] == [in16.size, staging.size]
        # They are all of the increase over the baseline there, which is far above the excess.
        assert w.total == w.increase and w.share == 1.0
        assert w.total > w.window.excess
        assert not qkv & {c.id for c in w.causes}
        # The QKV weights are live at every window, in both captures, unchanged.
        assert qkv <= {r.id for r in w.window.requests}


def test_cli_names_the_cast_and_not_the_qkv_weights(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "diff", BASELINE, LATE_CAST)
    assert (code, err) == (0, "")
    assert "  moved in time  12\n" in out
    assert "m0.l3.cast.staging   lifetime [7, 9) -> [11, 13)" in out
    windows = out.split("overloaded windows of OTHER: 4;")[1].split("OTHER's observed failure")
    blocks = windows[0].split("  window ")[1:]
    assert len(blocks) == 4
    for mb, (block, step) in enumerate(zip(blocks, WINDOW_STEPS, strict=True)):
        assert block.startswith(f"{mb + 1}, step {step}: ")
        causes = [line.split()[0] for line in block.splitlines()[1:-1]]
        assert causes == [f"m{mb}.l3.mlp_down.in16", f"m{mb}.l3.cast.staging"]
        assert "w3.attn_qkv" not in block
        assert block.splitlines()[-1].endswith("100% of OTHER's increase over BASE there")
    assert out.rstrip().endswith(
        "OTHER's observed failure names w3.attn_qkv: unchanged from BASE, a cause of no window"
    )


def test_json_names_the_same_causes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", BASELINE, LATE_CAST, "--json")
    obj = json.loads(out)
    jsonschema.validate(obj, output_schema("diff"))
    assert code == 0 and obj["counts"]["moved"] == 12 and obj["same_tile"]
    assert [w["step"] for w in obj["windows"]] == WINDOW_STEPS
    for mb, w in enumerate(obj["windows"]):
        assert [c["id"] for c in w["causes"]] == [
            f"m{mb}.l3.mlp_down.in16",
            f"m{mb}.l3.cast.staging",
        ]
        assert w["share"] == 1.0 and w["total"] == w["increase"]
    assert obj["not_revertible"] == []


def test_reverting_the_changes_turns_1_0_into_its_baseline() -> None:
    d = seed_diff()
    edits = revert_edits(d)
    assert {type(e) for e in edits} == {Lifetime} and len(edits) == 12
    reverted = apply_edits(d.other, edits)
    assert reverted.requests == d.base.requests
    assert bound(reverted).windows == ()


# --------------------------------------------------------------------------- each kind


MEMORY = Memory(100, (Range(0, 80, "main"), Range(80, 100, "host", ("scratch",))))


def capture_of(
    *requests: Request,
    horizon: int = 10,
    memory: Memory = MEMORY,
    sequences: tuple[Sequence, ...] = (),
    conflicts: tuple[Conflict, ...] = (),
    tile: int | None = None,
) -> Capture:
    return Capture("t", horizon, memory, requests, sequences, conflicts, tile=tile)


def _write(tmp_path: Path, capture: Capture, name: str) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(capture_text(replace(capture, name=name)))
    return str(path)


def _words(line: str) -> str:
    return " ".join(line.split())


def test_every_kind_of_change_is_found_and_worded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = capture_of(
        Request("same", 10, 0, 10, label="old label"),
        Request("grows", 10, 0, 4),
        Request("aligned", 8, 0, 4, alignment=1),
        Request("later", 10, 0, 2),
        Request("scratch", 10, 0, 2, cls="scratch"),
        Request("flips", 2, 0, 1),
        Request("gone", 5, 1, 3),
        sequences=(Sequence("seq", ("same", "grows")),),
        conflicts=(Conflict("same", "later"), Conflict("aligned", "gone")),
    )
    other = capture_of(
        Request("same", 10, 0, 10, label="new label"),  # a label is no change
        Request("grows", 30, 0, 4),
        Request("aligned", 8, 0, 4, alignment=8),
        Request("later", 10, 5, 7),
        Request("scratch", 10, 0, 2, cls="activation", interleaved=True),
        Request("flips", 2, 0, 1, interleaved=True),
        Request("new", 7, 2, 6),
        sequences=(Sequence("seq", ("grows", "same")), Sequence("pair", ("new",))),
        conflicts=(Conflict("later", "same"), Conflict("new", "grows")),
        memory=Memory(120, (*MEMORY.ranges, Range(100, 120, "what-if"))),
        horizon=12,
    )
    d = diff(base, other)
    kinds = {c.id: c.kinds for c in d.requests}
    assert kinds == {
        "grows": ("resized",),
        "aligned": ("realigned",),
        "later": ("moved",),
        "scratch": ("reclassed",),
        "flips": ("reclassed",),
        "new": ("added",),
        "gone": ("removed",),
    }
    assert [(s.id, s.kind) for s in d.sequences] == [("seq", "changed"), ("pair", "added")]
    assert d.conflicts_added == (Conflict("new", "grows"),)
    assert d.conflicts_removed == (Conflict("aligned", "gone"),)  # [a, b] is [b, a]
    assert d.memory.ranges_added == (Range(100, 120, "what-if"),) and not d.memory.ranges_removed
    assert [c.id for c in d.not_revertible] == ["aligned", "scratch", "flips", "gone"]
    assert not d.empty

    path_b, path_o = _write(tmp_path, base, "b"), _write(tmp_path, other, "o")
    code, out, _ = run(capsys, "diff", path_b, path_o)
    assert code == 0
    printed = [_words(line) for line in out.splitlines()]
    for line in (
        "  grows    size 10 -> 30 B",
        "  aligned  alignment 1 -> 8",
        "  later    lifetime [0, 2) -> [5, 7)",
        "  scratch  class scratch -> activation; now interleaved",
        "  flips    now interleaved",
        "  new      added: 7 B, align 1, steps [2, 6), class default",
        "  gone     removed: 5 B, align 1, steps [1, 3), class default",
        "  sequence seq        members same, grows -> grows, same",
        "  sequence pair       added, 1 member",
        "  conflict new / grows  added",
        "  range what-if [100, 120)  added",
        "memory: available 100 -> 120 B, size 100 -> 120 B",
        "horizon: 10 -> 12",
    ):
        assert _words(line) in printed, line
    code, out, _ = run(capsys, "diff", path_b, path_o, "--json")
    jsonschema.validate(json.loads(out), output_schema("diff"))


def test_causes_count_what_each_change_adds_at_the_worst_step() -> None:
    base = capture_of(
        Request("w", 40, 0, 10),  # live everywhere, unchanged: never a cause
        Request("grows", 20, 0, 10),
        Request("moves", 30, 0, 2),
        Request("leaves", 10, 4, 6),
        Request("shrinks", 10, 0, 10),
    )
    other = capture_of(
        Request("w", 40, 0, 10),
        Request("grows", 25, 0, 10),
        Request("moves", 30, 4, 6),
        Request("leaves", 10, 7, 8),
        Request("shrinks", 5, 0, 10),
        Request("new", 8, 5, 6),
    )
    d = diff(base, other)
    (w,) = d.windows
    assert w.step == 5 and (w.window.start, w.window.end) == (4, 6)
    assert [(c.id, c.adds) for c in w.causes] == [("moves", 30), ("new", 8), ("grows", 5)]
    assert (w.base_live, w.other_live) == (80, 108)
    assert w.total == 43 and w.increase == 28  # "leaves" left and "shrinks" shrank there
    assert w.share == pytest.approx(43 / 28)


def test_a_window_as_overloaded_in_base_has_no_cause(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Only 80 B are open to class default; "big" alone overloads every step.
    full = capture_of(Request("big", 90, 0, 10), Request("x", 10, 0, 2))
    longer = capture_of(Request("big", 90, 0, 10), Request("x", 10, 0, 3))
    d = diff(full, longer)
    assert [(w.step, w.causes, w.share) for w in d.windows] == [(0, (), None)]
    code, out, _ = run(capsys, "diff", _write(tmp_path, full, "a"), _write(tmp_path, longer, "b"))
    assert code == 0
    assert "    no change adds bytes at this step: it is as overloaded in BASE" in out


def test_removed_requests_are_not_revertible_and_ids_with_brackets_are_named_exactly() -> None:
    # As patterns, "w[0]" would name "w0" and "a*" would name "ab": the edits must not.
    base = capture_of(
        Request("w[0]", 10, 0, 10),
        Request("w0", 10, 0, 10),
        Request("a*", 4, 0, 2),
        Request("ab", 4, 0, 2),
        Request("gone", 3, 0, 2),
    )
    other = capture_of(
        Request("w[0]", 12, 2, 10),
        Request("w0", 10, 0, 10),
        Request("a*", 6, 0, 2),
        Request("ab", 4, 0, 2),
        Request("new", 4, 0, 2),
    )
    d = diff(base, other)
    edits = revert_edits(d)
    assert [type(e).__name__ for e in edits] == ["Drop", "Lifetime", "Resize", "Resize"]
    reverted = apply_edits(other, edits)
    assert reverted.requests == base.requests[:4]
    assert [c.id for c in d.not_revertible] == ["gone"]


def test_different_tiles_are_compared_and_said_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a = _write(tmp_path, capture_of(Request("x", 1, 0, 1), tile=0), "a")
    b = _write(tmp_path, capture_of(Request("x", 1, 0, 1), tile=3), "b")
    code, out, _ = run(capsys, "diff", a, b)
    assert code == 0
    assert out.splitlines()[:2] == [
        "BASE a -> OTHER b",
        "note: BASE is tile 0 and OTHER tile 3: these are captures of different tiles",
    ]
    assert "live bytes: the same at every step" in out
    assert "overloaded windows of OTHER: none" in out


@pytest.mark.parametrize("bad_first", [True, False])
def test_bad_input_names_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bad_first: bool
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tilefit-capture"}')
    args = [str(bad), LATE_CAST] if bad_first else [LATE_CAST, str(bad)]
    code, out, err = run(capsys, "diff", *args)
    assert code == 2 and out == ""
    assert err.startswith(f"tilefit: {bad}: ") and len(err.splitlines()) == 1
    code, _, err = run(capsys, "diff", LATE_CAST, str(tmp_path / "missing.json"))
    assert code == 2 and err.startswith(f"tilefit: {tmp_path / 'missing.json'}: ")


def test_the_same_input_prints_the_same_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "diff", BASELINE, LATE_CAST, "--json")
    assert run(capsys, "diff", BASELINE, LATE_CAST, "--json") == first


# --------------------------------------------------------------------------- properties


@st.composite
def captures(draw: st.DrawFn, horizon: int | None = None) -> Capture:
    """Small captures with sequences and conflicts; ids r0, r1, ..."""
    horizon = horizon or draw(st.integers(1, 8))
    count = draw(st.integers(0, 8))
    requests = []
    for k in range(count):
        start = draw(st.integers(0, horizon - 1))
        requests.append(
            Request(
                f"r{k}",
                draw(st.integers(1, 40)),
                start,
                draw(st.integers(start + 1, horizon)),
                cls=draw(st.sampled_from(("default", "scratch"))),
            )
        )
    ids = [r.id for r in requests]
    sequences: tuple[Sequence, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    if len(ids) >= 2:
        if draw(st.booleans()):
            sequences = (Sequence("s", tuple(ids[:2])),)  # alignment 1: any sizes stay aligned
        pairs = st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), max_size=4)
        conflicts = tuple(Conflict(a, b) for a, b in draw(pairs) if a != b)
    memory = Memory(100, (Range(0, 80, "main"), Range(80, 100, "host", ("scratch",))))
    return Capture("c", horizon, memory, tuple(requests), sequences, conflicts)


def live(capture: Capture, t: int) -> int:
    return sum(r.size for r in capture.requests if r.start <= t < r.end)


@settings(max_examples=200, deadline=None)
@given(captures())
def test_a_capture_against_itself_is_empty(capture: Capture) -> None:
    d = diff(capture, capture)
    assert d.empty and d.requests == () and d.matched == len(capture.requests)
    assert all(r.change == 0 for r in d.profile)
    assert all(w.causes == () and w.increase == 0 for w in d.windows)
    assert revert_edits(d) == () and d.not_revertible == ()


@settings(max_examples=200, deadline=None)
@given(captures(), captures())
def test_the_profile_and_the_causes_match_brute_force(base: Capture, other: Capture) -> None:
    d = diff(base, other)
    end = max(base.horizon, other.horizon)
    assert d.profile[0].start == 0 and d.profile[-1].end == end
    for a, b in zip(d.profile, d.profile[1:], strict=False):
        assert a.end == b.start and (a.base, a.other) != (b.base, b.other)
    for t in range(end):
        (run_,) = [r for r in d.profile if r.start <= t < r.end]
        assert (run_.base, run_.other) == (live(base, t), live(other, t))
    before = base.request_by_id
    for w in d.windows:
        t = w.step
        expected = {}
        for o in other.requests:
            b = before.get(o.id)
            same = b is not None and replace(b, label=None) == replace(o, label=None)
            if same or not o.start <= t < o.end:
                continue
            adds = o.size - b.size if b is not None and b.start <= t < b.end else o.size
            if adds > 0:
                expected[o.id] = adds
        assert {c.id: c.adds for c in w.causes} == expected
        assert [c.adds for c in w.causes] == sorted((c.adds for c in w.causes), reverse=True)
        assert (w.base_live, w.other_live) == (live(base, t), live(other, t))


@st.composite
def edited(draw: st.DrawFn) -> tuple[Capture, Capture, dict[str, tuple[int, int, int] | None]]:
    """A capture, the capture after random edits, and what each id should become."""
    capture = draw(captures())
    expected: dict[str, tuple[int, int, int] | None] = {
        r.id: (r.size, r.start, r.end) for r in capture.requests
    }
    edits: list[Edit] = []
    for _ in range(draw(st.integers(0, 6))):
        alive = [k for k, v in expected.items() if v is not None]
        if not alive:
            break
        ident = draw(st.sampled_from(alive))
        current = expected[ident]
        assert current is not None
        size, start, end = current
        kind = draw(st.sampled_from(("drop", "resize", "lifetime")))
        if kind == "drop":
            edits.append(Drop(ident, "test"))
            expected[ident] = None
        elif kind == "resize":
            size = draw(st.integers(1, 40))
            edits.append(Resize(ident, size, False, "test"))
            expected[ident] = (size, start, end)
        else:
            start = draw(st.integers(0, capture.horizon - 1))
            end = draw(st.integers(start + 1, capture.horizon))
            edits.append(Lifetime(ident, start, end, "test"))
            expected[ident] = (size, start, end)
    return capture, apply_edits(capture, edits), expected


@settings(max_examples=300, deadline=None)
@given(edited())
def test_the_changes_found_are_the_changes_made(
    case: tuple[Capture, Capture, dict[str, tuple[int, int, int] | None]],
) -> None:
    base, other, expected = case
    found = {c.id: c.kinds for c in diff(base, other).requests}
    made = {}
    for r in base.requests:
        now = expected[r.id]
        if now is None:
            made[r.id] = ("removed",)
            continue
        kinds = ()
        if now[0] != r.size:
            kinds += ("resized",)
        if now[1:] != (r.start, r.end):
            kinds += ("moved",)
        if kinds:
            made[r.id] = kinds
    assert found == made
    # Backwards, a dropped request is an added one.
    back = {c.id: c.kinds for c in diff(other, base).requests}
    assert {k for k, v in back.items() if v == ("added",)} == {
        k for k, v in made.items() if v == ("removed",)
    }


@settings(max_examples=300, deadline=None)
@given(edited())
def test_reverting_gives_back_base_requests_for_every_matched_id(
    case: tuple[Capture, Capture, dict[str, tuple[int, int, int] | None]],
) -> None:
    base, other, _ = case
    for a, b in ((base, other), (other, base)):
        d = diff(a, b)
        reverted = apply_edits(b, revert_edits(d))
        matched = [r.id for r in b.requests if r.id in a.request_by_id]
        assert [r.id for r in reverted.requests] == matched
        assert all(reverted.request_by_id[k] == a.request_by_id[k] for k in matched)
        assert {c.id for c in d.not_revertible} == {
            c.id for c in d.requests if c.kinds == ("removed",)
        }


def test_minimalloc_csvs_take_their_capacity_from_the_option(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base, other = tmp_path / "x.csv", tmp_path / "y.csv"
    base.write_text("id,lower,upper,size\na,0,3,10\nb,1,4,20\n")
    other.write_text("id,lower,upper,size\na,0,3,10\nb,2,4,25\nc,0,1,5\n")
    code, _, err = run(capsys, "diff", str(base), str(other))
    assert code == 2 and err.startswith(f"tilefit: {base}: ")
    code, out, _ = run(capsys, "diff", str(base), str(other), "--capacity", "25")
    assert code == 0
    assert "  b  size 20 -> 25 B; lifetime [1, 4) -> [2, 4)" in out
    assert "    1 change adds 5 B: 100% of OTHER's increase over BASE there" in out


def test_edits_out_reverted_by_whatif_turns_1_0_into_fits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edits = tmp_path / "revert.json"
    base, other = str(EXAMPLES / "1-0-baseline.json"), str(EXAMPLES / "1-0.json")
    code, _, _ = run(capsys, "diff", base, other, "--edits-out", str(edits))
    assert code == 0
    assert len(json.loads(edits.read_text())["edits"]) == 12
    code, out, _ = run(capsys, "whatif", other, "--edits", str(edits), "--json", "--workers", "1")
    result = json.loads(out)
    assert (code, result["before"]["verdict"], result["after"]["verdict"]) == (
        0,
        "capacity",
        "fits",
    )


def test_what_no_edit_undoes_is_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = Memory(100, (Range(0, 100),))
    base = Capture("b", 4, memory, (Request("a", 10, 0, 2), Request("gone", 10, 0, 2)))
    other = Capture("o", 4, memory, (Request("a", 10, 0, 3, alignment=2),))
    edits = tmp_path / "revert.json"
    code, out, _ = run(
        capsys,
        "diff",
        _write(tmp_path, base, "b"),
        _write(tmp_path, other, "o"),
        "--edits-out",
        str(edits),
    )
    assert code == 0
    lines = out.splitlines()
    start = lines.index("no edit undoes 2 changes (--edits-out skips):")
    assert [line.split()[0] for line in lines[start + 1 : start + 3]] == ["a", "gone"]
    assert json.loads(edits.read_text())["edits"] == [{"lifetime": "a", "start": 0, "end": 2}]


def test_capacity_of_two_json_captures_is_refused_not_ignored(
    capsys: pytest.CaptureFixture[str],
) -> None:
    examples = ROOT / "examples"
    base, other = str(examples / "1-0-baseline.json"), str(examples / "1-0.json")
    assert main(["diff", base, other, "--capacity", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--capacity" in err[0] and "minimalloc CSV" in err[0]
