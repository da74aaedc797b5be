"""Real architectures through ExecuTorch: greedy's arena, the bound, tilefit's, and the runtime.

Run from the repository root, in a venv with the executorch extra (not the
main one: it brings torch):

    python3 -m venv .venv-executorch
    .venv-executorch/bin/pip install -e '.[executorch,test]'
    .venv-executorch/bin/python benchmarks/executorch_models.py

Options: `--models a,b` (default: all), `--flows default,constprop`,
`--time-limit S` (seconds of search per arena, default 10), `--captures DIR`
(the planner's captures of every model), `--record DIR` (each program's
spec list, `NAME.executorch.json`, as the tests read them).

Every model is built in code with random weights (seeded), exported with
`torch.export`, lowered with `to_edge` (flow `default`) or `to_edge` then
`constant_prop_pass` (flow `constprop`), and made an ExecuTorch program three
times: with ExecuTorch's own planner (the default `MemoryPlanningPass`,
greedy), with tilefit's (`planner()` from `tilefit.toolchains.executorch`),
and with a broken plan (every tensor of arena 1 at offset 0). Per model and
flow: the specs planned, greedy's arena 1, the live lower bound, tilefit's
arena 1 and whether it is proven minimal, the planner's seconds, whether
ExecuTorch's own verifier (`Verifier.verify_storage_reuse`) accepts tilefit's
plan, and whether ExecuTorch's runtime gives outputs `torch.equal` to
greedy's with tilefit's plan (over 3 invocations on the same seeded inputs)
while the broken plan changes them (so that the comparison can fail).
Exit 1 if a check fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __name__ == "__main__" and not all(
    importlib.util.find_spec(m) for m in ("torch", "executorch")
):  # one line, not a traceback
    print(
        "benchmarks/executorch_models.py needs executorch and torch: "
        "pip install 'tilefit[executorch]'",
        file=sys.stderr,
    )
    raise SystemExit(2)

import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
INVOCATIONS = 3


# ---------------------------------------------------------------- models


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    def __init__(self, classes: int = 1000) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, 2, 3, bias=False),
            nn.BatchNorm2d(64),
            nn.ReLU(),
            nn.MaxPool2d(3, 2, 1),
        )
        layers: list[nn.Module] = []
        cin = 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.layers(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = cin * expand
        parts: list[nn.Module] = []
        if expand != 1:
            parts += [nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6()]
        parts += [
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
        ]
        self.body = nn.Sequential(*parts)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        return x + y if self.residual else y


class MobileNetV2(nn.Module):
    SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1))
    LATE = ((6, 160, 3, 2), (6, 320, 1, 1))

    def __init__(self, classes: int = 1000) -> None:
        super().__init__()
        parts: list[nn.Module] = [
            nn.Conv2d(3, 32, 3, 2, 1, bias=False),
            nn.BatchNorm2d(32),
            nn.ReLU6(),
        ]
        cin = 32
        for t, c, n, s in self.SETTINGS + self.LATE:
            for i in range(n):
                parts.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        parts += [nn.Conv2d(cin, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU6()]
        self.features = nn.Sequential(*parts)
        self.classifier = nn.Linear(1280, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = nn.functional.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(y, 1))


def _double(cin: int, cout: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, 1, 1),
        nn.BatchNorm2d(cout),
        nn.ReLU(),
        nn.Conv2d(cout, cout, 3, 1, 1),
        nn.BatchNorm2d(cout),
        nn.ReLU(),
    )


class UNet(nn.Module):
    """A four-level UNet (16-128 channels) with skip connections, 128x128 input."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = width
        self.d1, self.d2, self.d3 = _double(3, w), _double(w, 2 * w), _double(2 * w, 4 * w)
        self.mid = _double(4 * w, 8 * w)
        self.u3 = nn.ConvTranspose2d(8 * w, 4 * w, 2, 2)
        self.c3 = _double(8 * w, 4 * w)
        self.u2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, 2)
        self.c2 = _double(4 * w, 2 * w)
        self.u1 = nn.ConvTranspose2d(2 * w, w, 2, 2)
        self.c1 = _double(2 * w, w)
        self.out = nn.Conv2d(w, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pool = nn.functional.max_pool2d
        a = self.d1(x)
        b = self.d2(pool(a, 2))
        c = self.d3(pool(b, 2))
        m = self.mid(pool(c, 2))
        y = self.c3(torch.cat([self.u3(m), c], 1))
        y = self.c2(torch.cat([self.u2(y), b], 1))
        y = self.c1(torch.cat([self.u1(y), a], 1))
        return self.out(y)


class EncoderLayer(nn.Module):
    def __init__(self, dim: int, heads: int, ff: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.n1, self.n2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, ff), nn.GELU(), nn.Linear(ff, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self.n1(x)).split(d, dim=-1)
        shape = (b, s, self.heads, d // self.heads)
        q, k, v = (t.reshape(shape).transpose(1, 2) for t in (q, k, v))
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.ff(self.n2(x))


class Encoder(nn.Module):
    """A transformer encoder: 4 layers, width 256, 4 heads, feed-forward 1024."""

    def __init__(self, dim: int = 256, layers: int = 4) -> None:
        super().__init__()
        self.layers = nn.Sequential(*(EncoderLayer(dim, 4, 4 * dim) for _ in range(layers)))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.layers(x))


class RMSNorm(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class CachedAttention(nn.Module):
    """Self-attention over a KV cache (mutable buffers), one new token per call."""

    def __init__(self, dim: int, heads: int, context: int) -> None:
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.q, self.k, self.v = (nn.Linear(dim, dim, bias=False) for _ in range(3))
        self.o = nn.Linear(dim, dim, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, heads, context, self.hd))
        self.register_buffer("v_cache", torch.zeros(1, heads, context, self.hd))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        shape = (1, 1, self.heads, self.hd)
        q = self.q(x).view(shape).transpose(1, 2)
        k = self.k(x).view(shape).transpose(1, 2)
        v = self.v(x).view(shape).transpose(1, 2)
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        keys = torch.arange(self.k_cache.shape[2]) <= pos
        mask = torch.where(keys, 0.0, float("-inf"))
        att = torch.softmax(q @ self.k_cache.transpose(-1, -2) / self.hd**0.5 + mask, dim=-1)
        y = (att @ self.v_cache).transpose(1, 2).reshape(1, 1, -1)
        return self.o(y)


class KVStep(nn.Module):
    """One decode step of one attention layer over a 512-token KV cache (width 512)."""

    def __init__(self, dim: int = 512, context: int = 512) -> None:
        super().__init__()
        self.att = CachedAttention(dim, 8, context)
        self.norm = RMSNorm(dim)

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        return x + self.att(self.norm(x), pos)


class DecoderLayer(nn.Module):
    def __init__(self, dim: int, context: int) -> None:
        super().__init__()
        self.n1, self.n2 = RMSNorm(dim), RMSNorm(dim)
        self.att = CachedAttention(dim, 4, context)
        self.gate = nn.Linear(dim, 3 * dim, bias=False)
        self.up = nn.Linear(dim, 3 * dim, bias=False)
        self.down = nn.Linear(3 * dim, dim, bias=False)

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        x = x + self.att(self.n1(x), pos)
        h = self.n2(x)
        return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))


