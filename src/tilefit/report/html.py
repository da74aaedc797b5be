"""One self-contained HTML page: nothing is fetched when it is opened.

The page's Content-Security-Policy forbids every fetch (``default-src
'none'``), so a stray reference would fail loudly in the browser rather than
reach the network. Same input, same bytes: no time, no path, no timing.
"""

from __future__ import annotations

from pathlib import Path

from tilefit import __version__
from tilefit.formats.save import write_text_atomic
from tilefit.model.capture import Capture
from tilefit.plot.colors import DARK_TEXT, FAILED, HOLE, LIGHT_TEXT, class_colors
from tilefit.report import evidence, sections
from tilefit.report.assets import CSS, HATCH, JS
from tilefit.report.content import Given, MapView, ReportContent, gather
from tilefit.report.data import page_data, script_json
from tilefit.report.svg import byte_html, esc
from tilefit.report.svgcompare import compare_svg
from tilefit.report.svgmap import map_svg
from tilefit.report.svgprofile import columns, profile_frame, profile_svg

# Box labels: dark, or light on a dark or mid fill ("lt"). Light ones turn dark while
# boxes are faded (a class highlighted, a box selected); on the class colours that take
# light text (resident's), dark text still reaches 4.5:1 (tests/report/test_report_svg.py).
LABEL_CSS = (
    f".bl{{fill:{DARK_TEXT}}}.bl.lt{{fill:{LIGHT_TEXT}}}"
    f"body[data-hl] svg.map .bl.lt,body.sel svg.map .bl.lt{{fill:{DARK_TEXT}}}"
)
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"


def write_report(
    capture: Capture, path: str | Path, *, time_limit: float = 10.0, given: Given | None = None
) -> ReportContent:
    """Diagnose ``capture`` and write its report to ``path``; returns what it shows. A
    placement ``given`` is drawn beside tilefit's least."""
    content = gather(capture, time_limit=time_limit, given=given)
    write_text_atomic(path, render(content))
    return content


def render(content: ReportContent) -> str:
    capture, d = content.capture, content.diagnosis
    classes = tuple(dict.fromkeys(r.cls for r in capture.requests))
    class_index = {cls: k for k, cls in enumerate(classes)}
    colors = class_colors(classes)
    cols = columns(content.series, profile_frame(content.series))
    data = page_data(capture, classes, content.maps + _compared(content), cols, content.series)
    style = (
        CSS
        + LABEL_CSS
        + "".join(
            f'.k{k}{{fill:{colors[cls]}}}body[data-hl="{k}"] svg.map rect.k{k}{{opacity:1}}'
            for k, cls in enumerate(classes)
        )
    )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>tilefit report: {esc(capture.name)}</title>",
        f"<style>{style}</style></head><body><main>",
        sections.verdict_html(capture, d),
        '<nav><a href="#maps">memory maps</a><a href="#profile">live storage</a>'
        + ('<a href="#compare">placement given</a>' if content.compare else "")
        + ('<a href="#windows">overloaded windows</a>' if d.bound.windows else "")
        + '<a href="#bounds">bounds</a><a href="#production">production replay</a>'
        '<a href="#matrix">strategy matrix</a></nav>',
        evidence.evidence_html(capture, d, content.matrix),
        _maps_html(content, classes, class_index, colors, _profile_html(content, class_index)),
        sections.bound_html(d.bound),
        sections.production_html(capture, d),
        sections.matrix_html(capture, d, content.matrix),
        f"<footer>Written by tilefit {esc(__version__)}. See docs/report.md for how to read "
        "it.</footer>",
        '</main><div id="tip" role="tooltip"></div>',
        HATCH,
        f'<script type="application/json" id="tilefit-data">{script_json(data)}</script>',
        f"<script>{JS}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _compared(content: ReportContent) -> tuple[MapView, ...]:
    """The comparison's panels as the page's data knows maps (their offsets, for the
    tooltips)."""
    c = content.compare
    if c is None:
        return ()
    views = [MapView("c0", c.name, "", c.given)]
    if c.best is not None:
        views.append(MapView("c1", "tilefit's least", "", c.best))
    return tuple(views)


