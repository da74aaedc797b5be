"""Pictures of a tile: memory maps and the live-storage profile.

``layout`` and ``series`` compute the geometry; ``memmap`` and ``profile``
draw it with matplotlib; ``tilefit.report`` draws the same geometry as inline
SVG.
"""
