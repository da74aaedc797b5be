"""ExecuTorch's tensor specs as plain data: what its memory planning pass hands an algorithm.

ExecuTorch's ``MemoryPlanningPass`` calls its algorithm with a list of
``TensorSpec`` objects (``executorch.exir.tensor``). The planner
(``tilefit.toolchains.executorch.hook``) reads each into a ``Spec``, with
the FX node that makes it; everything else here works on ``Spec`` values
alone, without torch. A ``Program`` is one call of the algorithm: its
alignment, ``extra_padding``, the bytes reserved ahead of each arena, and
its specs with ExecuTorch's greedy offsets. ``PROGRAM.executorch.json``
holds one, so that ``tilefit import executorch`` and the tests read what a
real export planned.

The rules, from ``executorch/exir/memory_planning.py`` (1.5.1):

- ``size`` is ``allocated_memory``: the tensor's bytes rounded up to the
  pass's alignment (``TensorSpec.realign``, done by ``greedy`` itself);
- ``lifetime`` is ``[first, last]`` on the FX graph's node index, inclusive
  at both ends (``update_all_tensors_lifetime``; two specs may share bytes
  only when one ends strictly before the other starts); graph inputs start
  at 0 and mutable buffers end at the last node;
- ``mem_id`` is the arena (unset: 1, as ``greedy`` does);
- a spec with a ``storage_base`` lives inside its base at
  ``storage_base_offset`` (in-place and shared-allocation ops), in its
  base's arena; ExecuTorch has already extended the base's lifetime over it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tilefit.formats.jsonread import as_int, as_list, as_object, as_str, fail, parse_json
from tilefit.model.errors import InputError

FORMAT = "tilefit-executorch-specs"
VERSION = 1
SUFFIX = ".executorch.json"
DEFAULT_ARENA = 1  # greedy's arena for a spec without a mem_id


@dataclass(frozen=True, slots=True)
class Spec:
    """One TensorSpec as the planning algorithm sees it, named after its FX node."""

    id: str  # the FX node's name (``.K`` for the K-th tensor of a node that makes several)
    size: int  # allocated_memory: bytes rounded up to the alignment
    first: int  # lifetime, inclusive, on the FX node index
    last: int
    mem_id: int = DEFAULT_ARENA
    op: str = ""  # the node's target (``aten.convolution.out``), or its kind (``placeholder``)
    shape: tuple[int, ...] = ()
    dtype: str = ""
    base: str | None = None  # the id of its storage_base
    base_offset: int = 0  # its bytes start this far into its base
    problem: str | None = None  # why tilefit cannot honour it (its arena keeps greedy's plan)
    greedy: int | None = None  # greedy's mem_offset (absolute in its arena)


@dataclass(frozen=True)
class Program:
    """One call of a memory planning algorithm: the specs of every arena."""

    name: str
    alignment: int
    extra_padding: int  # added to every arena's size (64 with an XNNPACK delegate)
    specs: tuple[Spec, ...]
    reserved: Mapping[int, int] = field(default_factory=dict)  # mem_id -> bytes held ahead
    node_names: tuple[str, ...] = ()  # the FX graph's nodes, by index (the capture's steps)

    def reserved_in(self, mem_id: int) -> int:
        """Bytes ExecuTorch reserves at the start of arena ``mem_id`` (control-flow
        submodules' plans, ``input_mem_buffer_sizes``); the plan starts after them."""
        return self.reserved.get(mem_id, 0)


def _spec_json(spec: Spec) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": spec.id,
        "size": spec.size,
        "lifetime": [spec.first, spec.last],
        "mem_id": spec.mem_id,
        "op": spec.op,
        "shape": list(spec.shape),
        "dtype": spec.dtype,
    }
    if spec.base is not None:
        item["base"] = spec.base
        item["base_offset"] = spec.base_offset
    if spec.problem is not None:
        item["problem"] = spec.problem
    if spec.greedy is not None:
        item["greedy"] = spec.greedy
    return item


def program_json(program: Program) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": program.name,
        "alignment": program.alignment,
        "extra_padding": program.extra_padding,
        "node_names": list(program.node_names),
        "reserved": {str(k): v for k, v in sorted(program.reserved.items())},
        "specs": [_spec_json(s) for s in program.specs],
    }


def program_text(program: Program) -> str:
    """The program as ``PROGRAM.executorch.json``: one spec per line."""
    head = program_json(program)
    specs = head.pop("specs")
    names = head.pop("node_names")
    lines = ",\n".join(f"    {json.dumps(s)}" for s in specs)
    text = json.dumps(head, indent=2)[:-2]
    return f'{text},\n  "node_names": {json.dumps(names)},\n  "specs": [\n{lines}\n  ]\n}}\n'


_PROGRAM_KEYS = {
    "format",
    "version",
    "name",
    "alignment",
    "extra_padding",
    "node_names",
    "reserved",
}
_SPEC_KEYS = {"id", "size", "lifetime", "mem_id", "op", "shape", "dtype", "base", "base_offset"}


