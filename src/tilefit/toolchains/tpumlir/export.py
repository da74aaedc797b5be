"""tilefit's plans into a ``*_final.mlir``: refereed on each group's capture, written,
finished with TPU-MLIR's codegen, and run on the chip's simulator beside TPU-MLIR's own.

Each placement names its group's capture (``NAME.groupK``, ``plans.read_plans``);
nothing runs unless the referee accepts it there and it stays inside one lane's LMEM
(TPU-MLIR checks nothing of a plan: an overlapping one compiles and computes wrong
numbers). The addresses are written into the text (``rewrite``) and read back; the
final.mlir as TPU-MLIR left it and the edited one are each finished into a bmodel by
the same codegen, both run on the same inputs and every output compared bit for bit.
Banks are a preference: each group says how many of the pairs TPU-MLIR keeps apart
its plan and the new one put in a common bank.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from tilefit.model.errors import InputError
from tilefit.model.placement import Placement, placement_top
from tilefit.toolchains.base import Banks, Exported, ExportOptions, Part, RuntimeCheck, Sizes
from tilefit.toolchains.tpumlir.plans import GroupPlan, ModelPlans, read_plans
from tilefit.toolchains.tpumlir.rewrite import with_addresses, written_addresses
from tilefit.toolchains.tpumlir.simulate import codegen, seeded_inputs, simulate, weights_of
from tilefit.toolchains.tpumlir.tools import Venv, find_venv


def export_plans(final: Path, placements: Sequence[Placement], options: ExportOptions) -> Exported:
    """The model's bmodel with the placements as its groups' LMEM plans; InputError when
    one may not be written (before any TPU-MLIR tool runs)."""
    model = read_plans(final)
    given = accepted(model, placements)
    text = final.read_text()
    edited = write_checked(text, model, given, str(final))
    weights = weights_of(final, text)
    venv = _venv(options.venv)
    try:
        data, checked = _built_and_run(venv, weights, (text, edited), model, given, options)
    except InputError as error:  # a tool's failure names the venv: never the placement's file
        raise (error if error.source else InputError("", error.rule, error.place)) from None
    parts = tuple(_part(model, i, given.get(i)) for i in range(len(model.groups)))
    requests = sum(len(g.capture.requests) for g in model.groups)
    return Exported(
        data, sum(p.before for p in parts), sum(p.after for p in parts), requests, checked, parts
    )


def _built_and_run(
    venv: Venv,
    weights: Path,
    texts: tuple[str, str],
    model: ModelPlans,
    given: dict[int, Placement],
    options: ExportOptions,
) -> tuple[bytes, RuntimeCheck | None]:
    """Both final.mlir texts (TPU-MLIR's, tilefit's) finished by codegen and, unless told
    not to, run on the simulator on the same inputs: tilefit's bmodel and the comparison."""
    text, edited = texts
    with tempfile.TemporaryDirectory(prefix="tilefit-tpumlir-") as folder:
        work = Path(folder)
        (work / weights.name).symlink_to(weights.resolve())
        options.watch.stage("tpuc-opt --codegen: TPU-MLIR's own plan")
        own = codegen(venv, text, work, "tpumlir")
        options.watch.stage("tpuc-opt --codegen: tilefit's plan")
        new = codegen(venv, edited, work, "tilefit")
        if not options.run:
            return new.read_bytes(), None
        inputs = Path(options.inputs).resolve() if options.inputs else seeded_inputs(text, work)
        options.watch.stage("model_runner: both bmodels on the chip's simulator")
        before, after = simulate(venv, own, inputs, work), simulate(venv, new, inputs, work)
        tops = Sizes(_tops(model, {}), _tops(model, given))
        return new.read_bytes(), RuntimeCheck(tops, None, 1, before.same(after), before.varies)


def accepted(model: ModelPlans, placements: Sequence[Placement]) -> dict[int, Placement]:
    """Each placement by its group's index, once the referee accepts it on the group's
    capture and it stays inside the chip's LMEM."""
    from tilefit.toolchains.tpumlir import TOOLCHAIN

    by_name = {g.capture.name: i for i, g in enumerate(model.groups)}
    given: dict[int, Placement] = {}
    for placement in placements:
        index = by_name.get(placement.capture)
        if index is None:
            raise InputError(
                "capture",
                f"names {placement.capture}, not a group of {model.stem} (its groups: "
                f"{', '.join(by_name)}): a placement of another model?",
            )
        if index in given:
            raise InputError("capture", f"two placements of {placement.capture}: give one")
        if dict(placement.offsets) == dict(model.groups[index].own.offsets):
            continue  # TPU-MLIR's own plan, as it wrote it: nothing to change or referee
        capture = model.groups[index].capture
        TOOLCHAIN.accept(capture, placement, placement.capture)
        top = placement_top(capture, placement.offsets)
        if top > model.chip.lmem_bytes:
            raise InputError(
                "offsets",
                f"reaches {top:,} B, past the chip's LMEM of {model.chip.lmem_bytes:,} B a lane",
            )
        given[index] = placement
    clash = model.clashes(given)
    if clash:
        raise InputError(
            "offsets", f"{clash[0]}" + (f" ({len(clash)} such)" if len(clash) > 1 else "")
        )
    return given


def write_checked(text: str, model: ModelPlans, given: dict[int, Placement], where: str) -> str:
    """The text with the plans written, each read back as written (the writer's own word)."""
    edited = with_addresses(text, model, given)
    for index, placement in given.items():
        if written_addresses(edited, index) != dict(placement.offsets):
            raise InputError(
                "",
                f"group {index} as written does not carry the plan given: nothing written",
                where,
            )
    return edited


def _part(model: ModelPlans, index: int, placement: Placement | None) -> Part:
    plan = model.groups[index]
    new = plan.own if placement is None else placement
    before, after = _top(plan, None), _top(plan, placement)
    banks = Banks(len(plan.pairs), plan.broken(plan.own), plan.broken(new))
    return Part(plan.capture.name, len(plan.capture.requests), before, after, banks)


def _top(plan: GroupPlan, placement: Placement | None) -> int:
    """The LMEM a group's plan uses: TPU-MLIR's as it counts it (its highest end, as the
    import says), tilefit's the placement's top."""
    if placement is None or dict(placement.offsets) == dict(plan.own.offsets):
        return plan.heap
    return placement_top(plan.capture, placement.offsets)


def _tops(model: ModelPlans, given: dict[int, Placement]) -> int:
    return sum(_top(g, given.get(i)) for i, g in enumerate(model.groups))


def ready(options: ExportOptions) -> None:
    """Nothing when TPU-MLIR's venv is there to export with; one line naming it otherwise."""
    _venv(options.venv)


def _venv(given: str | None) -> Venv:
    """TPU-MLIR's venv; a missing or broken one is one line naming it, never relocated to
    the placement's file."""
    try:
        return find_venv(given)
    except InputError as error:
        raise InputError("", error.rule, error.place or "--tpumlir-venv") from None
