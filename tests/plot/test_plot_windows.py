"""Overloaded windows and the verdict in the pictures: every window hatched and labelled
with its excess, the verdict and the deficit in the title, a sequence named by its id."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from checkout import ROOT
from report_helpers import fragmented, over_capacity

from tilefit.bounds.deficit import bound
from tilefit.cli import main
from tilefit.engine.attempt import run_strategy
from tilefit.formats.load import read_capture
from tilefit.plot.caption import VerdictCaption, verdict_caption
from tilefit.plot.figure import save_figure, tile_figure
from tilefit.plot.layout import attempt_map
from tilefit.plot.series import profile_series
from tilefit.plot.windows import MAX_WINDOW_LABELS, WindowMark, marks_to_label, window_marks
from tilefit.verdicts.diagnose import diagnose
from tilefit.verdicts.verdict import Verdict

EXAMPLES = ROOT / "examples"
ONE_ZERO = [("12", "+6,608 B"), ("26", "+8,904 B"), ("40", "+13,832 B"), ("54", "+16,328 B")]


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_every_window_of_1_0_becomes_a_mark() -> None:
    marks = window_marks(bound(read_capture(EXAMPLES / "1-0.json")).windows)
    assert [(m.number, m.steps, m.label) for m in marks] == [
        (k, steps, label) for k, (steps, label) in enumerate(ONE_ZERO, 1)
    ]
    assert [m.must_leave for m in marks] == [6632, 8928, 13856, 16360]
    assert all(m.worst_step == m.start for m in marks)


def _mark(start: int, excess: int, end: int | None = None) -> WindowMark:
    return WindowMark(0, start, end or start + 1, start, excess, excess)


def test_labels_go_to_the_windows_most_over_and_never_overlap() -> None:
    # 100 steps over 1000 units: a 10-unit font makes "+1,000 B" about 54 units wide.
    marks = [_mark(10, 50), _mark(12, 1000), _mark(14, 60), _mark(60, 7), _mark(90, 9)]
    chosen = marks_to_label(marks, 1000, 100, 10)
    assert [m.start for m in chosen] == [12, 60, 90]  # 10 and 14 crowd the largest out
    # Written upwards, a label is only a line high: neighbours two steps apart fit.
    assert [m.start for m in marks_to_label(marks, 1000, 100, 10, rotated=True)] == [
        10, 12, 14, 60, 90,
    ]  # fmt: skip
    many = [_mark(k * 10, k) for k in range(200)]
    chosen = marks_to_label(many, 100_000, 2000, 10)
    assert len(chosen) == MAX_WINDOW_LABELS
    assert {m.excess for m in chosen} == set(range(200 - MAX_WINDOW_LABELS, 200))


def test_the_map_and_the_profile_hatch_and_label_every_window(tmp_path: Path) -> None:
    capture = read_capture(EXAMPLES / "1-0.json")
    report = bound(capture)
    layout = attempt_map(
        capture, run_strategy(capture, "alignment/first-fit"), None, report.windows
    )
    assert len(layout.windows) == 4
    path = tmp_path / "map.svg"
    save_figure(tile_figure(layout, profile_series(capture, report)), path)
    texts = _texts(path.read_text(encoding="utf-8"))
    for _, label in ONE_ZERO:
        assert texts.count(label) == 2  # above the map, and up the profile
    assert "overloaded window (+bytes over)" in texts


def test_a_tile_without_deficit_has_no_window_and_no_window_legend(tmp_path: Path) -> None:
    capture = fragmented()
    layout = attempt_map(capture, run_strategy(capture, "alignment/first-fit"), None, ())
    series = profile_series(capture)
    assert layout.windows == () and series.windows == ()
    path = tmp_path / "map.svg"
    save_figure(tile_figure(layout, series), path)
    assert not any("overloaded" in t for t in _texts(path.read_text(encoding="utf-8")))


def test_the_verdict_caption_says_the_verdict_and_the_deficit() -> None:
    d = diagnose(over_capacity(), time_limit=1)
    assert verdict_caption(d) == VerdictCaption(
        "capacity", "CAPACITY: 16 B over at step 1 by the live bound, 1 overloaded window"
    )
    d = diagnose(fragmented(), time_limit=1)
    assert verdict_caption(d).text == f"FRAGMENTATION: no deficit, {d.strategy} fits"
    assert verdict_caption(replace(d, verdict=Verdict.FITS)).text.startswith("FITS: ")
    for verdict in ("infeasible", "undetermined"):
        caption = verdict_caption(replace(d, verdict=Verdict(verdict)))
        assert caption.text.startswith(f"{verdict.upper()}: no deficit")


def test_the_title_line_carries_the_verdict(tmp_path: Path) -> None:
    capture = over_capacity()
    layout = attempt_map(capture, run_strategy(capture, "lifetime/first-fit"))
    caption = verdict_caption(diagnose(capture, time_limit=1))
    path = tmp_path / "map.svg"
    save_figure(tile_figure(layout, None, caption), path)
    text = path.read_text(encoding="utf-8")
    assert caption.text in _texts(text) and layout.title in _texts(text)
    assert "#d62728" in text[text.index(caption.text) - 400 : text.index(caption.text)]
    # A title too long for one line at 11 pt shrinks rather than run into the verdict.
    long = replace(layout, title="x" * 150)
    fig = tile_figure(long, None, caption)
    sizes = {t.get_fontsize() for t in fig.texts}  # the verdict; the title is the same size
    assert len(sizes) == 1 and 7 <= sizes.pop() < 11


def test_plot_of_1_0_names_the_verdict_the_windows_and_the_sequence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "1-0.svg"
    args = ["plot", str(EXAMPLES / "1-0.json"), "--profile", "--time-limit", "1", "-o", str(out)]
    assert main(args) == 0
    assert capsys.readouterr().out.endswith("after 42 units (verdict capacity)\n")
    texts = _texts(out.read_text(encoding="utf-8"))
    assert "CAPACITY: 16,328 B over at step 54 by the live bound, 4 overloaded windows" in texts
    for _, label in ONE_ZERO:
        assert label in texts
    # The failed unit is the sequence w3.attn_qkv, not its first member's tensor.
    assert "w3.attn_qkv" in texts and "sequence of 3" in texts
    assert not any(t.startswith("layer3/") for t in texts)


def test_plot_time_limit_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.svg"
    args = ["plot", str(EXAMPLES / "0-0.json"), "--time-limit", "-1", "-o", str(out)]
    assert main(args) == 2
    assert "--time-limit" in capsys.readouterr().err
    assert not out.exists()
