"""The report's text: the verdict, the bound table, the production replay, the strategy matrix.

Every function returns HTML with every piece of capture text escaped.
"""

from __future__ import annotations

import base64
import re

from tilefit.bounds.deficit import BoundReport
from tilefit.engine.attempt import Attempt
from tilefit.engine.strategy import Strategy
from tilefit.formats.save import placement_text
from tilefit.model.capture import Capture
from tilefit.model.placement import placement_top
from tilefit.model.words import counted, lifetime_text, plural
from tilefit.report.svg import byte_html, esc
from tilefit.report.svgbracket import bracket_html
from tilefit.report.window_table import windows_html
from tilefit.search.routes import proof_says
from tilefit.verdicts.diagnose import Diagnosis
from tilefit.verdicts.stopped import diagnosis_stopped
from tilefit.verdicts.verdict import Verdict

MAX_CONTRIBUTORS = 25  # rows of the peak table; the rest are summed up


def verdict_html(capture: Capture, d: Diagnosis) -> str:
    tile = "" if capture.tile is None else f" (tile {capture.tile})"
    return (
        f"<header><h1>tilefit report: {esc(capture.name)}{tile}</h1>{_headline_html(capture, d)}"
        f'<p class="verdict v-{esc(d.verdict)}"><span class="badge">{esc(d.verdict)}</span> '
        f"{esc(_verdict_text(d))}{save_link(capture, d)}</p>"
        f"{_heap_html(capture, d)}{_stopped_html(d)}"
        f"{'' if d.bracket is None else bracket_html(d.bracket)}</header>"
    )


def _verdict_text(d: Diagnosis) -> str:
    if d.verdict == Verdict.FITS and d.heap is not None:  # an import: the replay is not the tool's
        return (
            f"Fits: tilefit's nearest strategy to {d.heap.tool}'s planner places every request "
            "in this memory."
        )
    if d.verdict == Verdict.INFEASIBLE and d.route is not None:
        return f"{d.verdict.sentence} Proof ({d.route}): {proof_says(d.route)}."
    c = d.capacity
    if c is not None:  # the bound the answer names, with its figure, as diagnose says it
        leave = f"; at least {c.leaving:,} B must leave" if c.leaving else ""
        return f"{d.verdict.sentence} Decided by {c.bound.says} ({c.over_text}){leave}."
    return d.verdict.sentence


def _headline_html(capture: Capture, d: Diagnosis) -> str:
    """For an imported capture: the toolchain's own plan first, then tilefit's (the one
    renderer's two parts, as ``diagnose`` says them), its command naming the file the page
    saves."""
    from tilefit.output.headline import diagnosis_headline

    head = diagnosis_headline(d)
    if head is None:
        return ""
    own = "own-fits" if head.own_fits else "own-over"
    ours = "own-fits" if head.verdict.places else "own-over"
    return (
        f'<ol class="headline"><li class="{own}">{esc(head.own_text)}.</li>'
        f'<li class="{ours}">{esc(head.tilefit_text(download_name(capture, d)))}.</li></ol>'
    )


def _heap_html(capture: Capture, d: Diagnosis) -> str:
    """For an imported capture: where its compiler's own heap stands."""
    if d.heap is None or capture.origin is None:
        return ""
    # Not in parentheses: a source may hold its own ("allocation 27 (cpu)").
    source = f" Imported from {esc(capture.origin.source)}." if capture.origin.source else ""
    return f'<p class="heap">{esc(d.heap.text)}.{source}</p>'


def _stopped_html(d: Diagnosis) -> str:
    """Where the report's time limit stopped its diagnosis short, and what gives it more."""
    stop = diagnosis_stopped(d)
    if stop is None:
        return ""
    return f'<p class="stopped">{esc(stop.text[:1].upper() + stop.text[1:])}.</p>'


