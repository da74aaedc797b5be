"""Diagnose gives one verdict with its evidence, on small captures made here."""

from __future__ import annotations

from tilefit.model.capture import Capture, Conflict, Memory, Range, Request
from tilefit.output.jsonout import diagnosis_json
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import diagnose


def capture(
    size: int,
    requests: list[tuple[str, int, int, int, int]],
    horizon: int = 6,
    **kw: object,
) -> Capture:
    reqs = tuple(Request(i, s, a, b, al) for i, s, a, b, al in requests)
    memory = kw.pop("memory", Memory(size, (Range(0, size),)))
    return Capture("t", horizon, memory, reqs, **kw)  # type: ignore[arg-type]


# Production (lifetime, then alignment) fails; long-lived-first fits.
FRAGMENTED = [
    ("r0", 4, 4, 6, 2),
    ("r1", 4, 5, 6, 1),
    ("r2", 5, 3, 4, 4),
    ("r3", 2, 1, 3, 2),
    ("r4", 1, 2, 6, 2),
]


def test_fits() -> None:
    d = diagnose(capture(16, FRAGMENTED))
    assert d.verdict == "fits" and d.strategy == "lifetime/first-fit"
    assert len(d.production) == 1  # production stops at the first attempt that fits
    assert d.placement is not None and check(capture(16, FRAGMENTED), d.placement).valid


def test_fragmentation_names_strategy_and_gives_checked_placement() -> None:
    c = capture(10, FRAGMENTED, observed_failed="r2")
    d = diagnose(c)
    assert d.verdict == "fragmentation"
    assert d.strategy == "long-lived/first-fit"
    assert d.placement is not None and check(c, d.placement).valid
    assert [a.fits for a in d.production] == [False, False]
    assert d.production_failed_id == d.production[-1].failure.unit.id  # type: ignore[union-attr]
    assert d.bound.deficit == 0 and d.bound.must_leave == 0
    out = diagnosis_json(d)
    for key in (
        "verdict",
        "strategy",
        "deficit",
        "support_deficit",
        "lower_bound",
        "available",
        "production_failed_id",
    ):
        assert key in out


def test_capacity_names_deficit_peak_and_bytes_to_leave() -> None:
    c = capture(8, [("a", 5, 0, 3, 4), ("b", 6, 1, 4, 4), ("late", 2, 4, 6, 1)])
    d = diagnose(c)
    assert d.verdict == "capacity"
    assert (d.bound.lower_bound, d.bound.available, d.bound.deficit) == (11, 8, 3)
    assert d.bound.peak_step == 1
    assert [x.id for x in d.bound.contributors] == ["b", "a"]
    # 3 B over, plus the padding a (5 B, 4-aligned) and b (6 B, 4-aligned) need: 3 + 2 = 5.
    assert d.bound.must_leave == 3 + 3 + 2
    assert d.placement is None


def test_support_aware_capacity() -> None:
    # 12 bytes available, but 4 are a scratch-only aperture: 10 resident bytes cannot fit.
    memory = Memory(12, (Range(0, 8), Range(8, 12, "host", ("scratch",))))
    reqs = (Request("w", 6, 0, 6, cls="resident"), Request("v", 4, 0, 6, cls="resident"))
    c = Capture("t", 6, memory, reqs)
    d = diagnose(c)
    assert d.verdict == "capacity"
    assert d.bound.deficit == 0 and d.bound.support_deficit == 2


def conflicted() -> Capture:
    # Two 2-byte elements; "a" (3 B) must span both, so "b" has no element left.
    memory = Memory(4, (Range(0, 4),), elements=(0, 2))
    reqs = (Request("a", 3, 0, 2), Request("b", 1, 0, 2))
    return Capture("t", 2, memory, reqs, conflicts=(Conflict("a", "b"),))


def test_infeasible_by_search_with_subset() -> None:
    d = diagnose(conflicted(), time_limit=20)
    assert d.bound.deficit == 0 and d.bound.support_deficit == 0
    assert d.verdict == "infeasible"
    assert d.subset is not None and set(d.subset) == {"a", "b"}


def test_undetermined_without_search() -> None:
    d = diagnose(conflicted(), search=False)
    assert d.verdict == "undetermined" and d.search_status is None


def test_production_failure_contrasted_with_peak() -> None:
    c = capture(8, [("a", 5, 0, 3, 4), ("b", 6, 1, 4, 4), ("late", 2, 4, 6, 1)])
    d = diagnose(c)
    # lifetime/first-fit fails on b, the alignment fallback (b first, larger) on a.
    assert [a.failure.unit.id for a in d.production if a.failure] == ["b", "a"]
    assert d.production_failed_id == "a"
    assert d.production_failed_at_peak


def test_undetermined_reports_the_closest_placement() -> None:
    from tilefit.search.closest import extended
    from tilefit.verdicts.check import check

    d = diagnose(conflicted(), search=False)
    assert d.closest is not None and d.closest.overflow > 0
    assert d.closest.storage == d.bound.available + d.closest.overflow
    assert check(extended(conflicted(), d.closest.overflow), d.closest.placement).valid


def test_the_text_names_the_production_error_only_when_one_was_observed() -> None:
    from dataclasses import replace

    from tilefit.cli.diagnose import diagnosis_lines

    c = capture(8, [("a", 5, 0, 3, 4), ("b", 6, 1, 4, 4), ("late", 2, 4, 6, 1)])
    unobserved = diagnosis_lines(diagnose(c))[-1]
    observed = diagnosis_lines(diagnose(replace(c, observed_failed="a")))[-1]
    assert unobserved.startswith("the replay's failure names a: ")
    assert observed.startswith("the production error names a: ")


def test_the_text_counts_one_hole_and_one_unit_in_the_singular() -> None:
    import re

    from tilefit.cli.diagnose import diagnosis_lines

    # a fills [0, 40); b (40 B) meets the one hole [40, 64) after one unit placed
    c = capture(64, [("a", 40, 0, 2, 1), ("b", 40, 0, 2, 1)], horizon=2)
    text = "\n".join(diagnosis_lines(diagnose(c, search=False)))
    assert "after placing 1 unit; largest hole 24 B at [40, 64) of 1 hole" in text
    assert re.findall(r"\b1 [a-z]+s\b", text) == []
    alone = capture(64, [("a", 40, 0, 2, 1)], horizon=2)
    assert "at the peak (step 0): 1 request, 40 B" in diagnosis_lines(diagnose(alone))
