"""The report's text: the verdict and its evidence, the bound table, the strategy matrix.

Every function returns HTML with every piece of capture text escaped.
"""

from __future__ import annotations

import base64
import re

from tilefit.engine.attempt import Attempt
from tilefit.formats.save import placement_text
from tilefit.model.capture import Capture
from tilefit.report.svg import esc
from tilefit.verdicts.bounds import BoundReport
from tilefit.verdicts.diagnose import Diagnosis
from tilefit.verdicts.overload import Window

MAX_CONTRIBUTORS = 25  # rows of the peak table; the rest are summed up
PEAK_LARGEST = 5  # the largest requests at the peak, named in the evidence
WINDOWS_LISTED = 8  # windows named in the evidence; the bounds section lists them all
MAX_WINDOW_ROWS = 200  # rows of the windows table; the rest are summed up
SHARED_NAMED = 8  # requests named per "live in N windows" line

_VERDICT_TEXT = {
    "fits": "The production placement fits: nothing to fix on this tile.",
    "fragmentation": ("Fragmentation: a better placement exists under the very same constraints."),
    "capacity": "Capacity deficit: no placement can exist, whatever the order or the addresses.",
    "infeasible": (
        "Infeasible: the exact search proved that no placement exists, although the bounds show "
        "no deficit (alignment gaps or bank separation use up the room)."
    ),
    "undetermined": (
        "Undetermined: no strategy fits and the bounds show no deficit; the exact search found "
        "neither a placement nor a proof within its time limit."
    ),
}


def _b(value: int) -> str:
    return f"{value:,}&#8239;B"


def verdict_html(capture: Capture, d: Diagnosis) -> str:
    tile = "" if capture.tile is None else f" (tile {capture.tile})"
    return (
        f"<header><h1>tilefit report: {esc(capture.name)}{tile}</h1>"
        f'<p class="verdict v-{esc(d.verdict)}"><span class="badge">{esc(d.verdict)}</span> '
        f"{esc(_VERDICT_TEXT.get(d.verdict, d.verdict))}{save_link(capture, d)}</p></header>"
    )


def save_link(capture: Capture, d: Diagnosis) -> str:
    """A link that saves the checked placement found, as ``tilefit diagnose -o`` writes it.

    The file travels inside the link (a base64 data URL), so the page still fetches
    nothing; clicking it downloads the same bytes.
    """
    if d.placement is None or d.verdict not in ("fits", "fragmentation"):
        return ""
    data = base64.b64encode(placement_text(d.placement).encode("utf-8")).decode("ascii")
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", capture.name).strip("._") or "tile"
    return (
        f' <a class="save" id="save-placement" download="{name}.placement.json" '
        f'href="data:application/json;base64,{data}">save the placement found '
        f"({len(d.placement.offsets):,} offsets, JSON)</a>"
    )


def evidence_html(capture: Capture, d: Diagnosis, matrix: tuple[Attempt, ...]) -> str:
    items = [_production_item(capture, d)]
    items.append(_bound_item(d.bound))
    if d.bound.windows:
        items.append(_peak_item(d.bound))
    if d.production_failed_id is not None:
        at_peak = "is" if d.production_failed_at_peak else "is <b>not</b>"
        # Only an observed failure is a production error; else it is the replay's.
        named = (
            "The unit named in the production error"
            if capture.observed_failed is not None
            else "The unit the replay's failure names"
        )
        items.append(
            f"{named}, <code>{esc(d.production_failed_id)}</code>, "
            f"{at_peak} among the requests live at the peak (step {d.peak_step})."
        )
    if d.bound.windows:
        items.append(_windows_item(d.bound.windows))
    fitting = [a.strategy.name for a in matrix if a.fits]
    names = ", ".join(f"<code>{esc(n)}</code>" for n in fitting)
    items.append(
        f"{len(fitting)} of {len(matrix)} strategies fit" + (f": {names}." if names else ".")
    )
    if d.placement is not None and d.strategy is not None:
        items.append(
            f"The placement found by <code>{esc(d.strategy)}</code> passed the independent "
            "checker (every validity rule of the format)."
        )
    if d.search_status is not None:
        items.append(f"Exact search: {esc(d.search_status)}.")
    if d.irreducible_subset:
        ids = ", ".join(f"<code>{esc(i)}</code>" for i in d.irreducible_subset)
        items.append(f"These requests alone admit no placement: {ids}.")
    body = "".join(f"<li>{item}</li>" for item in items)
    return f'<section id="evidence"><h2>Evidence</h2><ul>{body}</ul></section>'


