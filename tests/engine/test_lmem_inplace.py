"""TPU-MLIR's in-place rule (``tilefit.engine.lmem.inplace``) on a group made by hand:
an Add writing ``out`` from ``x`` (its first input) and ``y`` at timestep 1 of 3."""

from __future__ import annotations

from dataclasses import replace

from tilefit.engine.lmem.inplace import chains, in_place
from tilefit.model.lmem import Arc, LmemAllocator, Op, Step, Tensor

X = Tensor("x", 256, Arc(0, 1, 3))
Y = Tensor("y", 256, Arc(0, 1, 3))
OUT = Tensor("out", 256, Arc(1, 2, 3))


def _group(*, stored: bool = False, other_reader: bool = False) -> LmemAllocator:
    ops = [Op("out", ("x", "y"), in_place=True), Op("x", ()), Op("y", ())]
    steps = [Step(("x", "y")), Step(("out",), stores=("x",) if stored else ()), Step(())]
    if other_reader:  # a second op of the group reads x
        ops.append(Op("z", ("x",)))
        steps[2] = Step(("z",))
    return LmemAllocator(64, 1024, False, (X, Y, OUT), tuple(steps), tuple(ops))


def test_the_output_may_take_its_first_input_slot_only() -> None:
    group = _group()
    assert in_place(group, X, OUT) and in_place(group, X, OUT, source_first=False)
    assert not in_place(group, Y, OUT)  # the second input: never
    assert not in_place(group, OUT, X)  # the other way round: out writes nothing of x


def test_an_input_stored_there_counts_only_when_placed_first() -> None:
    group = _group(stored=True)
    assert not in_place(group, X, OUT)
    assert in_place(group, X, OUT, source_first=False)  # as TPU-MLIR asks it


def test_an_input_another_op_reads_is_not_given_up() -> None:
    group = _group(other_reader=True)
    assert not in_place(group, X, OUT) and not in_place(group, X, OUT, source_first=False)


def test_scratch_and_weights() -> None:
    group = _group()
    assert not in_place(group, replace(X, scratch=True), OUT)
    assert not in_place(group, X, replace(OUT, weight=True))
    assert in_place(group, replace(X, weight=True), OUT)  # asked of the later placed only
    assert not in_place(group, replace(X, weight=True), OUT, source_first=False)


def test_arcs_chain_on_the_circle() -> None:
    assert chains(Arc(0, 1, 3), Arc(1, 2, 3))
    assert not chains(Arc(0, 1, 3), Arc(2, 2, 3))  # not where the input ends
    assert not chains(Arc(1, 1, 3), Arc(1, 2, 3))  # an input of one timestep
    assert chains(Arc(2, 0, 3), Arc(0, 1, 3))  # wraps, the output ends before it starts
    assert not chains(Arc(1, 0, 3), Arc(0, 1, 3))  # the output runs into the input again
