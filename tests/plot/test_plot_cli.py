"""`tilefit plot`: which attempt is drawn, file formats, and bad input in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_helpers import fragmented

from tilefit.cli import main
from tilefit.formats.save import write_capture, write_placement
from tilefit.model.placement import Placement


@pytest.fixture
def capture_file(tmp_path: Path) -> Path:
    path = tmp_path / "frag.json"
    write_capture(fragmented(), path)
    return path


def test_default_is_the_production_replays_last_attempt(
    capture_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "failure.svg"
    assert main(["plot", str(capture_file), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert said == (
        f"wrote {out}: frag: alignment/first-fit, fails on big after 4 units "
        "(verdict fragmentation)\n"
    )
    text = out.read_text(encoding="utf-8")
    assert "layer1/out_proj" in text and "needs 40 B" in text


def test_a_strategy_that_fits_has_no_failed_unit(
    capture_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fix.svg"
    args = ["plot", str(capture_file), "--strategy", "long-lived/first-fit", "-o", str(out)]
    assert main(args) == 0
    assert "long-lived/first-fit, fits" in capsys.readouterr().out
    assert "needs 40 B" not in out.read_text(encoding="utf-8")


def test_a_placement_file_with_the_profile(
    capture_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    placement = tmp_path / "p.json"
    write_placement(Placement("frag", {"w.q": 16, "w.k": 40}), placement)
    out = tmp_path / "p.png"
    assert (
        main(
            ["plot", str(capture_file), "--placement", str(placement), "--profile", "-o", str(out)]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "5 requests have no offset" in captured.err
    assert out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--strategy", "nope/first-fit", "-o", "x.png"], "--strategy"),
        (["--strategy", "lifetime", "-o", "x.png"], "ORDER/FIT"),
        (["-o", "x.jpg"], ".png or .svg"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capture_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    extra = [str(tmp_path / e) if e.startswith("x.") else e for e in extra]
    assert main(["plot", str(capture_file), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tilefit: ") and err.count("\n") == 1 and message in err


def test_placement_and_strategy_exclude_each_other(capture_file: Path) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["plot", str(capture_file), "--placement", "p", "--strategy", "s", "-o", "x.png"])
    assert stop.value.code == 2
