"""Plain data: what a capture and a placement are, and nothing that acts on them.

- ``capture``: the immutable capture (memory, requests, sequences, conflicts);
- ``placement``: offsets for a capture's requests;
- ``units``: what a strategy places (a request alone, or a whole sequence);
- ``intervals``: sorted half-open intervals (merge, free space, sweeps);
- ``errors``: ``InputError``, the one exception for bad input (exit code 2);
- ``words``: counted nouns for messages (``1 hole``, ``2 holes``).

Every other package builds on these; they import nothing else of tilefit.
"""