def save_link(capture: Capture, d: Diagnosis) -> str:
    """A link that saves the checked placement found, as ``tilefit diagnose -o`` writes it:
    on an import, the least below the toolchain's plan where it was searched (the one the
    headline names), under a name no toolchain's own placement file has.

    The file travels inside the link (a base64 data URL), so the page still fetches
    nothing; clicking it downloads the same bytes.
    """
    placement = d.offered
    if placement is None or not d.verdict.places:
        return ""
    data = base64.b64encode(placement_text(placement).encode("utf-8")).decode("ascii")
    offsets = f"{len(placement.offsets):,} {plural(len(placement.offsets), 'offset')}"
    if d.heap is None:
        what = f"the placement found ({offsets}, JSON)"
    else:
        what = f"tilefit's plan ({placement_top(capture, placement.offsets):,} B, {offsets}, JSON)"
    return (
        f' <a class="save" id="save-placement" download="{download_name(capture, d)}" '
        f'href="data:application/json;base64,{data}">save {what}</a>'
    )


def download_name(capture: Capture, d: Diagnosis) -> str:
    """The file the page saves the placement as: on an import, never ``NAME.placement.json``,
    the toolchain's own placement's name (``tilefit import -o``)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", capture.name).strip("._") or "tile"
    return f"{name}.placement.json" if d.heap is None else f"{name}.tilefit.placement.json"


def _meeting_rows(report: BoundReport) -> list[tuple[str, str]]:
    """The heaviest pairwise-meeting set, where a cyclic capture's lifetime wraps."""
    m = report.meeting
    if m is None:
        return []
    return [
        (
            "meeting bound",
            f"{byte_html(m.weight)} in {len(m.ids)} requests whose lifetimes meet pairwise on "
            f"the circle ({esc(', '.join(m.ids))}): {byte_html(report.meeting_deficit)} over",
        )
    ]


def bound_html(report: BoundReport) -> str:
    s = report.support
    union = " ".join(f"[{a:,}, {b:,})" for a, b in s.union) or "(empty)"
    rows = [
        ("available storage", byte_html(report.available)),
        ("live storage lower bound", f"{byte_html(report.lower_bound)} at step {report.peak_step}"),
        (
            "aligned lower bound",
            f"{byte_html(report.aligned.span)} at step {report.aligned.step} "
            f"({byte_html(report.aligned.padding)} of it alignment padding); no placement "
            f"ends below {report.aligned.top:,}",
        ),
        ("deficit", byte_html(report.deficit)),
        ("aligned deficit", byte_html(report.aligned_deficit)),
        ("support-aware deficit", byte_html(report.support_deficit)),
        *_meeting_rows(report),
        (
            "tightest union of allowed sets",
            f"step {s.step}: {byte_html(s.demand)} live of "
            f"{esc(', '.join(s.classes) or 'no class')} may use only {esc(union)} = "
            f"{byte_html(s.capacity)} (ranges {esc(', '.join(s.ranges) or 'none')})"
            + ("" if s.exhaustive else "; not every union was tried"),
        ),
    ]
    table = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in rows)
    totals = ", ".join(f"{esc(cls)} {byte_html(size)}" for cls, size in report.class_totals)
    shown = report.contributors[:MAX_CONTRIBUTORS]
    rest = report.contributors[MAX_CONTRIBUTORS:]
    peak_rows = "".join(
        f"<tr><td><code>{esc(c.id)}</code></td><td class=n>{byte_html(c.size)}</td>"
        f"<td>{esc(c.cls)}</td><td class=n>{c.alignment}</td><td>{esc(c.label or '')}</td></tr>"
        for c in shown
    )
    if rest:
        peak_rows += (
            f'<tr><td colspan=5 class="more">and {len(rest)} more '
            f"{plural(len(rest), 'request')}, "
            f"{byte_html(sum(c.size for c in rest))} in all</td></tr>"
        )
    return (
        '<section id="bounds"><h2>Bounds</h2>'
        f'<table class="kv">{table}</table>{windows_html(report)}'
        f"<h3>Live at the peak, step {report.peak_step}: "
        f"{counted(len(report.contributors), 'request')}</h3>"
        f"<p>By class: {totals or 'nothing'}.</p>"
        '<table class="grid"><tr><th>id</th><th>size</th><th>class</th><th>alignment</th>'
        f"<th>label</th></tr>{peak_rows}</table></section>"
    )


