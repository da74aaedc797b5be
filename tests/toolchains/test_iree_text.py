"""The reading of IREE's printed IR, without IREE: the dump's sections and its last run,
the packs and their slices, the commands that write them and their source locations,
and the offsets written back (a use %2#1 renamed, never %2#10)."""

from __future__ import annotations

from tilefit.toolchains.iree.dump import last_run, sections
from tilefit.toolchains.iree.locations import told, trailing
from tilefit.toolchains.iree.mlir import functions
from tilefit.toolchains.iree.packs import packs
from tilefit.toolchains.iree.rewrite import Written, with_offsets
from tilefit.toolchains.iree.uses import slice_uses

HEAD = "// -----// IR Dump {} LayoutSlicesPass: iree-stream-layout-slices //----- //\n"
FUNCTION = """util.func public @{name}(%arg0: !hal.buffer_view) -> !hal.buffer_view {{
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %2:12 = stream.resource.pack on(#hal.device.affinity<@__device_0>) slices({{
    [0, 1] = %c64,
    [1, 2] = %c128,
    [2, 2] = %c64,
    [2, 3] = %c64,
    [3, 4] = %c64,
    [4, 5] = %c64,
    [5, 6] = %c64,
    [6, 7] = %c64,
    [7, 8] = %c64,
    [8, 9] = %c64,
    [9, 9] = %size
  }}) : index loc("m.py":3:1)
  %r, %t = stream.resource.alloca uninitialized : !stream.resource<transient>{{%2#0}}
  %3 = stream.cmd.execute with(%r as %arg5: !stream.resource<transient>{{%2#0}}) {{
    stream.cmd.dispatch @e::@e_matmul {{
      wo %arg5[%2#1 for %c64] : !stream.resource<transient>{{%2#0}}
    }} loc(callsite("jit(f)/dot"("m.py":7:3) at "m.py":20:1))
    stream.cmd.dispatch @e::@e_add {{
      ro %arg5[%2#1 for %c64] : !stream.resource<transient>{{%2#0}},
      wo %arg5[%2#10 for %c64] : !stream.resource<transient>{{%2#0}}
    }} loc(fused["m.py":9:1, "m.py":11:1])
  }} => !stream.timepoint
  util.return %arg0 : !hal.buffer_view
}}
"""


def test_sections_of_one_function_each_are_named_by_their_text_and_the_last_run_kept() -> None:
    dump = "".join(
        HEAD.format(when) + FUNCTION.format(name=name)
        for when, name in [("Before", "a"), ("Before", "b"), ("Before", "a"), ("Before", "b")]
    )
    found = sections(dump, "x.txt")
    assert [s.function for s in found] == ["a", "b", "a", "b"]
    run = last_run(found, "Before")
    assert [(s.function, s.line) for s in run] == [
        ("a", 1 + 2 * (FUNCTION.count("\n") + 1)),
        ("b", 1 + 3 * (FUNCTION.count("\n") + 1)),
    ]


def test_a_pack_its_slices_and_who_writes_them() -> None:
    text = FUNCTION.format(name="main")
    (function,) = functions(text)
    (pack,) = packs(text, function)
    assert pack.name == "%2" and pack.lifetime == "transient" and pack.dynamic
    assert [(s.first, s.last, s.size) for s in pack.slices[:3]] == [
        (0, 1, 64),
        (1, 2, 128),
        (2, 2, 64),
    ]
    assert pack.slices[10].size is None  # %size is no constant: dynamic
    body = text[function.start : function.end]
    uses = slice_uses(body, "%2", len(pack.slices), {})
    assert (uses[0].writer, uses[0].readers) == ("dispatch e_matmul", 1)
    assert uses[0].location == "jit(f)/dot at m.py:7 called at m.py:20"
    assert (uses[9].writer, uses[9].location) == ("dispatch e_add", "m.py:9")  # fused: first
    assert uses[1].writer is None  # %2#2 is never used here (only %2#1 and %2#10 are)


def test_offsets_written_rename_each_use_exactly() -> None:
    text = FUNCTION.format(name="main")
    (function,) = functions(text)
    (pack,) = packs(text, function)
    values = tuple(range(0, 64 * 12, 64))
    written = with_offsets(text, [Written(pack, function, values)])
    assert "stream.resource.pack" not in written and "%2#" not in written
    assert "%tilefit_pack0_1 = arith.constant 64 : index" in written
    assert "wo %arg5[%tilefit_pack0_10 for %c64]" in written  # not %tilefit_pack0_1 + "0"
    assert written.count("%tilefit_pack0_0}") == text.count("%2#0}")  # every use of the slab


def test_locations() -> None:
    assert trailing('  } loc("a"("m.py":1:2))') == '"a"("m.py":1:2)'
    assert trailing("  %1 = x : index") is None
    assert (
        told(
            "#loc3",
            {"#loc3": "callsite(#loc1 at #loc2)", "#loc1": '"m.py":4:1', "#loc2": '"m.py":9:1'},
        )
        == "m.py:4 called at m.py:9"
    )
    assert told("unknown", {}) is None
