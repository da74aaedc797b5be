"""`tilefit report`: writes one page, says the verdict, exits 0 whatever it is; 2 on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_helpers import fragmented, over_capacity

from tilefit.cli import main
from tilefit.formats.save import write_capture
from tilefit.model.capture import Capture


@pytest.mark.parametrize(
    ("capture", "verdict"), [(fragmented(), "fragmentation"), (over_capacity(), "capacity")]
)
def test_writes_the_page_and_says_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], capture: Capture, verdict: str
) -> None:
    source, out = tmp_path / "c.json", tmp_path / "r.html"
    write_capture(capture, source)
    assert main(["report", str(source), "-o", str(out), "--time-limit", "2"]) == 0
    assert capsys.readouterr().out == f"wrote {out}: verdict {verdict}\n"
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and page.endswith("</html>\n")
    assert f'class="verdict v-{verdict}"' in page


def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "c.json"
    write_capture(fragmented(), source)
    out = tmp_path / "r.html"
    assert main(["report", str(source), "-o", str(out), "--time-limit", "-1"]) == 2
    assert "--time-limit" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "tilefit-capture"', encoding="utf-8")
    assert main(["report", str(broken), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tilefit: ") and err.count("\n") == 1
    assert not out.exists()
