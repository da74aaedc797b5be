"""``json_text`` writes the same bytes as ``json.dumps`` with an indent: on large plain
objects (a placement's offsets, joined in one go) and on everything else (left to it)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tilefit.formats.jsontext import LARGE, json_text

OFFSETS = {f"b{k}": k * 64 for k in range(LARGE + 5)}


def _plain_cases() -> list[Any]:
    """Documents where a large object is joined here."""
    return [
        OFFSETS,
        {"format": "tilefit-placement", "capture": "café", "offsets": OFFSETS},
        {"status": "solved", "placement": {"offsets": OFFSETS}, "cut": [], "nodes": 3},
        [OFFSETS, (1, {"inner": OFFSETS}), None, 1.5],
        {"a": OFFSETS, "b": [], "c": {}, "d": {"e": [OFFSETS, {"f": True}]}},
    ]


def _other_cases() -> list[Any]:
    """Documents left to ``json.dumps``: small, or keys or values it would write otherwise."""
    return [
        {"offsets": {f"b{k}": k for k in range(LARGE - 1)}},
        {"offsets": {**OFFSETS, 'quote"d': 1}},
        {"offsets": {**OFFSETS, "back\\slash": 1}},
        {"offsets": {**OFFSETS, "é": 1}},
        {"offsets": {**OFFSETS, "tab\t": 1}},
        {"offsets": {**OFFSETS, "del\x7f": 1}},
        {"offsets": {**OFFSETS, "flag": True}},
        {"offsets": {**OFFSETS, "half": 0.5}},
        {"offsets": {**OFFSETS, 7: 1}},
        {"offsets": OFFSETS, "name": "\x00tilefit-large-object-0\x00"},  # the marker itself
    ]


@pytest.mark.parametrize("indent", [0, 1, 2, 4])
@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("doc", _plain_cases() + _other_cases())
def test_the_same_text_as_json_dumps(doc: Any, indent: int, ensure_ascii: bool) -> None:
    expected = json.dumps(doc, indent=indent, ensure_ascii=ensure_ascii)
    assert json_text(doc, indent, ensure_ascii) == expected


def test_the_large_object_is_joined_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The join is taken: ``json.dumps`` never sees the large object itself."""
    seen: list[Any] = []
    real = json.dumps

    def spying(obj: Any, **kwargs: Any) -> str:
        seen.append(obj)
        return real(obj, **kwargs)

    monkeypatch.setattr(json, "dumps", spying)
    doc = {"placement": {"offsets": OFFSETS}}
    assert json_text(doc, 2) == real(doc, indent=2)
    assert all("b0" not in str(obj)[:10_000] for obj in seen)
