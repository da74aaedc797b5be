"""Rebuild docs/img/report-0-0.png and report-1-0.png from the example captures.

Needs Debian's chromium. From the repository root:

    .venv/bin/python docs/img/make_screenshots.py

Each picture is the top of the report, 1200 px wide, from the verdict down to
the live-storage profile; it is reduced to 128 colours to stay small.
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from browser_helpers import Browser  # noqa: E402

from tilefit.formats.load import read_capture  # noqa: E402
from tilefit.report.html import write_report  # noqa: E402

WIDTH = 1200


def screenshot(capture: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "report.html"
        write_report(read_capture(capture), page)
        with Browser(Path(folder) / "profile", width=WIDTH, height=900) as browser:
            browser.open(page.as_uri())
            bottom = browser.evaluate(
                "document.getElementById('profile').getBoundingClientRect().bottom"
                " + window.scrollY + 8"
            )
            png = browser.screenshot({"x": 0, "y": 0, "width": WIDTH, "height": bottom})
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    picture.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
    print(f"{out}: {picture.width} x {picture.height}, {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    for name in ("0-0", "1-0"):
        screenshot(ROOT / "examples" / f"{name}.json", ROOT / "docs" / "img" / f"report-{name}.png")