class TinyLLM(nn.Module):
    """A small LLM's decode step: embedding (vocabulary 2048), 4 decoder layers of width 256
    over a 256-token KV cache each, RMSNorm, SwiGLU, and the logits."""

    def __init__(self, vocab: int = 2048, dim: int = 256, layers: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(DecoderLayer(dim, 256) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, token: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        x = self.embed(token)
        for layer in self.layers:
            x = layer(x, pos)
        return self.head(self.norm(x))


class KeywordCNN(nn.Module):
    """DS-CNN keyword spotting (Hello Edge, the S model): 49x10 MFCC in, 12 classes."""

    def __init__(self, width: int = 64, classes: int = 12) -> None:
        super().__init__()
        parts: list[nn.Module] = [
            nn.Conv2d(1, width, (10, 4), (2, 2), (5, 1)),
            nn.BatchNorm2d(width),
            nn.ReLU(),
        ]
        for _ in range(4):
            parts += [
                nn.Conv2d(width, width, 3, 1, 1, groups=width),
                nn.BatchNorm2d(width),
                nn.ReLU(),
                nn.Conv2d(width, width, 1),
                nn.BatchNorm2d(width),
                nn.ReLU(),
            ]
        self.features = nn.Sequential(*parts)
        self.fc = nn.Linear(width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = nn.functional.adaptive_avg_pool2d(self.features(x), 1)
        return self.fc(torch.flatten(y, 1))


Inputs = Callable[[int], tuple[Any, ...]]  # invocation -> the inputs


def _images(shape: tuple[int, ...]) -> Inputs:
    def make(k: int) -> tuple[Any, ...]:
        return (torch.randn(*shape, generator=torch.Generator().manual_seed(100 + k)),)

    return make


def _decode(width: int) -> Inputs:
    def make(k: int) -> tuple[Any, ...]:
        x = torch.randn(1, 1, width, generator=torch.Generator().manual_seed(100 + k))
        return (x, torch.tensor([k]))

    return make


def _tokens(k: int) -> tuple[Any, ...]:
    return (torch.tensor([[7 + 31 * k]]), torch.tensor([k]))


# name -> (what it is, the module, its inputs)
MODELS: dict[str, tuple[str, Callable[[], nn.Module], Inputs]] = {
    "resnet18": ("ResNet-18, 224 px", ResNet18, _images((1, 3, 224, 224))),
    "resnet18_96": ("ResNet-18, 96 px", ResNet18, _images((1, 3, 96, 96))),
    "mobilenet_v2_96": ("MobileNetV2, 96 px", MobileNetV2, _images((1, 3, 96, 96))),
    "mobilenet_v2_224": ("MobileNetV2, 224 px", MobileNetV2, _images((1, 3, 224, 224))),
    "unet": ("UNet, 4 levels, 128 px", UNet, _images((1, 3, 128, 128))),
    "encoder_32": ("transformer encoder, sequence 32", Encoder, _images((1, 32, 256))),
    "encoder_256": ("transformer encoder, sequence 256", Encoder, _images((1, 256, 256))),
    "kv_decode": ("KV-cache decode step (512 tokens)", KVStep, _decode(512)),
    "tiny_llm": ("small LLM decode step (4 layers)", TinyLLM, _tokens),
    "kws_dscnn": ("keyword-spotting DS-CNN", KeywordCNN, _images((1, 1, 49, 10))),
}
FLOWS = ("default", "constprop")


# ---------------------------------------------------------------- the flow


def build(name: str) -> tuple[nn.Module, Inputs]:
    torch.manual_seed(0)
    _, make, inputs = MODELS[name]
    model = make().eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)  # inference: in-place cache updates need it
    return model, inputs


def edge_program(model: nn.Module, inputs: Inputs, flow: str) -> Any:
    from executorch.exir import to_edge
    from torch.export import export

    edge = to_edge(export(model, inputs(0)))
    if flow == "constprop":
        from executorch.exir.passes.constant_prop_pass import constant_prop_pass

        edge._edge_programs["forward"] = constant_prop_pass(edge.exported_program())
    return edge


def lower(model: nn.Module, inputs: Inputs, flow: str, algo: Any) -> Any:
    """The ExecuTorch program, planned by ``algo`` (None: ExecuTorch's default)."""
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir.passes import MemoryPlanningPass

    planning = (
        MemoryPlanningPass() if algo is None else MemoryPlanningPass(memory_planning_algo=algo)
    )
    config = ExecutorchBackendConfig(memory_planning_pass=planning)
    return edge_program(model, inputs, flow).to_executorch(config)


def run(program: Any, inputs: Inputs) -> list[list[torch.Tensor]]:
    """Every output of INVOCATIONS invocations of one loaded method, copied out."""
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(program.buffer).load_method("forward")
    return [[t.clone() for t in method.execute(list(inputs(k)))] for k in range(INVOCATIONS)]


def same(a: list[list[torch.Tensor]], b: list[list[torch.Tensor]]) -> bool:
    return len(a) == len(b) and all(
        len(x) == len(y) and all(torch.equal(s, t) for s, t in zip(x, y, strict=True))
        for x, y in zip(a, b, strict=True)
    )


def broken(alignment: int, specs: Any, gm: Any, gs: Any, extra_padding: int = 0) -> list[int]:
    """ExecuTorch's greedy, then every tensor of arena 1 moved to offset 0."""
    from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite

    sizes: list[int] = MemoryPlanningAlgorithmSuite()(alignment, specs, gm, gs, extra_padding)
    for spec in specs:
        if spec.mem_id == 1:
            spec.mem_offset = 0
    return sizes


def verified(program: Any) -> bool:
    """ExecuTorch's own verifier on the plan: no two live tensors share bytes."""
    from executorch.exir.memory_planning import Verifier

    ep = program.exported_program()
    Verifier(ep.graph_module, True, True, True, ep.graph_signature).verify_storage_reuse()
    return True


@dataclass(frozen=True)
class Row:
    model: str
    flow: str
    specs: int
    greedy: int  # arena 1 as ExecuTorch's greedy sizes it
    lower: int  # the live lower bound of arena 1's plan
    ours: int  # arena 1 with tilefit's plan
    proven: bool
    seconds: float  # the planner's, all arenas
    verified: bool  # ExecuTorch's verifier accepts tilefit's plan
    identical: bool  # runtime outputs equal to greedy's, torch.equal
    broken_differs: bool  # the broken plan's outputs differ from greedy's
    warnings: int

    @property
    def ok(self) -> bool:
        return (
            self.lower <= self.ours <= self.greedy
            and self.verified
            and self.identical
            and self.broken_differs
        )


def measure(
    name: str, flow: str, time_limit: float, captures: Path | None, record: Path | None
) -> Row:
    from tilefit.toolchains.executorch import planner
    from tilefit.toolchains.executorch.specs import SUFFIX, program_text

    model, inputs = build(name)
    greedy = lower(model, inputs, flow, None)
    greedy_sizes = greedy.exported_program().graph_module.meta["non_const_buffer_sizes"]
    folder = None if captures is None else captures / f"{name}.{flow}"
    ours = planner(time_limit=time_limit, captures=folder, name=f"{name}.{flow}")
    tilefit = lower(model, inputs, flow, ours)
    sizes = tilefit.exported_program().graph_module.meta["non_const_buffer_sizes"]
    report = ours.reports[-1]
    if record is not None:
        record.mkdir(parents=True, exist_ok=True)
        (record / f"{name}.{flow}{SUFFIX}").write_text(program_text(report.program))
    arena = next(a for a in report.plan.arenas if a.mem_id == 1)
    before = run(greedy, inputs)
    after = run(tilefit, inputs)
    wrong = run(lower(model, inputs, flow, broken), inputs)
    return Row(
        model=name,
        flow=flow,
        specs=len(report.program.specs),
        greedy=int(greedy_sizes[1]),
        lower=arena.lower_bound + arena.reserved + report.program.extra_padding,
        ours=int(sizes[1]),
        proven=arena.proven,
        seconds=sum(a.seconds for r in ours.reports for a in r.plan.arenas),
        verified=verified(tilefit),
        identical=same(before, after),
        broken_differs=not same(before, wrong),
        warnings=sum(len(r.warnings) for r in ours.reports),
    )


def table(rows: list[Row]) -> list[str]:
    out = [
        "| model | flow | specs | greedy arena 1 | live bound | tilefit arena 1 | saved | proven "
        "| seconds | verifier | outputs equal | broken plan differs |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        saved = r.greedy - r.ours
        share = f"{saved:,} ({100.0 * saved / r.greedy:.1f}%)" if saved else "0"
        out.append(
            f"| {r.model} | {r.flow} | {r.specs} | {r.greedy:,} | {r.lower:,} | {r.ours:,} "
            f"| {share} | {'yes' if r.proven else 'no'} | {r.seconds:.1f} "
            f"| {'yes' if r.verified else 'NO'} | {'yes' if r.identical else 'NO'} "
            f"| {'yes' if r.broken_differs else 'NO'} |"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--flows", default=",".join(FLOWS))
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--captures", type=Path, default=None)
    parser.add_argument("--record", type=Path, default=None)
    args = parser.parse_args(argv)
    from importlib.metadata import version as installed

    warnings.filterwarnings("ignore", category=UserWarning, module=r"executorch\.")
    warnings.filterwarnings("ignore", category=FutureWarning)
    names = [m for m in args.models.split(",") if m]
    flows = [f for f in args.flows.split(",") if f]
    for name in names:
        if name not in MODELS:
            parser.error(f"unknown model {name} (known: {', '.join(MODELS)})")
    version = installed("executorch")
    print(
        f"# executorch {version}, torch {torch.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}; search {args.time_limit:g} s per arena"
    )
    rows: list[Row] = []
    began = time.monotonic()
    for name in names:
        for flow in flows:
            started = time.monotonic()
            row = measure(name, flow, args.time_limit, args.captures, args.record)
            rows.append(row)
            print(
                f"{name} {flow}: greedy {row.greedy:,}, bound {row.lower:,}, tilefit {row.ours:,}"
                f"{' (proven)' if row.proven else ''}; verifier {row.verified}, equal "
                f"{row.identical}, broken differs {row.broken_differs} "
                f"({time.monotonic() - started:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    print("\n".join(table(rows)))
    print(f"\n{len(rows)} programs in {time.monotonic() - began:.0f} s")
    failed = [r for r in rows if not r.ok]
    for r in failed:
        print(f"FAILED: {r.model} {r.flow}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
