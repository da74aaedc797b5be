"""What a report and a plot write, readable without hovering (issue 38, items 6 and 7): a
request's short name on its box (TFLM's maps showed ids such as `0:45`), up the box when
it is too narrow across; the failed unit's names in the holes panel broken between words,
never cut inside one; the imported capture's header without nested parentheses (XLA's
source, "allocation 27 (cpu)", was wrapped in parentheses of its own)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from itertools import pairwise
from pathlib import Path

import pytest
from xla_dumps import write_dump

from tilefit.cli import main
from tilefit.engine.attempt import run_strategy
from tilefit.formats.load import read_capture
from tilefit.formats.save import write_capture
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.plot.layout import attempt_map, placement_map
from tilefit.plot.memmap import _narrow
from tilefit.report.svgmap import map_svg

LONG = "dynamic-slice_bitcast_fusion.1"


def named() -> Capture:
    """A wide box and a narrow tall one, both named."""
    return Capture(
        name="named",
        horizon=10,
        memory=Memory(1000, (Range(0, 1000),)),
        requests=(
            Request("0:39", 400, 0, 8, name="stream_10/concat"),
            Request("0:61", 500, 8, 9, name="stream_10/strided_slice1"),
        ),
    )


def failing(**name: str) -> Capture:
    """A request with a long id (and ``name``, if given) that finds no room after the one
    before it."""
    return Capture(
        name="failing",
        horizon=2,
        memory=Memory(1000, (Range(0, 1000),)),
        requests=(Request("blocker", 600, 0, 2), Request(LONG, 700, 1, 2, **name)),
    )


def box_texts(svg: str) -> dict[str, str | None]:
    """Each box label's text and its transform (None: across)."""
    root = ET.fromstring(svg)
    return {
        t.text or "": t.get("transform")
        for t in root.iter("text")
        if t.get("class", "").startswith("bl")
    }


def test_a_map_writes_names_across_and_up_narrow_boxes() -> None:
    capture = named()
    layout = placement_map(capture, {"0:39": 0, "0:61": 400}, "t")
    texts = box_texts(map_svg("m0", layout, {"default": 0}))
    assert texts["stream_10/concat"] is None  # across the wide box
    assert (texts["stream_10/strided_slice1"] or "").startswith("rotate(-90 ")  # up the narrow
    assert "0:39" not in texts and "0:61" not in texts
    # The failed unit's name in the holes panel, under its id.
    capture = failing(name="stream_9/concat")
    root = ET.fromstring(
        map_svg(
            "m0",
            attempt_map(capture, run_strategy(capture, "lifetime/first-fit")),
            {"default": 0},
        )
    )
    assert "stream_9/concat" in [t.text for t in root.iter("text") if t.get("class") == "ss"]


def test_names_round_trip_and_an_empty_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "named.json"
    write_capture(named(), path)
    assert read_capture(path).requests[0].name == "stream_10/concat"
    obj = json.loads(path.read_text())
    obj["requests"][0]["name"] = ""
    path.write_text(json.dumps(obj))
    with pytest.raises(Exception, match=r"requests\[0\]\.name: must not be empty"):
        read_capture(path)


def test_tflm_tensor_names_shortened_for_a_box() -> None:
    from tilefit.toolchains.tflm.capture import short_name

    assert short_name("model_1/stream_6/concat") == "stream_6/concat"
    assert short_name("model_1/stream_10/concat/ReadVariableOp") == "stream_10/…/ReadVariableOp"
    fused = "model_1/activation_7/Relu;model_1/batch_normalization_5/FusedBatchNormV3"
    assert short_name(fused) == "activation_7/Relu"
    assert short_name("serving_default_input_audio:0") == "serving_default_input_audio:0"
    assert short_name("") is None


def test_the_holes_panel_breaks_names_between_words() -> None:
    capture = failing()
    layout = attempt_map(capture, run_strategy(capture, "lifetime/first-fit"))
    assert layout.failure is not None and layout.failure.id == LONG
    root = ET.fromstring(map_svg("m0", layout, {"default": 0}))
    side = [t.text or "" for t in root.iter("text") if t.get("class") == "sf"]
    assert side == ["dynamic-slice_", "bitcast_fusion.1"]
    # The plot's panel: the label in lines of whole words, nothing lost.
    label = "model_1/stream_9/concat/ReadVariableOp (op 27 READ_VARIABLE, INT8 1x12x1x64)"
    lines = _narrow(label).split("\n")
    assert all(len(line) <= 18 for line in lines)
    assert "".join(lines).replace(" ", "") == label.replace(" ", "")
    for line, after in pairwise(lines):
        assert line[-1] in "/;," or f"{line} {after}" in label, (line, after)  # between words


def test_wrap_words_breaks_only_between_words() -> None:
    from tilefit.model.words import wrap_words

    text = "model_1/stream_9/concat/ReadVariableOp (op 27 READ_VARIABLE, INT8 1x12x1x64)"
    lines = wrap_words(text, 18, 10)
    assert lines == [
        "model_1/stream_9/",
        "concat/",
        "ReadVariableOp (op",
        "27 READ_VARIABLE,",
        "INT8 1x12x1x64)",
    ]
    assert wrap_words("averyveryverylongword", 5, 3) == ["averyveryverylongword"]  # kept whole
    assert wrap_words("a/b/c/d", 2, 2) == ["a/", "b/ …"]


def test_the_xla_report_header_has_no_nested_parentheses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_dump(tmp_path / "dump")
    assert main(["import", "xla", str(tmp_path / "dump"), "-o", str(tmp_path / "c")]) == 0
    (capture,) = (tmp_path / "c").glob("*[!t].json")  # not the .placement.json
    page = tmp_path / "r.html"
    assert main(["report", str(capture), "-o", str(page), "--time-limit", "2"]) == 0
    capsys.readouterr()
    html = page.read_text(encoding="utf-8")
    header = re.sub("<[^>]+>", "", html[html.index("<header>") : html.index("</header>")])
    assert "allocation 2 (cpu)" in header  # the source is there, its parentheses its own
    depth = 0
    for char in header:
        depth += {"(": 1, ")": -1}.get(char, 0)
        assert depth <= 1, header
