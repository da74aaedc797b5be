"""TFLM's planning reproduced without its runtime: the lifetimes and GreedyMemoryPlanner.

The planner's order and first fit are checked against hand-worked cases and,
on random buffers, against the rule it follows (no two buffers live together
share a byte; each online buffer at the lowest offset clear of those placed
before it). The runtime checks the same code in test_tflm_runtime.py.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.toolchains.tflm.arena import ONLINE, Buffer, planned
from tilefit.toolchains.tflm.graph import Graph, Operator, Subgraph, Tensor
from tilefit.toolchains.tflm.greedy import greedy_offsets, head


def _tensor(index: int, size: int = 16, constant: bool = False) -> Tensor:
    return Tensor(index, f"t{index}", (size,), "INT8", size, constant, False)


def _buffer(index: int, size: int, first: int, last: int, offline: int = ONLINE) -> Buffer:
    return Buffer(0, _tensor(index, size), size, first, last, offline, None)


def test_largest_first_and_equal_sizes_in_reverse_of_the_order_added() -> None:
    buffers = [_buffer(0, 32, 0, 1), _buffer(1, 32, 0, 1), _buffer(2, 64, 0, 1)]
    # 64 first at 0; then the two of 32, the later one first (the planner's tail order)
    assert greedy_offsets(buffers) == [96, 64, 0]


def test_offline_buffers_keep_their_offsets_and_the_rest_fit_around() -> None:
    buffers = [_buffer(0, 16, 0, 3), _buffer(1, 32, 0, 3, offline=48), _buffer(2, 48, 1, 2)]
    offsets = greedy_offsets(buffers)
    assert offsets[1] == 48
    assert offsets == [80, 48, 0]
    assert head(buffers, offsets) == 96


def test_buffers_not_live_together_share_addresses() -> None:
    buffers = [_buffer(0, 64, 0, 1), _buffer(1, 64, 2, 3), _buffer(2, 16, 1, 2)]
    # lifetimes are inclusive: 0 and 2 meet at scope 1, 1 and 2 at scope 2
    assert greedy_offsets(buffers) == [0, 0, 64]


@st.composite
def _buffers(draw: st.DrawFn) -> list[Buffer]:
    count = draw(st.integers(1, 12))
    out = []
    for i in range(count):
        first = draw(st.integers(0, 8))
        last = draw(st.integers(first, 9))
        out.append(_buffer(i, 16 * draw(st.integers(1, 6)), first, last))
    return out


@settings(max_examples=200, deadline=None)
@given(_buffers())
def test_greedy_places_each_buffer_at_the_lowest_offset_clear_of_those_before(
    buffers: list[Buffer],
) -> None:
    offsets = greedy_offsets(buffers)
    order = sorted(range(len(buffers)), key=lambda i: (-buffers[i].size, -i))
    for rank, i in enumerate(order):
        before = [j for j in order[:rank] if _together(buffers[i], buffers[j])]
        clear = [
            o
            for o in range(0, 16 * 6 * 13, 16)
            if all(
                o + buffers[i].size <= offsets[j] or offsets[j] + buffers[j].size <= o
                for j in before
            )
        ]
        assert offsets[i] == clear[0]


def _together(a: Buffer, b: Buffer) -> bool:
    return not (a.first > b.last or b.first > a.last)


def _graph(subgraphs: list[Subgraph]) -> Graph:
    return Graph(tuple(subgraphs), None)


def _op(
    index: int, code: str, inputs: tuple[int, ...], outputs: tuple[int, ...], calls=()
) -> Operator:  # type: ignore[no-untyped-def]
    return Operator(index, code, inputs, outputs, (), tuple(calls))


def test_lifetimes_on_the_scope_axis_with_a_called_subgraph() -> None:
    # subgraph 0: in(0) -> op0 CALL_ONCE (calls 1) ; op1 ADD(0, const 3) -> 1 ; op2 -> 2 (output)
    main = Subgraph(
        0,
        "main",
        (_tensor(0), _tensor(1), _tensor(2), _tensor(3, constant=True)),
        (
            _op(0, "CALL_ONCE", (), (), calls=(1,)),
            _op(1, "ADD", (0, 3), (1,)),
            _op(2, "TANH", (1,), (2,)),
        ),
        (0,),
        (2,),
    )
    init = Subgraph(1, "init", (_tensor(0), _tensor(1)), (_op(0, "TANH", (0,), (1,)),), (0,), (1,))
    found = {
        (b.subgraph, b.tensor.index): (b.first, b.last) for b in planned(_graph([main, init]), "m")
    }
    # scope 0: main's input; 1: CALL_ONCE; 2: init entered (its input), 3: init's TANH;
    # 4: ADD; 5: TANH, and main's output lives to the last scope
    assert found == {
        (0, 0): (0, 4),
        (0, 1): (4, 5),
        (0, 2): (5, 5),
        (1, 0): (2, 3),
        (1, 1): (3, 3),
    }


def test_constants_variables_empty_tensors_and_resource_handles_are_not_planned() -> None:
    variable = Tensor(2, "state", (4,), "INT8", 4, False, True)
    empty = Tensor(3, "none", (0,), "INT8", 0, False, False)
    handle = Tensor(4, "handle", (1,), "RESOURCE", 4, False, False)
    graph = _graph(
        [
            Subgraph(
                0,
                "main",
                (_tensor(0), _tensor(1, constant=True), variable, empty, handle, _tensor(5)),
                (_op(0, "VAR_HANDLE", (), (4,)), _op(1, "ADD", (0, 1, 2, 4), (5,))),
                (0,),
                (5,),
            )
        ]
    )
    assert [b.tensor.index for b in planned(graph, "m")] == [0, 5]


def test_sizes_are_rounded_up_to_16() -> None:
    graph = _graph(
        [
            Subgraph(
                0, "m", (_tensor(0, 5), _tensor(1, 17)), (_op(0, "TANH", (0,), (1,)),), (0,), (1,)
            )
        ]
    )
    assert [b.size for b in planned(graph, "m")] == [16, 32]
