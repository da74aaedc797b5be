"""Lifetimes on a circle: the steps of a cyclic capture's requests.

A cyclic capture (``Capture.period`` = T, equal to its horizon) takes its steps
on a circle of T steps, as a software-pipelined loop does: after step T - 1
comes step 0 again. A request with ``start < end`` lives during ``[start, end)``
as in a linear capture; one with ``start > end`` *wraps*: it lives during
``[start, T)`` and then ``[0, end)``. A request held over the whole loop is
``[0, T)``. ``start == end`` is never valid (an empty lifetime, or a full one
said ambiguously).

Either way a lifetime is one or two linear *pieces* that never share a step.
Whatever counts bytes step by step (the live bound, its windows, a profile)
may take each piece for a request of its own: ``cut_open`` gives that view.
Whatever asks whether two requests meet must ask ``Request.lives_with``, which
knows the circle. In a linear capture every lifetime is its one piece.
"""

from __future__ import annotations

from dataclasses import replace

from tilefit.model.capture import Capture, Interval, Request


def pieces(start: int, end: int, period: int) -> tuple[Interval, ...]:
    """The linear step intervals of a lifetime on a circle of ``period`` steps, in step
    order: one for a lifetime that does not wrap, ``[0, end)`` and ``[start, period)``
    for one that does."""
    if start < end:
        return ((start, end),)
    return ((0, end), (start, period))


def request_pieces(request: Request, period: int) -> tuple[Interval, ...]:
    """``pieces`` of a request's lifetime."""
    return pieces(request.start, request.end, period)


def steps(start: int, end: int, period: int) -> int:
    """How many steps a lifetime holds on a circle of ``period`` steps."""
    return end - start if start < end else period - start + end


def cut_open(capture: Capture) -> Capture:
    """The circle cut open at step 0: each wrapping request becomes its two pieces, as
    two linear requests that keep its id (both never live at one step, so no step
    sees an id twice). For step-by-step counts only: the result is not a valid capture
    (ids repeat, and the two pieces' offsets are not tied), so it never leaves the
    bounds. A capture where nothing wraps is returned as it is."""
    if not capture.wraps:
        return capture
    period = capture.horizon
    out: list[Request] = []
    for r in capture.requests:
        if r.start < r.end:
            out.append(r)
        else:
            out.append(replace(r, end=period))
            out.append(replace(r, start=0))
    return replace(capture, requests=tuple(out), sequences=(), conflicts=())
