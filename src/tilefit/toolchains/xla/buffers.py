"""XLA's temp values as requests, and XLA's offsets as a placement.

The rules, each from XLA's own code (docs/xla.md says where):

- A value occupies its bytes during its live range, inclusive at both ends:
  XLA's heap simulator lets two values share addresses only when one ends
  strictly before the other starts. Step t of XLA is step t of the capture,
  and range ``first-last`` is the request's ``[first, last + 1)``.
- Values that XLA keeps at one offset over touching ranges are one buffer to
  the heap simulator, so one request here: the values of one HloBuffer (a
  while loop's state, a tuple's element and its alias) and an output written
  in place over an operand that dies at that instruction. Nothing else may
  touch: two values at different offsets whose ranges meet at a step keep
  their own addresses, as in XLA.
- A buffer holding a tuple-shaped value (a tuple's table of pointers) has an
  allocation of its own, appended to the heap's: its request lives for the
  whole program, of class ``tuple``.
- Offsets are multiples of the backend's heap alignment; sizes are not rounded.
- The memory is the heap XLA made (the allocation's size), or ``capacity``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tilefit.formats.load import read_text
from tilefit.model.capture import DEFAULT_CLASS, Request
from tilefit.model.errors import InputError
from tilefit.model.placement import Placement
from tilefit.toolchains.base import Allocator, Imported, ImportOptions, Reading, Skipped
from tilefit.toolchains.xla.assignment import Allocation, Value, parse_assignment
from tilefit.toolchains.xla.files import Module, find_modules
from tilefit.toolchains.xla.hlo import Made, parse_hlo
from tilefit.toolchains.xla.liverange import LiveRanges, parse_live_ranges

TOOL = "XLA"
# The heap simulator's alignment per backend (cpu_compiler.cc memory_alignment,
# the GPU's kXlaAllocatedBufferAlignBytes). Others need --alignment.
ALIGNMENT = {"cpu": 64, "gpu": 256}
# tilefit's nearest strategy to XLA's GlobalDecreasingSizeBestFitHeap (largest
# first, best fit); XLA's own answer is the placement written beside the capture.
PRODUCTION = ("size/best-fit",)
# the heap XLA's simulator packs, in its preallocated temp allocation
ALLOCATOR = Allocator(TOOL, "heap", PRODUCTION, range="temp")
# A tuple's table of pointers, in an allocation of its own for the whole program.
TUPLE_CLASS = "tuple"
# A buffer's class, from the opcode of the instruction that makes it (the HLO text);
# a buffer a while loop carries is "loop-state", anything else "other".
CLASSES = {
    "fusion": "fusion",
    "parameter": "parameter",
    "copy": "copy",
    "copy-start": "copy",
    "copy-done": "copy",
    "custom-call": "custom-call",
    "dot": "dot",
    "convolution": "convolution",
    "constant": "constant",
}
OTHER_CLASS = "other"


def read_dumps(paths: Sequence[str], options: ImportOptions) -> Reading:
    """Every temp allocation of every module the paths name (dump folders or files).

    A module without a preallocated temp allocation has nothing for a heap to
    pack (XLA writes one for every module, the smallest ones included): it is
    skipped and said, not an error.
    """
    out: list[Imported] = []
    skipped: list[Skipped] = []
    for module in find_modules(list(paths)):
        found = read_module(module, options.capacity, options.alignment)
        if found:
            out += found
        else:
            skipped.append(Skipped(str(module.assignment), "no preallocated temp allocation"))
    return Reading(out, skipped)


def read_module(
    module: Module, capacity: int | None = None, alignment: int | None = None
) -> list[Imported]:
    """Every preallocated temp allocation of one module; InputError on a dump not understood."""
    source = str(module.assignment)
    try:
        allocations = parse_assignment(read_text(module.assignment))
    except InputError as error:
        raise error.located(source) from None
    temps = [a for a in allocations if a.temp and a.values]
    if not temps and module.live_range is None:
        return []  # older XLA: the live ranges were in the same file, cut or not
    live_file = module.live_ranges_file
    try:
        live = parse_live_ranges(read_text(live_file))
    except InputError as error:
        raise error.located(str(live_file)) from None
    if not temps:
        _whole(allocations, live, source)  # nothing to pack, or a file cut before its heap
        return []
    align = _alignment(module, alignment, source)

    def name(a: Allocation) -> str:  # the module's name, unless it has several heaps
        return module.name if len(temps) == 1 else f"{module.name}.alloc{a.index}"

    return [_import(module, a, live, align, capacity, name(a)) for a in temps]


def _whole(allocations: Sequence[Allocation], live: LiveRanges, source: str) -> None:
    """Every value the live ranges name is in some allocation: the file is not cut short.

    XLA lists the same values in both files; a buffer assignment cut before an
    allocation (its temp heap, say) lacks the values the live ranges still name.
    """
    listed = {v.key for a in allocations for v in a.values}
    missing = [key for key in live.ranges if key not in listed]
    if missing:
        raise InputError(
            "",
            f"cut short: the live ranges name {len(missing)} values it does not list "
            f"(for example {missing[0]})",
            source,
        )


def _alignment(module: Module, given: int | None, source: str) -> int:
    if given is not None:
        return given
    if module.backend not in ALIGNMENT:
        known = ", ".join(sorted(ALIGNMENT))
        raise InputError(
            "",
            f"backend {module.backend!r} not understood (known: {known}): "
            "give its heap alignment with --alignment BYTES",
            source,
        )
    return ALIGNMENT[module.backend]


def _import(
    module: Module,
    allocation: Allocation,
    live: LiveRanges,
    alignment: int,
    capacity: int | None,
    name: str,
) -> Imported:
    source = str(module.assignment)
    for value in allocation.values:
        if value.key not in live.ranges:
            raise InputError(
                f"line {value.line}",
                f"value {value.name} has no live range in "
                f"{module.live_ranges_file.name}: the dumps do not match",
                source,
            )
        if value.offset % alignment:
            raise InputError(
                f"line {value.line}",
                f"offset {value.offset} of {value.name} is not a multiple of the "
                f"{module.backend} heap alignment {alignment}: give --alignment BYTES",
                source,
            )
    top = max((v.offset + v.size for v in allocation.values), default=0)
    if top != allocation.size:
        raise InputError(
            f"line {allocation.line}",
            f"allocation {allocation.index} has size {allocation.size} but its values end at "
            f"{top}: the file is cut short, or a layout this importer does not know",
            source,
        )
    horizon = live.steps + 1
    made_by = _made_by(module)
    arrays = [v for v in allocation.values if not v.tuple_shaped]
    tables = [v for v in allocation.values if v.tuple_shaped]
    made: list[tuple[tuple[int, int], Request, int]] = []
    for group in _buffers(arrays, live):
        first_step = min(live.ranges[v.key][0] for v in group)
        last_step = max(live.ranges[v.key][1] for v in group)
        made.append(_request(group, first_step, last_step + 1, alignment, made_by))
    for group in _tuple_tables(tables):
        made.append(_request(group, 0, horizon, alignment, made_by, TUPLE_CLASS))
    made.sort(key=lambda item: item[0])
    requests = [request for _, request, _ in made]
    offsets = {request.id: offset for _, request, offset in made}
    where = f"{module.assignment.name} allocation {allocation.index} ({module.backend})"
    capture = ALLOCATOR.capture(
        name, requests, allocation.size, where, capacity=capacity, horizon=horizon
    )
    return Imported(capture, Placement(name, offsets), source, len(allocation.values))


def _buffers(values: Sequence[Value], live: LiveRanges) -> list[list[Value]]:
    """Values at one offset whose ranges touch or overlap, each list in time order
    (the lists themselves in no particular order: the caller orders the requests).

    XLA only lets two values meet in time at one offset when they share one
    buffer (an HloBuffer's values, or an output written over a dying operand).
    """

    def when(v: Value) -> tuple[int, int, int]:
        first, last = live.ranges[v.key]
        return first, last, v.id

    by_offset: dict[int, list[Value]] = {}
    for value in values:
        by_offset.setdefault(value.offset, []).append(value)
    groups: list[list[Value]] = []
    for same in by_offset.values():
        current: list[Value] = []
        reach = -1
        for value in sorted(same, key=when):
            first, last, _ = when(value)
            if current and first <= reach:
                current.append(value)
                reach = max(reach, last)
            else:
                current = [value]
                groups.append(current)
                reach = last
    return groups


def _tuple_tables(values: Sequence[Value]) -> list[list[Value]]:
    """Tuple-shaped values by offset: each offset is one buffer's own allocation.

    Buffer assignment gives every buffer holding a tuple-shaped value an
    allocation of its own (``AssignSingleHloBuffer``), never heap-simulated,
    and ``CombineTempAllocations`` appends those to the heap's: such a buffer's
    bytes are its own for the whole program, whatever its values' ranges say.
    """
    by_offset: dict[int, list[Value]] = {}
    for value in sorted(values, key=lambda v: v.id):
        by_offset.setdefault(value.offset, []).append(value)
    return list(by_offset.values())


def _made_by(module: Module) -> dict[str, Made]:
    """What made each instruction (the module's HLO text), or nothing without the text."""
    if module.hlo is None:
        return {}
    try:
        return parse_hlo(read_text(module.hlo))
    except InputError as error:
        raise error.located(str(module.hlo)) from None


def _class(group: list[Value], made_by: dict[str, Made]) -> str:
    """What the buffer holds: loop state, a fusion's output, a parameter, a copy, ..."""
    opcodes = [made_by[v.instruction].opcode for v in group if v.instruction in made_by]
    if not opcodes:
        return DEFAULT_CLASS
    if "while" in opcodes or any(v.phi for v in group):
        return "loop-state"
    return CLASSES.get(opcodes[0], OTHER_CLASS)


def _request(
    group: list[Value],
    start: int,
    end: int,
    alignment: int,
    made_by: dict[str, Made],
    cls: str | None = None,
) -> tuple[tuple[int, int], Request, int]:
    """One buffer's request (named after its first value), its sort key and XLA's offset."""
    first = group[0]
    made = made_by.get(first.instruction)
    request = Request(
        id=first.name,
        size=max(v.size for v in group),
        start=start,
        end=end,
        alignment=alignment,
        cls=cls if cls is not None else _class(group, made_by),
        label=_label(group, made),
        source=None if made is None else made.line,
    )
    return (start, first.id), request, first.offset


def _label(group: list[Value], made: Made | None) -> str:
    text = f"{group[0].shape}"
    if made is not None and made.op_name:
        text += f" {made.op_name}"
    if made is not None and made.line:
        text += f" at {made.line}"
    if len(group) > 1:
        names = ", ".join(v.name for v in group[1:4])
        more = f" and {len(group) - 4} more" if len(group) > 4 else ""
        text += f"; shares its buffer with {names}{more}"
    return text
