"""The per-capture work: a row for every capture, an error row instead of an exception."""

from __future__ import annotations

import pytest

from tilefit.batch.bundle import bundle_line
from tilefit.batch.inputs import Job
from tilefit.batch.work import MODES, ModeResult, Settings, work
from tilefit.bounds.deficit import BoundReport, bound
from tilefit.engine.attempt import run_strategy
from tilefit.generate.synth import Recipe, make_tile
from tilefit.model.capture import Capture
from tilefit.search.routes import SOLVED, TIMEOUT
from tilefit.verdicts.diagnose import diagnose
from tilefit.verdicts.verdict import Verdict

FITS = make_tile(Recipe(requests=60, layers=6, pressure=0.6, seed=1), name="easy", tile=3)
OVER = make_tile(Recipe(requests=60, layers=6, pressure=1.1, seed=2), name="over", tile=4)
# Production fails on this one, long-lived/first-fit fits (the seed's mapping capture, in small).
RESCUED = make_tile(Recipe(requests=60, layers=6, pressure=0.95, seed=7), name="tight", tile=5)


def _job(capture: Capture) -> Job:
    return Job("m.jsonl:1", "m-line1", "m.jsonl", bundle_line(capture))


@pytest.mark.parametrize("capture", [FITS, OVER], ids=["fits", "over"])
def test_a_diagnose_row_carries_the_diagnosis(capture: Capture) -> None:
    row = work(_job(capture), Settings(search=False))
    found = diagnose(capture, search=False)
    assert (row.source, row.name, row.tile, row.mode) == (
        "m.jsonl:1",
        capture.name,
        capture.tile,
        "diagnose",
    )
    assert row.error is None
    assert (row.verdict, row.strategy, row.failed_id) == (
        found.verdict,
        found.strategy,
        found.production_failed_id,
    )
    assert (row.lower_bound, row.available, row.deficit, row.support_deficit) == (
        found.bound.lower_bound,
        found.bound.available,
        found.bound.deficit,
        found.bound.support_deficit,
    )
    assert row.seconds > 0


def test_replay_reports_production() -> None:
    fits = work(_job(FITS), Settings(mode="replay"))
    assert (fits.verdict, fits.strategy, fits.failed_id) == ("fits", "lifetime/first-fit", None)
    over = work(_job(OVER), Settings(mode="replay"))
    last = run_strategy(OVER, OVER.production[-1])
    assert last.failure is not None
    assert (over.verdict, over.strategy, over.failed_id) == ("failed", None, last.failure.unit.id)
    assert over.deficit == bound(OVER).deficit > 0


def test_place_keeps_production_and_rescues_with_the_fallback() -> None:
    assert work(_job(FITS), Settings(mode="place")).strategy == "lifetime/first-fit"
    rescued = work(_job(RESCUED), Settings(mode="place"))
    production = run_strategy(RESCUED, RESCUED.production[-1])
    assert production.failure is not None
    assert (rescued.verdict, rescued.strategy, rescued.failed_id) == (
        "fits",
        "long-lived/first-fit",
        production.failure.unit.id,
    )
    over = work(_job(OVER), Settings(mode="place"))
    assert (over.verdict, over.strategy) == ("failed", None) and over.failed_id is not None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "tilefit-capture",', "m.jsonl:1: line 1 column"),
        ('{"format": "tilefit-capture", "version": 1, "horizon": 1, "memory": {}, '
         '"requests": [], "extra": 1}', "extra"),
    ],
    ids=["malformed", "invalid"],
)  # fmt: skip
def test_a_bad_capture_is_an_error_row(text: str, message: str) -> None:
    row = work(Job("m.jsonl:1", "m-line1", "m.jsonl", text), Settings())
    assert row.name == "m-line1" and row.verdict is None
    assert row.error is not None and message in row.error


def test_a_minimalloc_csv_is_read_by_its_name() -> None:
    text = "id,lower,upper,size\na,0,2,10\nb,1,3,10\n"
    row = work(Job("/x/tiny.32.csv", "tiny.32", "tiny.32.csv", text), Settings(search=False))
    assert (row.error, row.verdict, row.available) == (None, "fits", 32)
    row = work(Job("/x/tiny.csv", "tiny", "tiny.csv", text), Settings())
    assert row.error is not None and "capacity" in row.error


def test_an_engine_error_is_an_error_row(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(capture: Capture, settings: Settings) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setitem(MODES, "diagnose", broken)
    row = work(_job(FITS), Settings())
    assert row.name == "easy"
    assert row.error == "internal error: ZeroDivisionError: boom"


def test_solve_mode_answers_as_tilefit_solve() -> None:
    from tilefit.verdicts.solving import solve

    row = work(_job(FITS), Settings(mode="solve", time_limit=5.0))
    answer = solve(FITS, 5.0, workers=1)
    assert (row.error, row.verdict, row.strategy) == (None, "solved", answer.strategy)
    assert row.strategy is not None  # what placed it: here one greedy pass, before any search
    assert row.lower_bound == bound(FITS).lower_bound


def test_solve_mode_reads_the_bounds_the_ladder_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """The row's bounds are the ladder's problem's, not built again (issue 46, item 2)."""
    from tilefit.bounds import deficit
    from tilefit.search import problem

    built: list[str] = []

    def counted(capture: Capture) -> BoundReport:
        built.append(capture.name)
        return bound(capture)

    monkeypatch.setattr(problem, "bound", counted)  # the ladder's
    monkeypatch.setattr(deficit, "bound", counted)  # anyone else's
    row = work(_job(FITS), Settings(mode="solve", time_limit=5.0))
    assert row.error is None and row.lower_bound == bound(FITS).lower_bound
    assert built == [FITS.name]


def test_a_mode_result_holds_each_answer_in_the_field_of_its_meaning() -> None:
    """The verdict, the search's status and the replay's fit each have their own typed field;
    the row's ``verdict`` column keeps the one word it always had."""
    assert ModeResult(verdict=Verdict.CAPACITY).word == "capacity"
    assert ModeResult(status=SOLVED).word == "solved"
    assert ModeResult(status=TIMEOUT).word == "timeout"
    assert (ModeResult(fits=True).word, ModeResult(fits=False).word) == ("fits", "failed")
    with pytest.raises(ValueError, match="no answer"):
        ModeResult().word  # noqa: B018
    rows = {mode: work(_job(OVER), Settings(mode=mode, search=False)) for mode in MODES}
    assert rows["diagnose"].verdict == Verdict.CAPACITY.value
    assert (rows["replay"].verdict, rows["place"].verdict) == ("failed", "failed")
