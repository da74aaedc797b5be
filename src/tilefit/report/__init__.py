"""The self-contained HTML report: diagnosis, bounds, strategies, maps and profile.

``content`` gathers what the report shows, ``svgmap`` and ``svgprofile``
draw the pictures as inline SVG (``svgwindows`` the overloaded windows on
them), ``evidence`` writes why the verdict holds, ``sections`` and
``windows`` the tables, ``data`` the one JSON blob the page's script reads,
and ``html`` puts the page together.
"""