def production_html(capture: Capture, d: Diagnosis) -> str:
    rows = []
    for k, a in enumerate(d.production, start=1):
        f = a.failure
        if f is None:
            outcome, unit, holes = '<span class="ok">fits</span>', "", ""
        else:
            u = f.unit
            outcome = f'<span class="no">fails after {counted(f.placed_before, "unit")}</span>'
            unit = (
                f"<code>{esc(u.id)}</code> {byte_html(u.size)}, align {u.alignment}, {esc(u.cls)}, "
                + lifetime_text(u.start, u.end)
            )
            holes = ", ".join(byte_html(e - s) for s, e in f.holes[:5]) + (
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
    # On an import, the replay is tilefit's stand-in for the compiler's planner.
    imported = f"<p>On this import, the replay is {esc(d.heap.replay_text)}.</p>" if d.heap else ""
    return (
        f'<section id="production"><h2>Production replay</h2>{imported}'
        '<table class="grid"><tr><th>#</th><th>strategy</th><th>outcome</th>'
        f"<th>failed unit</th><th>largest holes</th></tr>{''.join(rows)}</table>"
        f"{observed}</section>"
    )


def matrix_html(capture: Capture, d: Diagnosis, matrix: tuple[Attempt, ...]) -> str:
    """Orders down, fits across; each cell says fits (and how high) or where it failed."""
    # every strategy's, ORDER/FIT (a production allocator replayed whole is not among them)
    named = [(s.order.name, s.fit.name, a) for a in matrix if isinstance(s := a.strategy, Strategy)]
    orders = list(dict.fromkeys(order for order, _, _ in named))
    fits = list(dict.fromkeys(fit for _, fit, _ in named))
    cell = {(order, fit): a for order, fit, a in named}
    head = "".join(f"<th>{esc(f)}</th>" for f in fits)
    tops = [a.peak_address for a in matrix if a.failure is None]
    lowest = min(tops) if tops and min(tops) < max(tops) else None  # marked where tops differ
    rows = []
    for order in orders:
        cells = []
        for fit in fits:
            a = cell.get((order, fit))
            cells.append("<td></td>" if a is None else _matrix_cell(capture, d, a, lowest))
        rows.append(f"<tr><th>{esc(order)}</th>{''.join(cells)}</tr>")
    return (
        '<section id="matrix"><h2>Strategy matrix</h2>'
        "<p>Every order with every fit, each from empty memory: where it fits, the top its "
        f"placement reaches; else the unit it fails on. {_tops_said(tops, len(matrix))} "
        '<span class="tag">production</span> marks the production attempts, '
        '<span class="tag v">verdict</span> the strategy the verdict cites, '
        '<span class="tag low">lowest</span> the lowest top.</p>'
        f'<table class="grid matrix"><tr><th>order \\ fit</th>{head}</tr>{"".join(rows)}</table>'
        "</section>"
    )


def _tops_said(tops: list[int], strategies: int) -> str:
    """What differs between the strategies that fit: the tops they reach."""
    if not tops:
        return "None fits."
    fit = f"{len(tops)} of {strategies} fit"
    if min(tops) == max(tops):
        return f"{fit}, every one reaching {byte_html(tops[0])}."
    return f"{fit}, reaching from {byte_html(min(tops))} to {byte_html(max(tops))}."


def _matrix_cell(capture: Capture, d: Diagnosis, a: Attempt, lowest: int | None) -> str:
    name = a.strategy.name
    tags = ""
    if name in capture.production:
        tags += ' <span class="tag">production</span>'
    if name == d.strategy:
        tags += ' <span class="tag v">verdict</span>'
    if a.failure is None:
        if a.peak_address == lowest:
            tags += ' <span class="tag low">lowest</span>'
        return f'<td class="ok">{byte_html(a.peak_address)}{tags}</td>'
    f = a.failure
    return (
        f'<td class="no">fails on <code>{esc(f.unit.id)}</code> after {f.placed_before} '
        f"units{tags}</td>"
    )