def _production_item(capture: Capture, d: Diagnosis) -> str:
    tried = ", then ".join(f"<code>{esc(a.strategy.name)}</code>" for a in d.production)
    last = d.production[-1]
    if last.failure is None:
        text = f"Production replay: {tried}; the last one places every unit."
    else:
        f = last.failure
        u = f.unit
        text = (
            f"Production replay: {tried}; the last attempt fails on "
            f"<code>{esc(u.id)}</code> ({_b(u.size)}, alignment {u.alignment}, class "
            f"{esc(u.cls)}, steps [{u.start}, {u.end})) after placing {f.placed_before} units; "
            f"its largest hole is {_b(max((e - s for s, e in f.holes), default=0))}."
        )
    if capture.observed_failed is not None:
        match = "reproduces" if d.reproduced else "does <b>not</b> reproduce"
        text += (
            f" This {match} the observed failure on <code>{esc(capture.observed_failed)}</code>."
        )
    return text


def _peak_item(report: BoundReport) -> str:
    """Who makes the peak: its largest requests, with their share of it."""
    largest = report.contributors[:PEAK_LARGEST]
    named = ", ".join(f"<code>{esc(c.id)}</code> ({_b(c.size)}, {esc(c.cls)})" for c in largest)
    share = sum(c.size for c in largest)
    more = len(report.contributors) - len(largest)
    rest = f" and {more} more" if more else ""
    return (
        f"The largest requests live at the peak (step {report.peak_step}): {named}{rest}; "
        f"these {len(largest)} hold {_b(share)} of its {_b(report.lower_bound)}."
    )


def _windows_item(windows: tuple[Window, ...]) -> str:
    """What must leave, window by window: trimming only the worst fails at the next."""
    listed = "; ".join(
        f"step{'s' if w.end > w.start + 1 else ''} {_steps(w)}: {_b(w.excess)} over, "
        f"<b>{_b(w.must_leave)}</b> must leave"
        for w in windows[:WINDOWS_LISTED]
    )
    more = len(windows) - WINDOWS_LISTED
    if more > 0:
        listed += f"; and {more} more windows (see Bounds)"
    if len(windows) == 1:
        return (
            f"One overloaded window: {listed} before any placement can exist (the excess plus "
            "the alignment padding of the requests counted there)."
        )
    shared = _shared_line(windows)
    return (
        f"{len(windows)} overloaded windows, each of which must lose its own bytes (the excess "
        f"plus the alignment padding of the requests counted there), so trimming only the "
        f"worst fails at the next: {listed}.{shared}"
    )


def _shared_line(windows: tuple[Window, ...]) -> str:
    """The requests live in the most windows: shrinking one helps in each of them."""
    most = max((r.windows for w in windows for r in w.requests), default=0)
    if most < 2:
        return ""
    sizes: dict[str, int] = {}
    for w in windows:
        for r in w.requests:
            if r.windows == most:
                sizes[r.id] = r.size
    ranked = sorted(sizes.items(), key=lambda item: (-item[1], item[0]))
    named = ", ".join(f"<code>{esc(i)}</code> ({_b(size)})" for i, size in ranked[:SHARED_NAMED])
    more = f" and {len(ranked) - SHARED_NAMED} more" if len(ranked) > SHARED_NAMED else ""
    where = f"all {most}" if most == len(windows) else str(most)
    return f" Live in {where} windows, so shrinking one helps in each: {named}{more}."


