"""Strategy names: ORDER/FIT, parsed to values and formatted back."""

from __future__ import annotations

import pytest

from tilefit.engine.strategy import (
    STRATEGIES,
    as_strategies,
    format_strategy,
    parse_strategies,
    parse_strategy,
)


def test_the_matrix_is_every_order_with_every_fit() -> None:
    names = [s.name for s in STRATEGIES]
    assert len(names) == len(set(names)) == 16
    assert names[:4] == [
        "alignment/first-fit",
        "alignment/best-fit",
        "lifetime/first-fit",
        "lifetime/best-fit",
    ]
    assert "long-lived/first-fit" in names and "resident-first/best-fit" in names


@pytest.mark.parametrize("name", [s.name for s in STRATEGIES])
def test_names_round_trip(name: str) -> None:
    assert format_strategy(parse_strategy(name)) == name


def test_a_list_keeps_its_order_and_canonical_names() -> None:
    found = parse_strategies("long-lived/first-fit, weighted:1.0/best-fit")
    assert [s.name for s in found] == ["long-lived/first-fit", "weighted:1/best-fit"]
    assert as_strategies(["size/first-fit", found[0]]) == (
        parse_strategy("size/first-fit"),
        found[0],
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lifetime", "not ORDER/FIT"),
        ("lifetime/worst-fit", "unknown fit"),
        ("age/first-fit", "unknown order"),
        (",", "no strategy given"),
    ],
)
def test_bad_names_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_strategies(text)


def test_an_allocator_is_named_without_a_slash_and_read_as_one() -> None:
    # A name with a slash is read as ORDER/FIT without asking the allocators' registry
    # (it loads TPU-MLIR's allocator inputs): no allocator's name may have one.
    from tilefit.engine.production import ALLOCATORS
    from tilefit.engine.strategy import Replaying, as_placers

    assert ALLOCATORS and not any("/" in name for name in ALLOCATORS)
    # The loader skips the registry for a capture with tilefit's default production:
    # it names no allocator.
    from tilefit.model.capture import DEFAULT_PRODUCTION

    assert not set(DEFAULT_PRODUCTION) & set(ALLOCATORS)
    for name in ALLOCATORS:
        assert as_placers([name, "size/first-fit"]) == (
            Replaying(name),
            parse_strategy("size/first-fit"),
        )
    with pytest.raises(ValueError, match="not ORDER/FIT"):
        as_placers(["first-fit"])
