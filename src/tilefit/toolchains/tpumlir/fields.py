"""The ``; key = value; key = value`` lines of TPU-MLIR's debug output, read."""

from __future__ import annotations

from tilefit.model.errors import InputError

_NO_ADDRESS = 0xFFFFFFFFFFFFFFFF  # -1 printed as an unsigned hex address


def fields(line: str) -> dict[str, str]:
    """``; k = v; k = v`` into a dict (a trailing ``%`` dropped)."""
    values = {}
    for part in line.split("; "):
        key, sep, value = part.partition(" = ")
        if sep:
            values[key.strip("; ")] = value.strip().rstrip("%")
    return values


def text(values: dict[str, str], key: str, number: int) -> str:
    value = values.get(key)
    if value is None:
        raise InputError(f"line {number}", f"no {key} on this line")
    return value


def integer(values: dict[str, str], key: str, number: int) -> int:
    value = text(values, key, number)
    try:
        return int(value, 0) if value.startswith("0x") else int(value)
    except ValueError:
        raise InputError(f"line {number}", f"{key} {value!r} is not an integer") from None


def address(value: str, place: str) -> int:
    try:
        number = int(value, 16) if value.startswith("0x") else int(value)
    except ValueError:
        raise InputError(place, f"addr {value!r} is not an address") from None
    return -1 if number in (-1, _NO_ADDRESS) else number
