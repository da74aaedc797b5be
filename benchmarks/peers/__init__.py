"""The peers of ``benchmarks/real_traces.py``: how each is run on a trace, and its answer
turned into a tilefit placement for the referee (``tilefit.verdicts.check``).

Built peers (MiniMalloc's command line, idealloc) live in the git-ignored ``.peers/``
folder that ``build_minimalloc.sh`` and ``build_idealloc.sh`` fill; nothing fetched is
part of the project.
"""
