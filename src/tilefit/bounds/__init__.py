"""Bounds: what no placement can beat, from the capture alone (numpy, never the search).

``live`` (the one sweep of live bytes and its peak), ``aligned`` (the padding
alignment forces between live requests), ``columns`` (bytes live per allowed set,
and their unions), ``overload`` (every overloaded step and window, and what must
leave each), ``pieces`` (stretches too short for a request do not count for it),
``deficit`` (all of them as one ``BoundReport``) and ``top`` (the least memory
top's lower side). The verdicts and the search both stand on them.
"""
