"""Cyclic captures: the format, the model's meeting test, the referee and the engine on a
circle of steps, each against a step-by-step brute force."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cyclic_captures import PERIOD, cyclic_captures, loop, meet_by_steps, steps_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from search_captures import count_answers

from tilefit.engine.attempt import run_strategy
from tilefit.formats.load import capture_from_json, read_capture
from tilefit.formats.minimalloc import capture_to_csv
from tilefit.formats.save import capture_text, capture_to_json
from tilefit.model.arcs import cut_open, pieces, steps
from tilefit.model.capture import Capture, Request
from tilefit.model.errors import InputError
from tilefit.model.placement import Placement
from tilefit.verdicts.check import check

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


def test_a_cyclic_capture_loads_and_saves_the_same() -> None:
    capture = capture_from_json(loop())
    assert capture.period == 4 and capture.cyclic and capture.wraps
    assert [r.wraps for r in capture.requests] == [True, False, False, False]
    assert capture_to_json(capture) == loop()
    again = capture_from_json(json.loads(capture_text(capture)))
    assert again == capture


def test_a_linear_capture_is_written_without_a_period() -> None:
    obj = loop()
    del obj["period"]
    obj["requests"] = obj["requests"][1:]
    capture = capture_from_json(obj)
    assert capture.period is None and not capture.cyclic and not capture.wraps
    assert "period" not in capture_to_json(capture)


@pytest.mark.parametrize(
    ("edit", "place", "rule"),
    [
        (lambda o: o.update(period=5), "period", "must equal horizon (4)"),
        (lambda o: o.update(period=True), "period", "must be an integer"),
        (lambda o: o["requests"][0].update(end=3), "requests[0].end", "must differ from start"),
        (lambda o: o["requests"][0].update(start=4), "requests[0].start", "must be in [0, 4)"),
        (lambda o: o["requests"][0].update(end=0), "requests[0].end", "must be in [1, 4]"),
        (lambda o: o["requests"][2].update(end=5), "requests[2].end", "must be in [1, 4]"),
        (lambda o: o.pop("period"), "requests[0].end", "must be > start (3)"),
    ],
)
def test_bad_arcs_name_the_place_and_the_rule(edit: Any, place: str, rule: str) -> None:
    obj = loop()
    edit(obj)
    with pytest.raises(InputError) as caught:
        capture_from_json(obj)
    assert caught.value.place == place
    assert rule in caught.value.rule


def test_a_bad_arc_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from tilefit.cli import main

    obj = loop()
    obj["requests"][1]["end"] = 0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(obj))
    assert main(["bound", str(path)]) == 2


def test_minimalloc_csv_refuses_a_wrapping_lifetime() -> None:
    with pytest.raises(InputError, match="wrap around the period \\(a\\)"):
        capture_to_csv(capture_from_json(loop()))
    held = loop()
    held["requests"] = held["requests"][1:]  # nothing wraps: the CSV says the same
    assert capture_to_csv(capture_from_json(held)).splitlines()[1] == "b,0,2,10"


def test_pieces_and_steps_of_an_arc() -> None:
    assert pieces(1, 3, 4) == ((1, 3),)
    assert pieces(3, 1, 4) == ((0, 1), (3, 4))
    assert steps(3, 1, 4) == 2 and steps(0, 4, 4) == 4 and steps(1, 3, 4) == 2


def test_cut_open_keeps_ids_and_counts_each_step_once() -> None:
    capture = capture_from_json(loop())
    cut = cut_open(capture)
    assert [(r.id, r.start, r.end) for r in cut.requests] == [
        ("a", 3, 4),
        ("a", 0, 1),
        ("b", 0, 2),
        ("c", 1, 4),
        ("h", 0, 4),
    ]
    assert cut_open(cut) is cut


@SETTINGS
@given(st.data())
def test_lives_with_is_sharing_a_step_on_the_circle(data: st.DataObject) -> None:
    from cyclic_captures import arcs

    a = Request("a", 1, *data.draw(arcs()))
    b = Request("b", 1, *data.draw(arcs()))
    assert a.lives_with(b) == b.lives_with(a) == meet_by_steps(a, b)


def _overlapping_pairs(capture: Capture, offsets: dict[str, int]) -> set[tuple[str, str]]:
    """Pairs sharing a step and a byte, step by step and byte by byte."""
    out = set()
    rs = capture.requests
    for k, r in enumerate(rs):
        for q in rs[k + 1 :]:
            bytes_r = set(range(offsets[r.id], offsets[r.id] + r.size))
            bytes_q = set(range(offsets[q.id], offsets[q.id] + q.size))
            if steps_of(r) & steps_of(q) and bytes_r & bytes_q:
                out.add((r.id, q.id))
    return out


@SETTINGS
@given(st.data())
def test_the_referee_finds_exactly_the_pairs_that_meet_and_share(data: st.DataObject) -> None:
    capture = data.draw(cyclic_captures(max_requests=5))
    offsets = {r.id: data.draw(st.integers(0, 6)) for r in capture.requests}
    result = check(capture, Placement(capture.name, offsets))
    found = {v.ids for v in result.violations if v.kind == "overlap"}
    assert found == _overlapping_pairs(capture, offsets)
    assert result.count("overlap") == len(found)


def test_the_referee_lists_overlaps_up_to_its_cap_and_counts_the_rest() -> None:
    capture = capture_from_json(loop())
    everything_at_zero = Placement("loop", {r.id: 0 for r in capture.requests})
    result = check(capture, everything_at_zero, max_overlaps=2)
    assert result.count("overlap") == 6 and result.overlaps_not_listed == 4
    first = next(v for v in result.violations if v.kind == "overlap")
    assert first.ids == ("a", "b")
    assert "during steps [0, 1) (period 4)" in first.detail


def test_an_arc_placement_that_shares_only_apart_in_time_is_valid() -> None:
    # a {3, 0} and c {1, 2, 3} meet at step 3; b {0, 1} and c meet at step 1; a and b at 0.
    capture = capture_from_json(loop())
    assert check(capture, Placement("loop", {"a": 0, "b": 10, "c": 20, "h": 30})).valid
    obj = loop()
    obj["requests"][2] = {"id": "c", "size": 10, "start": 1, "end": 3}  # now apart from a
    capture = capture_from_json(obj)
    assert check(capture, Placement("loop", {"a": 0, "b": 10, "c": 0, "h": 30})).valid


STRATEGIES = ("lifetime/first-fit", "size/best-fit", "long-lived/first-fit", "alignment/best-fit")


def _engine_refereed(capture: Capture) -> bool:
    fitted = False
    for strategy in STRATEGIES:
        attempt = run_strategy(capture, strategy)
        if attempt.fits:
            placement = attempt.placement
            assert placement is not None
            assert check(capture, placement).valid
            assert not _overlapping_pairs(capture, dict(placement.offsets))
            fitted = True
        else:
            assert attempt.failure is not None
    return fitted


def test_every_placement_the_engine_makes_on_a_circle_passes_the_referee() -> None:
    fitted, ran = count_answers(st.tuples(cyclic_captures(max_requests=5)), 300, _engine_refereed)
    assert ran // 10 <= fitted <= ran * 9 // 10  # both outcomes met


def test_the_engine_keeps_a_wrapping_request_clear_of_both_ends_of_the_loop() -> None:
    capture = capture_from_json(loop())
    attempt = run_strategy(capture, "lifetime/first-fit")
    assert attempt.fits
    offsets = attempt.offsets
    # b (steps 0-1) and c (steps 1-3) may not share with a (steps 3, 0): three tiers.
    assert len({offsets["a"], offsets["b"], offsets["c"]}) == 3


def test_a_failure_on_the_circle_lists_the_holes_over_both_pieces() -> None:
    obj = loop()
    obj["memory"] = {"size": 30, "ranges": [{"start": 0, "end": 30}]}
    capture = capture_from_json(obj)
    attempt = run_strategy(capture, "lifetime/first-fit")
    assert attempt.failure is not None
    assert attempt.failure.unit.id == "a"
    # b [0, 10) and h [10, 15) at step 0, c [15, 25) at step 3: only [25, 30) is clear.
    assert attempt.failure.holes == ((25, 30),)


def test_read_capture_of_a_cyclic_file(tmp_path: Path) -> None:
    path = tmp_path / "loop.json"
    path.write_text(json.dumps(loop()))
    assert read_capture(path).period == PERIOD


def test_a_map_draws_a_wrapping_request_as_two_boxes_either_side_of_the_cut() -> None:
    from tilefit.plot.layout import attempt_map, placement_map

    capture = capture_from_json(loop())
    layout = placement_map(capture, {"a": 30, "b": 0, "c": 10, "h": 20}, "loop")
    assert [(b.id, b.start, b.end) for b in layout.boxes] == [
        ("a", 0, 1),
        ("a", 3, 4),
        ("b", 0, 2),
        ("c", 1, 4),
        ("h", 0, 4),
    ]
    obj = loop()
    obj["memory"] = {"size": 30, "ranges": [{"start": 0, "end": 30}]}
    small = capture_from_json(obj)
    band = attempt_map(small, run_strategy(small, "lifetime/first-fit")).failure
    assert band is not None and band.id == "a"
    assert band.spans == ((0, 1), (3, 4))


def test_a_map_of_a_linear_capture_keeps_one_band() -> None:
    from tilefit.plot.layout import attempt_map

    obj = loop()
    del obj["period"]
    obj["requests"][0] = {"id": "a", "size": 30, "start": 2, "end": 3}
    capture = capture_from_json(obj)
    band = attempt_map(capture, run_strategy(capture, "lifetime/first-fit")).failure
    assert band is not None and band.spans == ((2, 3),) and band.pieces == ()


@pytest.mark.parametrize("command", ["bound", "diagnose"])
def test_the_json_of_a_cyclic_capture_gives_the_meeting_bound_and_keeps_its_schema(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import jsonschema

    from tilefit.cli import main
    from tilefit.output.schema import output_schema

    obj = loop()
    obj["memory"] = {"size": 30, "ranges": [{"start": 0, "end": 30}]}
    path = tmp_path / "loop.json"
    path.write_text(json.dumps(obj))
    main([command, str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    jsonschema.validate(out, output_schema(command))
    assert out["meeting"] == {"weight": 35, "ids": ["a", "b", "c", "h"], "deficit": 5}
    if command == "diagnose":
        assert out["verdict"] == "capacity" and out["deficit"] == 0
    del obj["period"]
    obj["requests"] = obj["requests"][1:]
    path.write_text(json.dumps(obj))
    main([command, str(path), "--json"])
    assert "meeting" not in json.loads(capsys.readouterr().out)
