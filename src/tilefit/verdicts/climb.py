"""What a command asks of the decision ladder (``tilefit.verdicts.ladder``): the rung it
starts on (``Entry``) and the rest of its request (``Climb``). Apart from the ladder so
that its rungs (``tilefit.verdicts.searching``) read it without importing the ladder."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from tilefit.engine.strategy import Strategy
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.verdicts.retry import DEFAULT_FALLBACKS


class Entry(IntEnum):
    """The rung a command starts on."""

    REPLAY = 1  # diagnose: production, bounds, strategies, search, closest
    STRATEGIES = 3  # solve: strategies, search, closest
    SEARCH = 4  # solve --node-limit: the bare exact search alone


@dataclass(frozen=True)
class Climb:
    """What a command asks of the ladder (every field has the default ``diagnose`` uses)."""

    entry: Entry = Entry.REPLAY
    search: bool = True  # False: stop before the search (the closest placement still runs)
    minimize: bool = False  # the least memory top, not only a placement
    node_limit: int | None = None  # with Entry.SEARCH: the bare exact search's nodes
    fallbacks: Sequence[Strategy | str] = DEFAULT_FALLBACKS  # tried first among strategies
    workers: int | None = None  # the portfolio's processes (None: up to 2 cores)
    params: SearchParams = DEFAULT


DIAGNOSE = Climb()
"""What ``diagnose`` asks: every default."""
