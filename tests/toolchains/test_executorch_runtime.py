"""ExecuTorch end to end: tilefit plans inside MemoryPlanningPass, ExecuTorch's runtime runs it.

Needs the executorch extra (torch and executorch; ``bash .ci/executorch``
installs them in ``.venv-executorch``); skipped without it. Each runtime
test compares the runtime's outputs with tilefit's plan to those with
ExecuTorch's greedy plan (``torch.equal``), and shows on the same program
that a broken plan changes them, so that the comparison can fail.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

pytest.importorskip(
    "executorch", reason="executorch is not installed: pip install 'tilefit[executorch]'"
)

import torch
from torch import nn

sys.path.insert(0, str(ROOT / "benchmarks"))
from executorch_models import TinyLLM, broken, lower, run, same

from tilefit.cli import main
from tilefit.formats.load import read_capture
from tilefit.toolchains.executorch import planner, read_arenas
from tilefit.toolchains.executorch.plan import TILEFIT
from tilefit.toolchains.executorch.specs import read_program

warnings.filterwarnings("ignore", category=UserWarning, module=r"executorch\.")
warnings.filterwarnings("ignore", category=FutureWarning)


class Small(nn.Module):
    """Conv, batch norm (zero-byte outputs), ReLU, a residual add, mean, Linear (a
    transposed weight rebuilt in the arena)."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.b1(self.c1(x)))
        y = y + torch.relu(self.c2(y))
        return self.fc(y.mean((2, 3)))


def images(k: int) -> tuple[Any, ...]:
    return (torch.randn(1, 3, 24, 24, generator=torch.Generator().manual_seed(k)),)


def tokens(k: int) -> tuple[Any, ...]:
    return (torch.tensor([[3 + 5 * k]]), torch.tensor([k]))


def model(make: Any) -> nn.Module:
    torch.manual_seed(0)
    built: nn.Module = make().eval()
    for parameter in built.parameters():
        parameter.requires_grad_(False)
    return built


def arena_size(program: Any) -> int:
    return int(program.exported_program().graph_module.meta["non_const_buffer_sizes"][1])


def verify(program: Any) -> None:
    from executorch.exir.memory_planning import Verifier

    ep = program.exported_program()
    Verifier(ep.graph_module, True, True, True, ep.graph_signature).verify_storage_reuse()


def test_tilefit_plan_runs_with_greedys_outputs_and_a_broken_plan_does_not() -> None:
    small = model(Small)
    greedy = lower(small, images, "default", None)
    ours = planner(time_limit=5)
    tilefit = lower(small, images, "default", ours)
    (report,) = ours.reports
    (arena,) = report.plan.arenas
    assert arena_size(tilefit) == arena.top <= arena_size(greedy) == arena.greedy_top
    assert arena.capture is not None and arena.capture.empty  # batch norm's unused outputs
    verify(tilefit)
    before = run(greedy, images)
    assert same(before, run(tilefit, images))
    assert not same(before, run(lower(small, images, "default", broken), images))


def test_an_llm_step_drops_below_greedy_and_its_outputs_stay_equal() -> None:
    llm = model(lambda: TinyLLM(vocab=512, dim=128, layers=2))
    greedy = lower(llm, tokens, "default", None)
    ours = planner(time_limit=10)
    tilefit = lower(llm, tokens, "default", ours)
    (arena,) = ours.reports[-1].plan.arenas
    assert arena.source == TILEFIT and arena.top < arena.greedy_top
    assert arena.top == arena.lower_bound and arena.proven
    assert arena_size(tilefit) == arena.top < arena_size(greedy)
    verify(tilefit)
    before = run(greedy, tokens)  # three decode steps: the KV cache carries state
    assert same(before, run(tilefit, tokens))
    assert not same(before, run(lower(llm, tokens, "default", broken), tokens))


def test_specs_are_named_after_their_fx_nodes_and_written_back(tmp_path: Path) -> None:
    small = model(Small)
    ours = planner(time_limit=5, captures=tmp_path, name="small")
    program = lower(small, images, "default", ours)
    (report,) = ours.reports
    names = set(report.program.node_names)
    for spec in report.program.specs:
        assert spec.id.split(".")[0].split("#")[0] in names
    ops = {s.op for s in report.program.specs}
    assert "input" in ops and "aten.convolution.out" in ops
    planned = {
        id(s): s
        for n in program.exported_program().graph_module.graph.nodes
        for s in (
            n.meta.get("spec")
            if isinstance(n.meta.get("spec"), (list, tuple))
            else [n.meta.get("spec")]
        )
        if s is not None and hasattr(s, "mem_offset") and s.mem_id == 1
    }
    assert planned and all(s.mem_offset is not None for s in planned.values())
    # the folder holds what tilefit import executorch reads, and the same capture
    specs = tmp_path / "small.executorch.json"
    (imported,) = read_arenas(read_program(specs), str(specs))
    assert imported.capture == read_capture(tmp_path / "small.arena1.json")
    assert main(["import", "executorch", str(specs)]) == 0


