"""The search kernel's state layout: statuses, frame fields, counters, trail kinds."""

from __future__ import annotations

INF = 1 << 62

RUNNING = 0
FOUND = 1
EXHAUSTED = 2

# Frame fields (frames is flat: frame k starts at k * NF).
F_LO = 0  # the part's section range [lo, hi)
F_HI = 1
F_FOFF = 2  # frontier: (offset, rank) of the last block placed on the path
F_FRANK = 3
F_CS = 4  # candidate list cand[cs:ce], sorted by (low, rank)
F_CE = 5
F_POS = 6  # next candidate to try
F_PLEN = 7  # placed-stack height before this frame's choice
F_ROOT = 8  # 1: the first frame of a part
F_SPLIT = 9  # for a part's first frame: the frame that split it off (-1: none)
F_PEND = 10  # pending-part stack height before this frame's choice
F_MINH = 11  # dominance height
F_CHOSEN = 12  # block placed by this frame, or -1
NF = 13

# Counters.
C_TRAIL = 0
C_PLACED = 1
C_FRAMES = 2
C_PEND = 3
C_CAND = 4
C_NODES = 5
C_STAMP = 6
C_STARTED = 7
NC = 8

# Pending parts: (lo, hi, split frame, frontier offset, frontier rank).
NP = 5

# Trail kinds.
T_LOW = 0
T_FLOOR = 1
T_EDGE = 2
T_RANK = 3
