"""Replay runs the production attempts until one fits and says whether it reproduced."""

from __future__ import annotations

from dataclasses import replace

from engine_cases import FRAGMENTED, OVER_CAPACITY, SPLIT_HELPS
from engine_helpers import captures, check_valid
from hypothesis import given, settings

from tilefit.engine.attempt import run_strategy
from tilefit.model.capture import Capture
from tilefit.output.jsonout import replay_json
from tilefit.verdicts.replay import replay


def test_the_fallback_attempt_runs_only_after_the_first_fails() -> None:
    result = replay(FRAGMENTED)
    assert [a.strategy.name for a in result.attempts] == [
        "lifetime/first-fit",
        "alignment/first-fit",
    ]
    first = result.attempts[0]
    assert first.failure is not None and first.failure.unit.id == "x"
    assert first.failure.placed_before == 2
    assert first.failure.holes == ((8, 24),)
    assert result.fits and result.failure is None
    assert result.placement is not None
    assert dict(result.placement.offsets) == {"t": 16, "s": 0, "x": 0}
    assert result.reproduced is None  # nothing observed


def test_a_fitting_first_attempt_ends_the_replay() -> None:
    result = replay(FRAGMENTED, ["alignment/first-fit", "lifetime/first-fit"])
    assert [a.strategy.name for a in result.attempts] == ["alignment/first-fit"]


def test_observed_failure_is_reproduced_by_the_last_attempt() -> None:
    result = replay(OVER_CAPACITY)
    assert not result.fits and result.placement is None
    assert [a.failure.unit.id for a in result.attempts if a.failure] == ["b", "b"]
    assert result.reproduced is True
    assert replay(replace(OVER_CAPACITY, observed_failed="a")).reproduced is False


def test_observed_member_of_the_failing_sequence_counts_as_reproduced() -> None:
    result = replay(SPLIT_HELPS)
    assert result.failure is not None and result.failure.unit.id == "S"
    assert result.reproduced is True  # the compiler named m2, a member of S


def test_an_observed_failure_that_now_fits_is_not_reproduced() -> None:
    assert replay(replace(FRAGMENTED, observed_failed="x")).reproduced is False


def test_json_keys_follow_the_spec() -> None:
    out = replay_json(replay(OVER_CAPACITY))
    assert list(out)[:2] == ["capture", "attempts"] and out["reproduced"] is True
    attempt = out["attempts"][0]
    assert {"strategy", "status", "failed", "holes"} <= set(attempt)
    assert attempt["status"] == "failed"
    failed = attempt["failed"]
    assert {k: failed[k] for k in ("id", "size", "alignment", "class", "start", "end")} == {
        "id": "b",
        "size": 30,
        "alignment": 1,
        "class": "default",
        "start": 0,
        "end": 10,
    }
    assert failed["placed_before"] == 1
    assert attempt["holes"] == [{"start": 40, "end": 64}]
    fits = replay_json(replay(FRAGMENTED))["attempts"][1]
    assert fits["status"] == "fits" and fits["failed"] is None and fits["holes"] == []


@settings(max_examples=80, deadline=None)
@given(captures())
def test_replay_is_the_production_strategies_in_turn(capture: Capture) -> None:
    result = replay(capture)
    for attempt, name in zip(result.attempts, capture.production, strict=False):
        assert attempt == run_strategy(capture, name)
    assert all(not a.fits for a in result.attempts[:-1])
    if result.placement is not None:
        check_valid(capture, result.placement.offsets)
    assert len(result.attempts) == len(capture.production) or result.fits


def test_the_text_counts_one_unit_and_one_request_in_the_singular() -> None:
    from tilefit.cli.replay import replay_lines
    from tilefit.model.capture import Memory, Range, Request

    one = Capture("one", 2, Memory(32, (Range(0, 32),)), (Request("a", 40, 0, 2),))
    two = replace(one, requests=(Request("a", 20, 0, 2), Request("b", 20, 0, 2)))
    lines = replay_lines(one, replay(one), None, ["lifetime/first-fit"])
    assert lines[0].startswith("one: 1 request, 32 B available")
    lines = replay_lines(two, replay(two), None, ["lifetime/first-fit"])
    assert "FAILED on b after placing 1 unit" in "\n".join(lines)