def test_a_spec_tilefit_cannot_honour_keeps_greedys_plan_with_one_line(
    capfd: pytest.CaptureFixture[str],
) -> None:
    from executorch.exir.schema import TensorShapeDynamism

    ours = planner(time_limit=5)

    def unbound(alignment: int, specs: Any, gm: Any, gs: Any, padding: int = 0) -> list[int]:
        specs = list(specs)
        was = specs[0].shape_dynamism
        specs[0].shape_dynamism = TensorShapeDynamism.DYNAMIC_UNBOUND  # as a runtime-sized one
        try:
            return ours(alignment, specs, gm, gs, padding)
        finally:
            specs[0].shape_dynamism = was  # the program itself stays loadable

    small = model(Small)
    greedy = lower(small, images, "default", None)
    kept = lower(small, images, "default", unbound)
    (arena,) = ours.reports[-1].plan.arenas
    assert arena.source == "greedy" and arena.warning is not None
    err = [line for line in capfd.readouterr().err.splitlines() if line.startswith("tilefit:")]
    assert err == [arena.warning]
    assert "a dynamic shape without an upper bound" in err[0] and "node " in err[0]
    assert arena_size(kept) == arena_size(greedy)
    assert same(run(greedy, images), run(kept, images))


def test_banks_say_what_fits_where() -> None:
    llm = model(lambda: TinyLLM(vocab=512, dim=128, layers=2))
    probe = planner(time_limit=10)
    lower(llm, tokens, "default", probe)
    (arena,) = probe.reports[-1].plan.arenas
    banks = [arena.greedy_top, arena.top, arena.lower_bound - 1024]
    ours = planner(time_limit=10, banks=banks)
    lower(llm, tokens, "default", ours)
    verdicts = [v.verdict for v in ours.reports[-1].banks]
    assert verdicts == ["fits", "fragmentation", "capacity"]
    short = ours.reports[-1].banks[-1]
    assert short.must_leave >= 1024 and short.spills and short.spills[0].tensors


def test_a_shared_allocation_sits_in_its_base_and_runs() -> None:
    """A backend's shared allocation (``_share_alloc_with_arg_idx``: the ReLU after the
    batch norm writes over its input): a storage_base ExecuTorch's greedy honours, and so
    must tilefit's plan."""
    from executorch.exir.passes import MemoryPlanningPass

    class Sharing(MemoryPlanningPass):  # type: ignore[misc]
        def run(self, graph_module: Any, graph_signature: Any = None) -> Any:
            for node in graph_module.graph.nodes:
                if node.name.startswith("aten_relu_default") and node.name.endswith("default"):
                    node.meta["_share_alloc_with_arg_idx"] = 0
                    break
            return super().run(graph_module, graph_signature)

    def lowered(algo: Any) -> Any:
        from executorch.exir import ExecutorchBackendConfig
        from executorch_models import edge_program

        planning = Sharing() if algo is None else Sharing(memory_planning_algo=algo)
        config = ExecutorchBackendConfig(memory_planning_pass=planning)
        return edge_program(model(Small), images, "default").to_executorch(config)

    greedy = lowered(None)
    ours = planner(time_limit=5)
    tilefit = lowered(ours)
    (report,) = ours.reports
    (arena,) = report.plan.arenas
    assert arena.warning is None and arena.capture is not None
    (alias,) = arena.capture.aliases
    spec = next(s for s in report.program.specs if s.id == alias)
    assert spec.base is not None and spec.op == "aten.relu.out"
    assert arena.offsets[alias] == arena.offsets[spec.base]
    verify(tilefit)
    assert same(run(greedy, images), run(tilefit, images))


def test_an_xnnpack_delegate_keeps_its_extra_padding() -> None:
    """With an XNNPACK delegate ExecuTorch adds 64 B to each arena; so does the planner."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower
    from executorch.exir.passes import MemoryPlanningPass
    from torch.export import export

    small = model(Small)

    def lowered(algo: Any) -> Any:
        planning = MemoryPlanningPass() if algo is None else MemoryPlanningPass(algo)
        edge = to_edge_transform_and_lower(
            export(small, images(0)), partitioner=[XnnpackPartitioner()]
        )
        return edge.to_executorch(ExecutorchBackendConfig(memory_planning_pass=planning))

    greedy = lowered(None)
    ours = planner(time_limit=5)
    tilefit = lowered(ours)
    (report,) = ours.reports
    assert report.program.extra_padding == 64
    (arena,) = report.plan.arenas
    assert arena_size(tilefit) == arena.top + 64 == arena_size(greedy)
    assert same(run(greedy, images), run(tilefit, images))


def test_an_internal_error_keeps_greedys_plan_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from tilefit.toolchains.executorch import hook

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a bug of tilefit's")

    monkeypatch.setattr(hook, "plan_program", failing)
    small = model(Small)
    greedy = lower(small, images, "default", None)
    kept = lower(small, images, "default", planner(time_limit=5))
    err = [line for line in capfd.readouterr().err.splitlines() if line.startswith("tilefit:")]
    assert err == [
        "tilefit: program keeps ExecuTorch's greedy plan: internal error "
        "(ValueError: a bug of tilefit's); please report it"
    ]
    assert arena_size(kept) == arena_size(greedy)
    assert same(run(greedy, images), run(kept, images))
