"""The bracket of an undetermined tile, drawn: where the least memory top lies.

One address axis, zoomed on the bracket: the lower bound and the closest
placement's top close a shaded band, and the memory's own top is a line
through it, so the reader sees at once how much of the band lies above the
memory (what the tile may lack) and how wide the uncertainty still is.
"""

from __future__ import annotations

from tilefit.report.svg import byte_html, num
from tilefit.search.bracket import Bracket

_WIDTH, _LEFT, _RIGHT = 1200, 84, 1030
_BAND_TOP, _BAND_BOTTOM = 34, 62


def bracket_html(b: Bracket) -> str:
    """A figure with the bracket drawn on its address axis, and its sentence."""
    span = max(b.upper, b.top) - min(b.lower, b.top)
    lo = min(b.lower, b.top) - max(span // 10, 1)
    hi = max(b.upper, b.top) + max(span // 10, 1)

    def x(address: int) -> float:
        return _LEFT + (address - lo) / (hi - lo) * (_RIGHT - _LEFT)

    parts = [
        f'<svg class="bracket" viewBox="0 0 {_WIDTH} 100" role="img" '
        f'aria-label="the least memory top lies between {b.lower} and {b.upper} bytes">',
        f'<line class="frame" x1="{_LEFT}" y1="{_BAND_BOTTOM}" x2="{_RIGHT}" y2="{_BAND_BOTTOM}"/>',
        _band("bk-band", x(b.lower), x(b.upper)),
    ]
    if b.upper > b.top:  # what the tile may lack: the band above the memory
        parts.append(_band("bk-lack", x(b.top), x(b.upper)))
    parts += [
        f'<line class="bk-top" x1="{num(x(b.top))}" y1="{_BAND_TOP - 6}" '
        f'x2="{num(x(b.top))}" y2="{_BAND_BOTTOM + 6}"/>',
        _label(x(b.lower), _BAND_TOP - 10, "start", f"lower bound {b.lower:,} B"),
        _label(x(b.upper), _BAND_TOP - 10, "end", f"closest placement {b.upper:,} B"),
        _label(x(b.top), _BAND_BOTTOM + 24, "middle", f"memory top {b.top:,} B"),
    ]
    parts.append("</svg>")
    share = f"{b.share(b.width):.2%}"
    caption = (
        f"<p>The least memory top that holds a placement lies between "
        f"{byte_html(b.lower)} (no placement ends lower: the live peak with its alignment "
        f"padding) and {byte_html(b.upper)} (the closest placement found ends there, "
        f"checked), a band {byte_html(b.width)} wide, {share} of the available storage. "
        f"The memory's top is {byte_html(b.top)}"
        + (f"; the closest placement needs {byte_html(b.lacks)} more." if b.lacks else ".")
        + "</p>"
    )
    return f'<figure class="bracket" id="bracket">{"".join(parts)}{caption}</figure>'


def _band(kind: str, left: float, right: float) -> str:
    return (
        f'<rect class="{kind}" x="{num(left)}" y="{_BAND_TOP}" width="{num(right - left)}" '
        f'height="{_BAND_BOTTOM - _BAND_TOP}"/>'
    )


def _label(at: float, y: int, anchor: str, text: str) -> str:
    return f'<text class="bk-label" x="{num(at)}" y="{y}" text-anchor="{anchor}">{text}</text>'