def _compare_html(content: ReportContent, class_index: dict[str, int]) -> str:
    c = content.compare
    if c is None:
        return ""
    if c.best_top is None:
        said = "tilefit found no placement of these requests within the time limit."
    elif c.saved:
        least = "proven the least" if c.proven else "not proven the least"
        said = (
            f"tilefit's least ends at {byte_html(c.best_top)} ({least}): "
            f"{byte_html(c.saved)} saved, {100.0 * c.saved / c.given_top:.1f}% of the "
            f"{byte_html(c.given_top)} of {esc(c.name)}."
        )
    else:
        said = f"tilefit's least is not lower: {esc(c.name)} ends at {byte_html(c.given_top)}."
    return (
        f'<figure id="compare"><h3>{esc(c.name)} beside tilefit\'s least</h3>'
        f"<p>The placement given (refereed: every rule holds) and the least placement "
        f"tilefit's search found, on one address axis. {said}</p>"
        f"{compare_svg(c, class_index)}</figure>"
    )


def _profile_html(content: ReportContent, class_index: dict[str, int]) -> str:
    windows = content.series.windows
    marked = (
        f" The {len(windows)} overloaded window{'s are' if len(windows) > 1 else ' is'} "
        "hatched, with the bytes over above."
        if windows
        else ""
    )
    return (
        '<figure id="profile"><h3>Live storage by step</h3>'
        "<p>Bytes live at each step, stacked by class, against the available storage and the "
        "support-aware limit (what the tightest union of allowed sets lets the live requests "
        f"hold).{marked} Hover for the numbers of a step.</p>"
        f"{profile_svg(content.series, class_index)}</figure>"
    )


def _static_chips(content: ReportContent) -> list[str]:
    """The legend of what the maps show besides the classes: only what is drawn."""
    layouts = [view.layout for view in content.maps]
    shown = [
        (
            any(m.failure for m in layouts),
            f'<i style="background:{HOLE}"></i>hole over the failed unit\'s lifetime',
        ),
        (
            any(m.failure for m in layouts),
            f'<i style="background:{FAILED};opacity:.35"></i>failed unit\'s lifetime',
        ),
        (
            bool(content.series.windows),
            '<i class="over"></i>overloaded window (+bytes over)',
        ),
        (any(m.unavailable for m in layouts), '<i style="background:#ddd"></i>unavailable'),
        (
            any(m.interleaved for m in layouts),
            '<i style="background:#17becf"></i>interleaved region',
        ),
        (any(m.elements for m in layouts), "- - memory-element boundary"),
    ]
    return [f'<span class="chip static">{chip}</span>' for wanted, chip in shown if wanted]


def _maps_html(
    content: ReportContent,
    classes: tuple[str, ...],
    class_index: dict[str, int],
    colors: dict[str, str],
    profile: str,
) -> str:
    """The maps with their controls and legend, and the profile after the first map."""
    options = "".join(f'<option value="{k}">{esc(cls)}</option>' for k, cls in enumerate(classes))
    chips = "".join(
        f'<button class="chip" data-cls="{k}"><i style="background:{colors[cls]}"></i>'
        f"{esc(cls)}</button>"
        for k, cls in enumerate(classes)
    )
    chips += "".join(_static_chips(content))
    figures = [
        f"<figure><h3>{esc(view.heading)}</h3><p>{esc(view.caption)}</p>"
        f"{map_svg(view.key, view.layout, class_index, content.series.peak_step)}</figure>"
        for view in content.maps
    ]
    # The profile goes right under the failure: together they show whether the peak is to blame.
    figures.insert(1, profile)
    figures.insert(0, _compare_html(content, class_index))
    return (
        '<section id="maps"><h2>Memory maps and live storage</h2>'
        '<p class="hint">Steps across, addresses up; each box is a request. Hover a box or a hole '
        "for its details; click a box to mark its conflict partners (red edge) and sequence "
        "mates (grey edge); click a class to highlight it; Esc clears.</p>"
        '<div class="controls"><label>Highlight class <select id="hl"><option value="">none'
        f'</option>{options}</select></label><label>Find id <input id="find" size="24" '
        'placeholder="request or sequence id, Enter"></label><span id="selection"></span></div>'
        f'<div class="legend">{chips}</div>{"".join(figures)}</section>'
    )
