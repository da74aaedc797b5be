"""The HTML page: self-contained, escaped, deterministic, and small enough for 20,000 requests."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from report_helpers import big_content, fragmented, over_capacity

from tilefit.report.content import gather
from tilefit.report.html import render, write_report


def _blob(page: str) -> dict:  # type: ignore[type-arg]
    found = re.search(r'<script type="application/json" id="tilefit-data">(.*?)</script>', page)
    assert found is not None
    data: dict = json.loads(found.group(1))  # type: ignore[type-arg]
    return data


def test_the_page_fetches_nothing() -> None:
    page = render(gather(fragmented(), time_limit=2))
    assert "default-src 'none'" in page
    # The one link that is not an anchor carries its file in itself.
    saved = re.findall(r'href="(data:[^"]*)"', page)
    assert len(saved) == 1 and saved[0].startswith("data:application/json;base64,")
    page = page.replace(saved[0], "")
    for needle in ("http://", "https://", "src=", "<link", "@import", "<iframe", "<img"):
        assert needle not in page
    assert set(re.findall(r"url\(([^)]*)\)", page)) == {"#hatch", "#over"}
    assert set(re.findall(r'href="([^"]*)"', page)) <= {
        "",
        "#maps",
        "#profile",
        "#windows",
        "#bounds",
        "#production",
        "#matrix",
    }


def test_capture_text_is_escaped_everywhere() -> None:
    capture = over_capacity()  # request a is labelled "weights <a> & co"
    page = render(gather(capture, time_limit=2))
    assert "weights <a>" not in page
    assert "weights &lt;a&gt; &amp; co" in page  # the peak table
    assert _blob(page)["requests"]["label"][0] == "weights <a> & co"  # the tooltip's data


def test_the_page_holds_the_verdict_the_sections_and_the_data() -> None:
    capture = fragmented()
    content = gather(capture, time_limit=2)
    page = render(content)
    assert '<p class="verdict v-fragmentation">' in page
    assert "tilefit report: frag (tile 3)" in page
    for section in ("evidence", "maps", "profile", "bounds", "production", "matrix"):
        assert f'id="{section}"' in page
    assert "reproduces the observed failure on <code>big</code>" in page
    data = _blob(page)
    assert data["requests"]["id"] == [r.id for r in capture.requests]
    assert data["classes"] == ["scratch", "activation", "output", "resident"]
    assert data["sequences"] == [{"id": "w", "members": [3, 4]}]
    assert data["conflicts"] == [["s0", "r6"], ["r0", "r6"]]
    failure = data["maps"]["m0"]
    assert failure["failed"]["id"] == "big"
    production = content.diagnosis.production[-1]
    assert failure["offsets"] == [production.offsets.get(r.id, -1) for r in capture.requests]
    # One box per placed request and one bar per member of the failed unit, all with data-k.
    m0 = page[page.index('data-map="m0"') : page.index("</svg>", page.index('data-map="m0"'))]
    assert m0.count("data-k=") == len(production.offsets) + 1
    holes = content.maps[0].layout.failure.holes  # type: ignore[union-attr]
    assert m0.count('class="hole"') == len(holes) + min(len(holes), 5)


def test_same_input_same_bytes(tmp_path: Path) -> None:
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    write_report(fragmented(), first, time_limit=2)
    write_report(fragmented(), second, time_limit=2)
    assert first.read_bytes() == second.read_bytes()
    assert str(tmp_path) not in first.read_text(encoding="utf-8")


def test_twenty_thousand_requests_stay_well_under_ten_megabytes() -> None:
    content = big_content(20_000)
    started = time.monotonic()
    page = render(content)
    seconds = time.monotonic() - started
    size = len(page.encode("utf-8"))
    assert size < 10_000_000
    assert size / 20_000 < 400  # bytes per request, both maps, data and tooltips included
    assert seconds < 30  # about 1 s here; generous for a loaded machine
    # The failure: 19,999 boxes and the failed unit's bar; the other map: 19,999 boxes.
    assert page.count("data-k=") == 2 * 20_000 - 1
    data = _blob(page)
    assert len(data["profile"]["start"]) <= 1000  # gathered into about one column per pixel