def program_from_json(obj: object) -> Program:
    """A ``Program`` from its JSON (InputError naming the JSON path on bad input)."""
    top = as_object(obj, "", _PROGRAM_KEYS | {"specs"}, ("format", "version", "name", "specs"))
    if top["format"] != FORMAT:
        fail("format", f'must be "{FORMAT}"')
    if top["version"] != VERSION:
        fail("version", f"must be {VERSION}")
    alignment = as_int(top.get("alignment", 16), "alignment")
    if alignment < 1:
        fail("alignment", "must be at least 1")
    padding = as_int(top.get("extra_padding", 0), "extra_padding")
    if padding < 0:
        fail("extra_padding", "must not be negative")
    reserved: dict[int, int] = {}
    held = as_object(top.get("reserved", {}), "reserved", set(top.get("reserved", {})), ())
    for key, value in held.items():
        if not key.isdigit():
            fail(f"reserved.{key}", "must be an arena number")
        reserved[int(key)] = as_int(value, f"reserved.{key}")
        if reserved[int(key)] < 0:
            fail(f"reserved.{key}", "must not be negative")
    specs = tuple(
        _spec(item, f"specs[{k}]") for k, item in enumerate(as_list(top["specs"], "specs"))
    )
    seen: set[str] = set()
    for k, spec in enumerate(specs):
        if spec.id in seen:
            fail(f"specs[{k}].id", f"duplicate id {spec.id!r}")
        seen.add(spec.id)
    for k, spec in enumerate(specs):
        if spec.base is not None and spec.base not in seen:
            fail(f"specs[{k}].base", f"no spec {spec.base!r}")
    return Program(
        name=as_str(top["name"], "name"),
        alignment=alignment,
        extra_padding=padding,
        specs=specs,
        reserved=reserved,
        node_names=tuple(
            as_str(n, f"node_names[{i}]")
            for i, n in enumerate(as_list(top.get("node_names", []), "node_names"))
        ),
    )


def _spec(value: object, place: str) -> Spec:
    keys = _SPEC_KEYS | {"problem", "greedy"}
    item = as_object(value, place, keys, ("id", "size", "lifetime"))
    life = as_list(item["lifetime"], f"{place}.lifetime")
    if len(life) != 2:
        fail(f"{place}.lifetime", "must be [first, last]")
    first = as_int(life[0], f"{place}.lifetime[0]")
    last = as_int(life[1], f"{place}.lifetime[1]")
    if not 0 <= first <= last:
        fail(f"{place}.lifetime", "must be [first, last] with 0 <= first <= last")
    size = as_int(item["size"], f"{place}.size")
    if size < 0:
        fail(f"{place}.size", "must not be negative")
    greedy = item.get("greedy")
    problem = item.get("problem")
    return Spec(
        id=as_str(item["id"], f"{place}.id"),
        size=size,
        first=first,
        last=last,
        mem_id=as_int(item.get("mem_id", DEFAULT_ARENA), f"{place}.mem_id"),
        op=as_str(item.get("op", ""), f"{place}.op"),
        shape=tuple(
            as_int(d, f"{place}.shape[{i}]")
            for i, d in enumerate(as_list(item.get("shape", []), f"{place}.shape"))
        ),
        dtype=as_str(item.get("dtype", ""), f"{place}.dtype"),
        base=None if item.get("base") is None else as_str(item["base"], f"{place}.base"),
        base_offset=as_int(item.get("base_offset", 0), f"{place}.base_offset"),
        problem=None if problem is None else as_str(problem, f"{place}.problem"),
        greedy=None if greedy is None else as_int(greedy, f"{place}.greedy"),
    )


def read_program(path: Path) -> Program:
    """``PROGRAM.executorch.json`` (InputError naming the file on bad input)."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError("", f"cannot read: {error.strerror}", where) from None
    except UnicodeDecodeError:
        raise InputError("", "not UTF-8 text", where) from None
    try:
        return program_from_json(parse_json(text))
    except InputError as error:
        raise error.located(where) from None


def by_arena(specs: Sequence[Spec]) -> dict[int, list[Spec]]:
    """The specs of each arena, in the order given; an alias goes with its root's arena
    (greedy gives a storage-backed spec its base's mem_id)."""
    known = {s.id: s for s in specs}
    arenas: dict[int, list[Spec]] = {}
    for spec in specs:
        arenas.setdefault(_root(spec, known).mem_id, []).append(spec)
    return dict(sorted(arenas.items()))


def _root(spec: Spec, known: Mapping[str, Spec]) -> Spec:
    seen = {spec.id}
    while spec.base is not None and spec.base in known:
        spec = known[spec.base]
        if spec.id in seen:
            break  # a cycle: capture.py refuses it for the arena
        seen.add(spec.id)
    return spec
