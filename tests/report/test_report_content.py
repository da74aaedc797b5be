"""What a report shows: the diagnosis, every strategy, and which maps."""

from __future__ import annotations

import pytest
from report_helpers import fragmented, over_capacity

from tilefit.engine.strategy import STRATEGIES
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.placement import Placement
from tilefit.report.content import gather
from tilefit.verdicts.check import check


def test_fragmentation_shows_the_failure_and_the_placement_the_verdict_cites() -> None:
    capture = fragmented()
    content = gather(capture, time_limit=2)
    d = content.diagnosis
    assert d.verdict == "fragmentation"
    assert [a.strategy.name for a in content.matrix] == [s.name for s in STRATEGIES]
    # The production attempts are not run twice: the matrix holds the very same objects.
    for attempt in d.production:
        assert any(a is attempt for a in content.matrix)
    failure, found = content.maps
    assert (failure.key, failure.heading) == ("m0", "Production failure")
    assert failure.layout.failure is not None and failure.layout.failure.id == "big"
    assert "places 4 units, then finds no room for big (40 B" in failure.caption
    assert found.key == "m1" and found.heading == f"Placement found: {d.strategy}"
    offsets = {b.id: b.offset for b in found.layout.boxes}
    assert check(capture, Placement(capture.name, offsets)).valid
    assert found.layout.failure is None
    assert content.series.lower_bound == d.bound.lower_bound


def test_a_capacity_deficit_shows_the_furthest_attempt_only_when_it_differs() -> None:
    content = gather(over_capacity(), time_limit=2)
    assert content.diagnosis.verdict == "capacity"
    assert not any(a.fits for a in content.matrix)
    headings = [m.heading for m in content.maps]
    # Nothing was observed in production: the failure is the replay's, not production's.
    assert headings[0] == "The replay's failure"
    assert content.maps[0].caption.startswith("The replay's last attempt, ")
    for view in content.maps[1:]:
        assert view.heading.startswith("No placement found; furthest attempt: ")
        assert view.layout.failure is not None
    # Every map and the profile mark the one overloaded window: step 1, 16 B over.
    marks = [(w.start, w.end, w.excess) for w in content.series.windows]
    assert marks == [(1, 2, 16)]
    for view in content.maps:
        assert [(w.start, w.end, w.excess) for w in view.layout.windows] == marks


def test_when_production_fits_a_lower_placement_is_shown_only_if_there_is_one() -> None:
    # Lifetime order puts d (40 B, step 0) at the bottom and b above it, so a and c
    # start above b: 80 B. Size order puts d and c both at 0 (they never meet): 70 B.
    requests = (
        Request("a", 30, 2, 4),
        Request("b", 10, 0, 4),
        Request("c", 30, 3, 4),
        Request("d", 40, 0, 1),
    )
    capture = Capture("fits", 4, Memory(100, (Range(0, 100),)), requests)
    content = gather(capture, time_limit=2)
    assert content.diagnosis.verdict == "fits"
    assert content.maps[0].heading == "The replay's placement"  # nothing observed
    assert content.maps[0].layout.peak_address == 80
    assert content.maps[1].heading.startswith("Lowest placement found: ")
    assert content.maps[1].layout.peak_address == 70

    lower = Capture("fits", 4, Memory(100, (Range(0, 100),)), requests[:2])
    assert len(gather(lower, time_limit=2).maps) == 1  # production is already the lowest


def test_the_matrix_runs_on_the_ladders_prepared_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """The report takes the prepared units from the problem the ladder climbed, not a copy
    of its own (issue 46, item 2)."""
    from tilefit.engine.attempt import Prepared

    built: list[str] = []
    of = Prepared.of.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Prepared], capture: Capture, *args: object) -> Prepared:
        built.append(capture.name)
        return of(cls, capture, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(Prepared, "of", classmethod(counted))
    capture = fragmented()
    content = gather(capture, time_limit=2)
    assert len(content.matrix) == len(STRATEGIES)
    assert built == [capture.name]
