"""Verdicts: what the commands answer about a capture, one module each.

- ``bounds``: the live storage lower bound and the support-aware bound;
- ``check``: the independent referee of a placement (with ``clearance``, its look in
  numpy columns, ``disjoint``, its quick look at overlaps, and ``allowed``, the spans
  it reads from the spec);
- ``replay``: the production attempts, and whether they reproduce the observed failure;
- ``retry``: the retry chain, production strategies first and fallbacks on failure;
- ``experiment``: every order with every fit;
- ``exact``: the exact search, explained by an irreducible subset when infeasible;
- ``diagnose``: one verdict with its evidence, built from all of the above.

The results are data; ``tilefit.output.jsonout`` gives their ``--json`` form.
"""