def _steps(w: Window) -> str:
    return str(w.start) if w.end == w.start + 1 else f"[{w.start}, {w.end})"


def _bound_item(report: BoundReport) -> str:
    text = (
        f"Live storage lower bound: {_b(report.lower_bound)} at step {report.peak_step}, "
        f"against {_b(report.available)} available"
    )
    if report.deficit:
        text += f": <b>{_b(report.deficit)} over</b>"
    text += "."
    if report.support_deficit:
        text += f" Support-aware deficit: <b>{_b(report.support_deficit)}</b>."
    return text


def bound_html(report: BoundReport) -> str:
    s = report.support
    union = " ".join(f"[{a:,}, {b:,})" for a, b in s.union) or "(empty)"
    rows = [
        ("available storage", _b(report.available)),
        ("live storage lower bound", f"{_b(report.lower_bound)} at step {report.peak_step}"),
        ("deficit", _b(report.deficit)),
        ("support-aware deficit", _b(report.support_deficit)),
        (
            "tightest union of allowed sets",
            f"step {s.step}: {_b(s.demand)} live of {esc(', '.join(s.classes) or 'no class')} "
            f"may use only {esc(union)} = {_b(s.capacity)} "
            f"(ranges {esc(', '.join(s.ranges) or 'none')})"
            + ("" if s.exhaustive else "; not every union was tried"),
        ),
    ]
    table = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in rows)
    totals = ", ".join(f"{esc(cls)} {_b(size)}" for cls, size in report.class_totals)
    shown = report.contributors[:MAX_CONTRIBUTORS]
    rest = report.contributors[MAX_CONTRIBUTORS:]
    peak_rows = "".join(
        f"<tr><td><code>{esc(c.id)}</code></td><td class=n>{_b(c.size)}</td>"
        f"<td>{esc(c.cls)}</td><td class=n>{c.alignment}</td><td>{esc(c.label or '')}</td></tr>"
        for c in shown
    )
    if rest:
        peak_rows += (
            f'<tr><td colspan=5 class="more">and {len(rest)} more requests, '
            f"{_b(sum(c.size for c in rest))} in all</td></tr>"
        )
    return (
        '<section id="bounds"><h2>Bounds</h2>'
        f'<table class="kv">{table}</table>{windows_html(report)}'
        f"<h3>Live at the peak, step {report.peak_step}: {len(report.contributors)} requests</h3>"
        f"<p>By class: {totals or 'nothing'}.</p>"
        '<table class="grid"><tr><th>id</th><th>size</th><th>class</th><th>alignment</th>'
        f"<th>label</th></tr>{peak_rows}</table></section>"
    )


def windows_html(report: BoundReport) -> str:
    """Every overloaded window: its steps, the bytes over at its worst step, what must leave."""
    windows = report.windows
    if not windows:
        return ""
    rows = []
    for k, w in enumerate(windows[:MAX_WINDOW_ROWS], 1):
        s = w.worst
        # The figures of the bound that is short there: all storage, or a union of ranges.
        plain = s.over >= s.demand - s.usable or s.usable == report.available
        live, usable = (s.live, report.available) if plain else (s.demand, s.usable)
        where = "all ranges" if plain else ", ".join(s.ranges)
        rows.append(
            f"<tr><td class=n>{k}</td><td class=n>{_steps(w)}</td><td class=n>{s.start}</td>"
            f"<td class=n>{_b(live)}</td><td class=n>{_b(usable)}</td>"
            f"<td class=n>{_b(w.excess)}</td><td class=n><b>{_b(w.must_leave)}</b></td>"
            f"<td>{esc(where)}</td></tr>"
        )
    rest = windows[MAX_WINDOW_ROWS:]
    if rest:
        rows.append(
            f'<tr><td colspan=8 class="more">and {len(rest)} more windows, up to '
            f"{_b(max(w.must_leave for w in rest))} must leave one of them</td></tr>"
        )
    steps = sum(len(w.steps) for w in windows)
    return (
        f'<h3 id="windows">Overloaded windows: {len(windows)}, of {steps} '
        f"step{'s' if steps > 1 else ''}</h3>"
        "<p>Steps where the live requests need more than they may use, adjacent ones grouped "
        "into windows (hatched on the maps and the profile). Each window must lose its own "
        "bytes: the excess at its worst step plus the alignment padding of the requests "
        f"counted there.{_shared_line(windows)}</p>"
        '<table class="grid"><tr><th>window</th><th>steps</th><th>worst step</th>'
        "<th>live there</th><th>usable</th><th>over</th><th>must leave</th><th>usable in</th>"
        f"</tr>{''.join(rows)}</table>"
    )


