"""Route ``cpsat``: OR-Tools CP-SAT on the search model (``model``), hinted and solved
(``route``)."""
