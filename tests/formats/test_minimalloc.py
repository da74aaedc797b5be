"""minimalloc CSV import and export."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from tilefit.formats.load import read_capture, read_placement
from tilefit.formats.minimalloc import capacity_from_name, capture_from_csv, capture_to_csv
from tilefit.model.errors import InputError
from tilefit.model.placement import Placement

EXAMPLE = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"


def test_import_makes_one_range_and_horizon_is_latest_upper() -> None:
    c = capture_from_csv(EXAMPLE, "input.12.csv")
    assert c.name == "input"
    assert c.memory.size == 12 and c.available == 12
    assert [(r.start, r.end) for r in c.memory.ranges] == [(0, 12)]
    assert c.horizon == 21
    assert [r.id for r in c.requests] == ["b1", "b2", "b3", "b4", "b5"]
    assert all(r.cls == "default" and r.alignment == 1 for r in c.requests)
    assert (c.requests[1].start, c.requests[1].end) == (3, 9)


def test_capacity_argument_beats_file_name() -> None:
    assert capture_from_csv(EXAMPLE, "input.12.csv", capacity=64).memory.size == 64


def test_capacity_is_required() -> None:
    with pytest.raises(InputError, match="--capacity"):
        capture_from_csv(EXAMPLE, "input.csv")


def test_capacity_from_name() -> None:
    assert capacity_from_name("A.1048576.csv") == 1048576
    assert capacity_from_name("A.csv") is None


def test_inclusive_end_column() -> None:
    c = capture_from_csv("id,lower,end,size,alignment\nx,2,4,8,8\n", "t.csv", capacity=16)
    assert (c.requests[0].start, c.requests[0].end, c.requests[0].alignment) == (2, 5, 8)


@pytest.mark.parametrize(
    ("text", "place", "words"),
    [
        ("id,lower,size\nx,0,4\n", "line 1", "upper"),
        ("id,lower,upper\nx,0,4\n", "line 1", "missing column 'size'"),
        ("id,lower,upper,size,colour\nx,0,4,4,red\n", "line 1", "unknown column"),
        ("id,lower,upper,size\nx,0,4,four\n", "line 2", "'size': 'four' is not an integer"),
        ("id,lower,upper,size\nx,0,4,4\ny,0,4\n", "line 3", "has 3 cells"),
        ("id,lower,upper,size\nx,4,4,4\n", "line 2", "upper' must be > 'lower"),
        ("id,lower,upper,size\nx,0,4,0\n", "line 2", "'size' must be > 0"),
        ("id,lower,upper,size\nx,0,4,4\nx,1,4,4\n", "line 3", "duplicate id"),
        ("id,lower,upper,size,alignment\nx,0,4,4,0\n", "line 2", "'alignment' must be >= 1"),
        ("", "line 1", "empty CSV"),
    ],
)
def test_bad_csv_names_line(text: str, place: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        capture_from_csv(text, "t.8.csv")
    assert info.value.place == place
    assert words in info.value.rule


def test_export_round_trip_with_offsets(tmp_path: Path) -> None:
    c = capture_from_csv(EXAMPLE, "input.12.csv")
    offsets = {"b1": 0, "b2": 0, "b3": 4, "b4": 0, "b5": 8}
    text = capture_to_csv(c, Placement(c.name, offsets))
    path = tmp_path / "out.12.csv"
    path.write_text(text)
    again = read_capture(path)
    assert again.requests == c.requests and again.memory == c.memory and again.name == "out"
    assert dict(read_placement(path).offsets) == offsets


def test_export_refuses_to_lose_meaning() -> None:
    from dataclasses import replace

    c = capture_from_csv(EXAMPLE, "input.12.csv")
    labelled = replace(c, requests=(replace(c.requests[0], cls="scratch"), *c.requests[1:]))
    with pytest.raises(InputError, match="classes"):
        capture_to_csv(labelled)


def test_a_bad_row_is_named_before_the_missing_capacity() -> None:
    text = "id,lower,upper,size\na,0,4,8\nb,3,2,8\n"
    with pytest.raises(InputError) as info:
        capture_from_csv(text, "model.csv")
    assert info.value.place == "line 3" and "'upper' must be > 'lower'" in info.value.rule
    with pytest.raises(InputError, match="no capacity"):  # once the rows are good
        capture_from_csv(text.replace("b,3,2", "b,3,5"), "model.csv")


ODD = [
    "id,lower,upper,size\nx,0,4,1_000\n",  # int() takes it; the format does not
    "id,lower,upper,size\nx,0,4,+4\n",
    "id,lower,upper,size\nx,0,4,\uff14\n",  # a fullwidth digit
    "id,lower,upper,size\nx,0,4,4\n\ny,0,4,4\n",  # a blank line
    'id,lower,upper,size\n"x,y",0,4,4\n',  # a quoted id
    "id,lower,upper,size\nx,0,4,4\nx,1,4,4\n",
    "id,lower,upper,size\n,0,4,4\n",
    "id,lower,upper,size\nx,4,4,4\n",
    "id,lower,upper,size\nx,0,4,0\n",
    "id,lower,upper,size,alignment\nx,0,4,4,0\n",
    "id,lower,upper,size\nx,0,4,12345678901234567890\n",
    "lower,id,upper,size\n0,x,4,4\n",  # columns in another order
    "id,lower,end,size\nx,0,4,4\n",
]


@pytest.mark.parametrize("text", [EXAMPLE, "id,lower,upper,size,alignment\n a ,2, 5 ,8,64\n"])
def test_the_column_reader_reads_as_the_row_reader(text: str) -> None:
    """A compiler's CSV is read column by column (a million rows in seconds): the same
    requests as row by row."""
    from tilefit.formats import minimalloc

    plain = minimalloc._plain_requests(text)
    assert plain is not None
    header, rows = minimalloc._rows(text, need_offset=False)
    assert plain == minimalloc._requests(header, rows)


@pytest.mark.parametrize("text", ODD)
def test_anything_odd_is_left_to_the_row_reader(text: str) -> None:
    """The column reader takes only what it can read without a doubt; the rest goes to the
    row reader, which reads it or names the line and the rule."""
    from tilefit.formats import minimalloc

    assert minimalloc._plain_requests(text) is None


def _plain_text(seed: int) -> str:
    """A compiler's CSV, now and then with a line a cell short or long, a line past the csv
    module's field limit, a header of other columns, or no last line end."""
    rng = random.Random(seed)
    columns = rng.choice(("id,lower,upper,size", "id,lower,upper,size,alignment", "id,size"))
    width = columns.count(",") + 1
    lines = [columns]
    for k in range(rng.randrange(0, 6)):
        cells = [
            f"r{k}",
            *(str(rng.randrange(0, 10 ** rng.randrange(1, 20))) for _ in range(width - 1)),
        ]
        if rng.random() < 0.1:
            cells = cells[: rng.randrange(width)] or [""]
        elif rng.random() < 0.1:
            cells.append("7")
        elif rng.random() < 0.05:
            cells[0] = "x" * (csv.field_size_limit() + 1)
        lines.append(",".join(cells))
    return "\n".join(lines) + ("\n" if rng.random() < 0.7 else "")


def test_a_plain_text_is_split_at_once_as_line_by_line() -> None:
    from tilefit.formats import minimalloc

    read = [minimalloc._columns_at_once(_plain_text(seed)) for seed in range(400)]
    by_line = [minimalloc._columns_by_line(_plain_text(seed)) for seed in range(400)]
    assert read == by_line
    assert sum(r is None for r in read) > 50 and sum(r is not None for r in read) > 50
    # The comparison sees one cell changed.
    seed = next(s for s in range(400) if (found := read[s]) is not None and found[0])
    text = _plain_text(seed).replace("r0,", "r0,9", 1)
    assert minimalloc._columns_at_once(text) != by_line[seed]