def production_html(capture: Capture, d: Diagnosis) -> str:
    rows = []
    for k, a in enumerate(d.production, start=1):
        f = a.failure
        if f is None:
            outcome, unit, holes = '<span class="ok">fits</span>', "", ""
        else:
            u = f.unit
            outcome = f'<span class="no">fails after {f.placed_before} units</span>'
            unit = (
                f"<code>{esc(u.id)}</code> {_b(u.size)}, align {u.alignment}, {esc(u.cls)}, "
                f"steps [{u.start}, {u.end})"
            )
            holes = ", ".join(_b(e - s) for s, e in f.holes[:5]) + (
                f" &hellip; ({len(f.holes)} holes)" if len(f.holes) > 5 else ""
            )
        rows.append(
            f"<tr><td class=n>{k}</td><td><code>{esc(a.strategy.name)}</code></td>"
            f"<td>{outcome}</td><td>{unit}</td><td>{holes or '&mdash;'}</td></tr>"
        )
    observed = (
        ""
        if capture.observed_failed is None
        else f"<p>Observed in production: failure on <code>{esc(capture.observed_failed)}</code>"
        f" &mdash; {'reproduced' if d.reproduced else '<b>not reproduced</b>'}.</p>"
    )
    return (
        '<section id="production"><h2>Production replay</h2>'
        '<table class="grid"><tr><th>#</th><th>strategy</th><th>outcome</th>'
        f"<th>failed unit</th><th>largest holes</th></tr>{''.join(rows)}</table>"
        f"{observed}</section>"
    )


def matrix_html(capture: Capture, d: Diagnosis, matrix: tuple[Attempt, ...]) -> str:
    """Orders down, fits across; each cell says fits (and how high) or where it failed."""
    orders = list(dict.fromkeys(a.strategy.order.name for a in matrix))
    fits = list(dict.fromkeys(a.strategy.fit.name for a in matrix))
    cell = {(a.strategy.order.name, a.strategy.fit.name): a for a in matrix}
    head = "".join(f"<th>{esc(f)}</th>" for f in fits)
    rows = []
    for order in orders:
        cells = []
        for fit in fits:
            a = cell.get((order, fit))
            cells.append("<td></td>" if a is None else _matrix_cell(capture, d, a))
        rows.append(f"<tr><th>{esc(order)}</th>{''.join(cells)}</tr>")
    return (
        '<section id="matrix"><h2>Strategy matrix</h2>'
        "<p>Every order with every fit, each from empty memory. "
        '<span class="tag">production</span> marks the production attempts, '
        '<span class="tag v">verdict</span> the strategy the verdict cites.</p>'
        f'<table class="grid matrix"><tr><th>order \\ fit</th>{head}</tr>{"".join(rows)}</table>'
        "</section>"
    )


def _matrix_cell(capture: Capture, d: Diagnosis, a: Attempt) -> str:
    name = a.strategy.name
    tags = ""
    if name in capture.production:
        tags += ' <span class="tag">production</span>'
    if name == d.strategy:
        tags += ' <span class="tag v">verdict</span>'
    if a.failure is None:
        return f'<td class="ok">fits, up to {_b(a.peak_address)}{tags}</td>'
    f = a.failure
    return (
        f'<td class="no">fails on <code>{esc(f.unit.id)}</code> after {f.placed_before} '
        f"units{tags}</td>"
    )
