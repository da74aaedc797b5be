"""The experiment matrix: 16 rows, and 16 more with sequences split."""

from __future__ import annotations

from engine_cases import FRAGMENTED, SPLIT_HELPS

from tilefit.engine.attempt import run_strategy
from tilefit.engine.strategy import STRATEGIES
from tilefit.output.jsonout import experiment_json
from tilefit.verdicts.experiment import experiment


def test_one_row_per_strategy_in_matrix_order() -> None:
    rows = experiment(FRAGMENTED)
    assert [r.strategy for r in rows] == [s.name for s in STRATEGIES]
    for row, strategy in zip(rows, STRATEGIES, strict=True):
        attempt = run_strategy(FRAGMENTED, strategy)
        assert row.fits == attempt.fits
        assert row.failed_id == (attempt.failure.unit.id if attempt.failure else None)
        assert row.peak_address == attempt.peak_address
        assert row.seconds >= 0 and not row.split_sequences
    by_name = {r.strategy: r for r in rows}
    assert by_name["lifetime/first-fit"].failed_id == "x"
    assert by_name["alignment/first-fit"].fits


def test_split_sequences_adds_sixteen_rows_where_the_sequence_is_split() -> None:
    rows = experiment(SPLIT_HELPS, split_sequences=True)
    assert len(rows) == 32
    assert [r.split_sequences for r in rows] == [False] * 16 + [True] * 16
    assert [r.strategy for r in rows[16:]] == [s.name for s in STRATEGIES]
    normal = {r.strategy: r for r in rows[:16]}
    split = {r.strategy: r for r in rows[16:]}
    assert normal["lifetime/first-fit"].failed_id == "S"
    assert split["lifetime/first-fit"].fits  # m1 and m2 take the two 8-byte holes


def test_a_capture_without_sequences_gives_the_same_rows_split() -> None:
    rows = experiment(FRAGMENTED, split_sequences=True)
    strip = [(r.strategy, r.fits, r.failed_id, r.peak_address) for r in rows]
    assert strip[:16] == strip[16:]


def test_json_rows_carry_the_spec_keys() -> None:
    out = experiment_json(experiment(FRAGMENTED, strategies=["lifetime/first-fit"]))
    (row,) = out["rows"]
    assert list(row)[:5] == ["strategy", "fits", "failed_id", "peak_address", "seconds"]
    assert (row["strategy"], row["fits"], row["failed_id"]) == ("lifetime/first-fit", False, "x")
