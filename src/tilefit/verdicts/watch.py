"""What a long verdict says while it works, to whoever watches (``diagnose``, ``solve``).

A ``Watch`` hears the stages of the work as they begin (with the moment each must end
by, on the monotonic clock) and, while the lowest top is searched, the bracket that
holds it. The verdicts tell it; what it does with that is its own: ``QUIET`` does
nothing, and ``tilefit diagnose`` and ``tilefit solve`` draw one line on a terminal
(``tilefit.cli.progress``). The search itself reports nothing: its members run in
other processes, and the stages and their deadlines are the parent's own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager


class Watch:
    """Hears the work's progress; this one ignores it (``QUIET``)."""

    def stage(self, text: str, deadline: float | None = None) -> None:
        """A stage begins (``text``: what runs), to end by ``deadline`` (monotonic)."""

    def bracket(self, lower: int, best: int, probing: int | None = None) -> None:
        """The lowest top lies in ``[lower, best]``; ``probing`` is the top asked now."""

    def pause(self) -> None:
        """Something else may write to the terminal now (the one-time compilation's
        lines): stay silent until the next stage."""


QUIET = Watch()


def search_stage(workers: int | None) -> str:
    """The stage of the search portfolio (``tilefit.search.portfolio``): its two members,
    racing in two processes, or with one worker in turns in this one."""
    count = workers if workers is not None else min(2, os.cpu_count() or 1)
    how = "racing" if count >= 2 else "in turns"
    return f"search: placements (find) and proofs (prove) {how}"


COMPILING = "compiling the search kernels once"


def compile_stage(watch: Watch) -> Callable[[], AbstractContextManager[object]]:
    """What ``tilefit.search.compiling.ensure_compiled`` runs a compilation inside: a stage
    of ``watch`` without a deadline (its line counts the seconds), paused after, before
    the compilation's own line says how long it took."""

    @contextmanager
    def stage() -> Iterator[None]:
        watch.stage(COMPILING)
        try:
            yield
        finally:
            watch.pause()

    return stage
