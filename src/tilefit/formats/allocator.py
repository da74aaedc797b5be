"""A capture's ``allocator`` object read and written: what a production allocator replayed
whole is given (docs/format.md, "allocator"), so that the capture alone replays it.

Only ``tpumlir`` (TPU-MLIR's ``assignLmemAddr``, ``tilefit.model.lmem``) is known. Its
object names the EU bytes every end is aligned up to, the bank bytes, whether bank
conflicts are allowed, each tensor in the group's own order (its bytes as asked, its
arc's first and last timestep, held, scratch, weight), each timestep's ops, loads and
stores, and each op's reads. Every rule is checked on load: an error names the JSON
path and the rule (exit 2).
"""

from __future__ import annotations

from typing import Any

from tilefit.formats.jsonread import as_int, as_list, as_object, as_str, fail, type_name
from tilefit.model.capture import Capture
from tilefit.model.lmem import NAME, Arc, LmemAllocator, Op, Step, Tensor

_KEYS = {"name", "eu_bytes", "bank_bytes", "allow_bank_conflict", "tensors", "timesteps", "ops"}
_TENSOR_KEYS = {"id", "bytes", "first", "last", "held", "scratch", "weight"}
_STEP_KEYS = {"ops", "loads", "stores"}
_OP_KEYS = {"name", "reads", "in_place"}


def allocator_from_json(value: object, capture: Capture) -> LmemAllocator:
    """The ``allocator`` object of ``capture`` (its requests, memory and period read)."""
    obj = as_object(
        value, "allocator", _KEYS, ("name", "eu_bytes", "bank_bytes", "tensors", "timesteps")
    )
    name = as_str(obj["name"], "allocator.name")
    if name != NAME:
        fail("allocator.name", f"unknown allocator {name!r} (known: {NAME})")
    _fits_lmem(capture)
    eu = _positive(obj["eu_bytes"], "allocator.eu_bytes")
    bank = _positive(obj["bank_bytes"], "allocator.bank_bytes")
    allow = _flag(obj, "allow_bank_conflict", "allocator")
    raw_steps = as_list(obj["timesteps"], "allocator.timesteps")
    if len(raw_steps) != capture.period:
        fail(
            "allocator.timesteps",
            f"lists {len(raw_steps)} timesteps: must list the period's {capture.period}",
        )
    steps = tuple(_step(s, f"allocator.timesteps[{k}]") for k, s in enumerate(raw_steps))
    tensors = _tensors(obj["tensors"], capture)
    ops = _ops(obj.get("ops", []))
    return LmemAllocator(eu, bank, allow, tensors, steps, ops, name)


def _fits_lmem(capture: Capture) -> None:
    """TPU-MLIR's allocator runs on one lane's LMEM, a circle of timesteps, no sequences."""
    if capture.period is None:
        fail("allocator", "needs a cyclic capture (period): TPU-MLIR's timesteps are a circle")
    ranges = capture.memory.ranges
    if len(ranges) != 1 or ranges[0].start != 0 or ranges[0].classes is not None:
        fail("allocator", "needs one memory range from address 0 open to every class (the LMEM)")
    if capture.sequences:
        fail("allocator", "TPU-MLIR's allocator places no sequences: drop them")


def _tensors(value: object, capture: Capture) -> tuple[Tensor, ...]:
    raw = as_list(value, "allocator.tensors")
    period = capture.period or 1
    requests = capture.request_by_id
    out: list[Tensor] = []
    seen: set[str] = set()
    for k, item in enumerate(raw):
        place = f"allocator.tensors[{k}]"
        t = as_object(item, place, _TENSOR_KEYS, ("id", "bytes", "first", "last"))
        ident = as_str(t["id"], f"{place}.id")
        if ident not in requests:
            fail(f"{place}.id", f"unknown request id {ident!r}")
        if ident in seen:
            fail(f"{place}.id", f"duplicate id {ident!r}: each request is one tensor")
        seen.add(ident)
        size = _positive(t["bytes"], f"{place}.bytes")
        if size > requests[ident].size:
            fail(f"{place}.bytes", f"must be <= the request's size ({requests[ident].size})")
        first, last = (as_int(t[key], f"{place}.{key}") for key in ("first", "last"))
        for key, step in (("first", first), ("last", last)):
            if not 0 <= step < period:
                fail(f"{place}.{key}", f"must be in [0, {period}) (the period)")
        arc = Arc(first, last, period, _flag(t, "held", place))
        out.append(Tensor(ident, size, arc, _flag(t, "scratch", place), _flag(t, "weight", place)))
    missing = [r.id for r in capture.requests if r.id not in seen]
    if missing:
        fail("allocator.tensors", f"has no tensor for request {missing[0]!r}: list every one")
    return tuple(out)


def _step(value: object, place: str) -> Step:
    s = as_object(value, place, _STEP_KEYS, ("ops",))
    return Step(
        _names(s["ops"], f"{place}.ops"),
        _names(s.get("loads", []), f"{place}.loads"),
        _names(s.get("stores", []), f"{place}.stores"),
    )


def _ops(value: object) -> tuple[Op, ...]:
    raw = as_list(value, "allocator.ops")
    out: list[Op] = []
    seen: set[str] = set()
    for k, item in enumerate(raw):
        place = f"allocator.ops[{k}]"
        o = as_object(item, place, _OP_KEYS, ("name", "reads"))
        name = as_str(o["name"], f"{place}.name")
        if name in seen:
            fail(f"{place}.name", f"duplicate op {name!r}")
        seen.add(name)
        out.append(Op(name, _names(o["reads"], f"{place}.reads"), _flag(o, "in_place", place)))
    return tuple(out)


def _names(value: object, place: str) -> tuple[str, ...]:
    return tuple(as_str(v, f"{place}[{k}]") for k, v in enumerate(as_list(value, place)))


def _positive(value: object, place: str) -> int:
    number = as_int(value, place)
    if number < 1:
        fail(place, "must be >= 1")
    return number


def _flag(obj: dict[str, Any], key: str, place: str) -> bool:
    value = obj.get(key, False)
    if not isinstance(value, bool):
        fail(f"{place}.{key}", f"must be true or false, got {type_name(value)}")
    return value


def allocator_to_json(inputs: LmemAllocator) -> dict[str, Any]:
    """The ``allocator`` object, optional keys only where they differ from their default."""
    out: dict[str, Any] = {
        "name": inputs.name,
        "eu_bytes": inputs.eu_bytes,
        "bank_bytes": inputs.bank_bytes,
    }
    if inputs.allow_bank_conflict:
        out["allow_bank_conflict"] = True
    out["tensors"] = [_tensor_json(t) for t in inputs.tensors]
    out["timesteps"] = [_step_json(s) for s in inputs.steps]
    if inputs.ops:
        out["ops"] = [_op_json(o) for o in inputs.ops]
    return out


def _tensor_json(t: Tensor) -> dict[str, Any]:
    item: dict[str, Any] = {"id": t.name, "bytes": t.size, "first": t.arc.start, "last": t.arc.end}
    for key, on in (("held", t.arc.held), ("scratch", t.scratch), ("weight", t.weight)):
        if on:
            item[key] = True
    return item


def _step_json(s: Step) -> dict[str, Any]:
    item: dict[str, Any] = {"ops": list(s.ops)}
    if s.loads:
        item["loads"] = list(s.loads)
    if s.stores:
        item["stores"] = list(s.stores)
    return item


def _op_json(o: Op) -> dict[str, Any]:
    item: dict[str, Any] = {"name": o.name, "reads": list(o.reads)}
    if o.in_place:
        item["in_place"] = True
    return item
