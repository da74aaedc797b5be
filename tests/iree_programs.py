"""Small programs for IREE's tests, written by the tests themselves, and IREE's own
layout pass run by iree-opt on a pack of slices (the oracle of the packer's tests)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

import pytest

from tilefit.toolchains.iree.compiler import tool
from tilefit.toolchains.iree.packs import Slice

# Two matmuls, a tanh and adds: one transient pack of three slices, one external result.
SMALL = """func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = stablehlo.tanh %0 : tensor<64x64xf32>
  %2 = stablehlo.dot %1, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %3 = stablehlo.add %2, %0 : tensor<64x64xf32>
  %4 = stablehlo.dot %3, %1 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %5 = stablehlo.add %4, %a : tensor<64x64xf32>
  return %5 : tensor<64x64xf32>
}
"""


# A chain of matmuls of different widths with skips: a pack whose greedy slab is above
# the live bound (the sizes make IREE's lifetime-order packing leave a hole).
def chain(widths: Sequence[int]) -> str:
    """A program of matmuls ``x @ w_i`` through the widths given, each result added to
    the one two before it where their widths match: values of several sizes and lives."""
    lines = [f"func.func @main(%x: tensor<32x{widths[0]}xf32>) -> tensor<32x{widths[-1]}xf32> {{"]
    names = ["%x"]
    for i, (a, b) in enumerate(pairwise(widths)):
        lines.append(f"  %w{i} = stablehlo.constant dense<0.{i + 1}> : tensor<{a}x{b}xf32>")
        lines.append(
            f"  %m{i} = stablehlo.dot %{names[-1][1:]}, %w{i} : "
            f"(tensor<32x{a}xf32>, tensor<{a}x{b}xf32>) -> tensor<32x{b}xf32>"
        )
        lines.append(f"  %t{i} = stablehlo.tanh %m{i} : tensor<32x{b}xf32>")
        value = f"%t{i}"
        if i >= 2 and widths[i - 1] == b:
            lines.append(f"  %s{i} = stablehlo.add %t{i}, {names[-2]} : tensor<32x{b}xf32>")
            value = f"%s{i}"
        names.append(value)
    lines.append(f"  return {names[-1]} : tensor<32x{widths[-1]}xf32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


DYNAMIC = """func.func @main(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  %1 = stablehlo.tanh %0 : tensor<?x64xf32>
  %2 = stablehlo.dot %1, %b : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  %3 = stablehlo.add %2, %0 : tensor<?x64xf32>
  return %3 : tensor<?x64xf32>
}
"""


def needs_iree() -> None:
    try:
        tool("iree-compile")
    except Exception:
        pytest.skip("IREE's compiler is not installed (pip install 'tilefit[iree]')")


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def iree_layout(slices: Sequence[Slice], alignment: int) -> tuple[int, list[int]]:
    """IREE's own layout pass (iree-opt) on these slices: the slab and each offset."""
    count = len(slices) + 1
    config = (
        "#stream.resource_config<{max_allocation_size = 4294967296, "
        f"min_buffer_offset_alignment = {alignment}, max_buffer_range = 4294967296, "
        f"min_buffer_range_alignment = {alignment}, index_bits = 64}}>"
    )
    results = ", ".join(["index"] * count)
    lines = [f"util.func public @p() -> ({results}) attributes {{stream.resources = {config}}} {{"]
    lines += [f"  %z{i} = arith.constant {s.size} : index" for i, s in enumerate(slices)]
    lines.append(f"  %t:{count} = stream.resource.pack slices({{")
    lines += [f"    [{s.first}, {s.last}] = %z{i}," for i, s in enumerate(slices)]
    lines[-1] = lines[-1].rstrip(",")
    lines.append("  }) : index")
    lines.append(f"  util.return {', '.join(f'%t#{i}' for i in range(count))} : {results}")
    lines.append("}")
    done = subprocess.run(
        [
            tool("iree-opt"),
            "--pass-pipeline=builtin.module(util.func(iree-stream-layout-slices, canonicalize))",
            "-",
        ],
        input="\n".join(lines),
        capture_output=True,
        text=True,
        check=True,
    )
    constants = dict(re.findall(r"(%\w+) = arith\.constant (\d+) : index", done.stdout))
    returned = re.search(r"util\.return ([^:]*):", done.stdout)
    assert returned is not None, done.stdout
    values = [int(constants[v.strip()]) for v in returned.group(1).split(",")]
    return values[0], values[1:]


def two_functions() -> str:
    """Two public functions, each with a transient pack of its own."""
    first = chain([64, 256, 64, 512, 64]).replace("@main", "@first")
    second = chain([64, 128, 64, 1024, 64]).replace("@main", "@second")
    return f"module {{\n{first}{second}}}\n"
