"""The self-contained HTML report: diagnosis, bounds, strategies, maps and profile.

``content`` gathers what the report shows, ``svgmap`` and ``svgprofile``
draw the pictures as inline SVG, ``sections`` writes the tables, ``data``
the one JSON blob the page's script reads, and ``html`` puts the page
together.
"""
