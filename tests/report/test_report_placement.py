"""`tilefit report --placement FILE` (issue 38, item 6): a toolchain's own placement beside
tilefit's least, on one address axis, with the bytes saved; the placement refereed first,
bad input one line and exit 2. Before, the report took no placement: the toolchain's own
plan was never drawn."""

from __future__ import annotations

import html as markup
import json
import re
from pathlib import Path

import pytest
from browser_helpers import Browser, chromium_path

from tilefit.cli import main
from tilefit.formats.save import write_capture, write_placement
from tilefit.model.capture import Capture, Memory, Origin, Range, Request
from tilefit.model.placement import Placement

# The toolchain's plan: a, b, c of 100 B, 300 B live at most; its own placement puts c
# above a's bytes (a dies at 2, c starts at 1): a top of 400 B, 100 B above the least.
OWN = {"a": 0, "b": 100, "c": 300}
LEAST = {"a": 0, "b": 100, "c": 200}


def imported(capacity: int = 400) -> Capture:
    requests = (
        Request("a", 100, 0, 2, alignment=4, name="tensor/a"),
        Request("b", 100, 0, 3, alignment=4),
        Request("c", 100, 1, 3, alignment=4),
    )
    return Capture(
        name="toy",
        horizon=3,
        memory=Memory(capacity, (Range(0, capacity),)),
        requests=requests,
        origin=Origin("TFLM", 400, "toy.tflite", "head"),
    )


def report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], offsets: dict[str, int], capacity: int
) -> tuple[int, str, str]:
    capture, placement, page = tmp_path / "toy.json", tmp_path / "own.json", tmp_path / "r.html"
    write_capture(imported(capacity), capture)
    write_placement(Placement("toy", offsets), placement)
    argv = ["report", str(capture), "--placement", str(placement), "-o", str(page)]
    code = main([*argv, "--time-limit", "5"])
    err = capsys.readouterr().err
    return code, page.read_text(encoding="utf-8") if code == 0 else "", err


def text_of(part: str) -> str:
    return markup.unescape(re.sub("<[^>]+>", "", part)).replace("\u202f", " ")


def figure(html: str) -> str:
    start = html.index('<figure id="compare">')
    return html[start : html.index("</figure>", start)]


@pytest.mark.parametrize("capacity", [400, 300])
def test_the_placement_given_beside_tilefit_s_least_with_the_bytes_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], capacity: int
) -> None:
    """In the import's own head and asked about less (--capacity 300): the toolchain's
    plan is drawn in its own head either way, beside tilefit's least."""
    code, html, _ = report(tmp_path, capsys, OWN, capacity)
    assert code == 0
    shown = text_of(figure(html))
    assert "own.json beside tilefit's least" in shown
    assert "tilefit's least ends at 300 B (proven the least): 100 B saved, 25.0% of the 400 B" in (
        shown
    )
    svg = figure(html)
    assert svg.count('<g data-map="c0">') == 1 and svg.count('<g data-map="c1">') == 1
    assert "100 B saved" in svg and "(25.0%)</tspan>" in svg
    assert ('class="cmp-avail"' in svg) is (capacity < 400)  # the memory asked about, below
    data = json.loads(
        html[html.index('id="tilefit-data">') + 18 : html.index("</script>")].replace(
            "\\u003c", "<"
        )
    )
    assert data["maps"]["c0"]["offsets"] == [0, 100, 300]  # the tooltips' offsets
    assert data["maps"]["c1"]["offsets"][2] == 200
    assert ">tensor/a<" in svg  # a request's name on its box


def test_a_placement_already_least_saves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, html, _ = report(tmp_path, capsys, LEAST, 400)
    assert code == 0
    shown = text_of(figure(html))
    assert "tilefit's least is not lower: own.json ends at 300 B." in shown
    assert "saved" not in figure(html)


@pytest.mark.parametrize(
    ("offsets", "rule"),
    [
        ({"a": 0, "b": 100}, "c (100 B, class default, steps [1, 3)) has no offset"),
        ({"a": 0, "b": 52, "c": 300}, "1 violation, the first: "),  # b overlaps a
        ({**OWN, "ghost": 0}, "ghost"),
    ],
)
def test_a_placement_the_referee_rejects_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], offsets: dict[str, int], rule: str
) -> None:
    code, _, err = report(tmp_path, capsys, offsets, 400)
    assert code == 2
    line = err.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"tilefit: {tmp_path / 'own.json'}: the referee rejects this placement")
    assert rule in line and not (tmp_path / "r.html").exists()


def test_a_placement_file_that_is_not_one_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture, bad = tmp_path / "toy.json", tmp_path / "bad.json"
    write_capture(imported(), capture)
    bad.write_text('{"format": "tilefit-placement", "version": 1, "offsets": {"a": "x"}}')
    code = main(["report", str(capture), "--placement", str(bad), "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == f"tilefit: {bad}: offsets.a: must be an integer, got a string"


@pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed")
def test_a_box_of_either_panel_tells_its_offset_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = report(tmp_path, capsys, OWN, 400)
    assert code == 0
    with Browser(tmp_path / "profile", width=1280, height=1000) as page:
        page.open((tmp_path / "r.html").as_uri())
        for key, offset in (("c0", "offset 300 .. 400"), ("c1", "offset 200 .. 300")):
            box = page.evaluate(
                f"""(() => {{
                  const el = document.querySelector('g[data-map="{key}"] rect[data-k="2"]');
                  el.scrollIntoView({{block: "center"}});
                  const r = el.getBoundingClientRect();
                  return [r.x + r.width / 2, r.y + r.height / 2];
                }})()"""
            )
            page.hover(box[0], box[1])
            text = page.evaluate("document.getElementById('tip').innerText")
            assert offset in text, (key, text)


@pytest.mark.parametrize(("offsets", "said"), [(OWN, "100 B saved"), (LEAST, "not lower")])
def test_plot_draws_the_placement_given_beside_tilefit_s_least(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], offsets: dict[str, int], said: str
) -> None:
    capture, placement, png = tmp_path / "toy.json", tmp_path / "own.json", tmp_path / "b.png"
    write_capture(imported(), capture)
    write_placement(Placement("toy", offsets), placement)
    argv = ["plot", str(capture), "--placement", str(placement), "--beside", "-o", str(png)]
    assert main(argv) == 0
    assert capsys.readouterr().out == f"wrote {png}: own.json beside tilefit's least ({said})\n"
    assert png.read_bytes().startswith(b"\x89PNG")
    assert main(["plot", str(capture), "--beside", "-o", str(png)]) == 2
    err = capsys.readouterr().err
    assert err == "tilefit: --beside: draws a --placement FILE beside tilefit's least, alone\n"
