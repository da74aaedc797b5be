"""The report's evidence: why the verdict holds, one finding per item.

For a capacity deficit it names who makes the peak and what must leave each
overloaded window, not only the peak: trimming the worst window alone fails
at the next.
"""

from __future__ import annotations

from tilefit.bounds.deficit import BoundReport
from tilefit.bounds.overload import Window
from tilefit.engine.attempt import Attempt
from tilefit.model.capture import Capture
from tilefit.model.words import counted, lifetime_text, plural
from tilefit.report.svg import byte_html, esc
from tilefit.report.window_table import shared_line, steps_text
from tilefit.verdicts.diagnose import Diagnosis

PEAK_LARGEST = 5  # the largest requests at the peak, named in the evidence
WINDOWS_LISTED = 8  # windows named in the evidence; the bounds section lists them all


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
            f"{at_peak} among the requests live at the peak (step {d.bound.peak_step})."
        )
    if d.bound.windows:
        items.append(_windows_item(d.bound.windows))
    fitting = [a.strategy.name for a in matrix if a.fits]
    names = ", ".join(f"<code>{esc(n)}</code>" for n in fitting)
    items.append(
        f"{len(fitting)} of {counted(len(matrix), 'strategy', 'strategies')} "
        f"{plural(len(fitting), 'fits', 'fit')}" + (f": {names}." if names else ".")
    )
    if d.placement is not None and d.strategy is not None:
        items.append(
            f"The placement found by <code>{esc(d.strategy)}</code> passed the independent "
            "checker (every validity rule of the format)."
        )
    if d.search_status is not None:
        items.append(_search_item(d))
    if d.subset:
        ids = ", ".join(f"<code>{esc(i)}</code>" for i in d.subset)
        items.append(f"These requests alone admit no placement: {ids}.")
    body = "".join(f"<li>{item}</li>" for item in items)
    return f'<section id="evidence"><h2>Evidence</h2><ul>{body}</ul></section>'


def _search_item(d: Diagnosis) -> str:
    """What the search answered, and by which route (for the choice proof, the steps and
    stretches a reader checks it by)."""
    text = f"Search: {esc(d.search_status or '')}"
    if d.route is not None:
        text += f" (route <code>{esc(d.route)}</code>)"
    if d.choice is not None:
        text += f": {esc(d.choice.text)}"
    return text + "."


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
            f"<code>{esc(u.id)}</code> ({byte_html(u.size)}, alignment {u.alignment}, class "
            f"{esc(u.cls)}, {lifetime_text(u.start, u.end)}) after placing "
            f"{counted(f.placed_before, 'unit')}; "
            f"its largest hole is {byte_html(max((e - s for s, e in f.holes), default=0))}."
        )
    if d.heap is not None:
        # On an import the replay is tilefit's stand-in for the compiler's planner: say so,
        # so that its failure does not read as the compiler's.
        text += f" This replay is {esc(d.heap.replay_text)}."
    if capture.observed_failed is not None:
        match = "reproduces" if d.reproduced else "does <b>not</b> reproduce"
        text += (
            f" This {match} the observed failure on <code>{esc(capture.observed_failed)}</code>."
        )
    return text


def _peak_item(report: BoundReport) -> str:
    """Who makes the peak: its largest requests, with their share of it."""
    largest = report.contributors[:PEAK_LARGEST]
    named = ", ".join(
        f"<code>{esc(c.id)}</code> ({byte_html(c.size)}, {esc(c.cls)})" for c in largest
    )
    share = sum(c.size for c in largest)
    more = len(report.contributors) - len(largest)
    rest = f" and {more} more" if more else ""
    return (
        f"The largest requests live at the peak (step {report.peak_step}): {named}{rest}; "
        f"{_these(len(largest))} {byte_html(share)} of its {byte_html(report.lower_bound)}."
    )


def _these(count: int) -> str:
    return "this one holds" if count == 1 else f"these {count} hold"


def _windows_item(windows: tuple[Window, ...]) -> str:
    """What must leave, window by window: trimming only the worst fails at the next."""
    listed = "; ".join(
        f"step{'s' if w.end > w.start + 1 else ''} {steps_text(w)}: {byte_html(w.excess)} over, "
        f"<b>{byte_html(w.must_leave)}</b> must leave"
        for w in windows[:WINDOWS_LISTED]
    )
    more = len(windows) - WINDOWS_LISTED
    if more > 0:
        listed += f"; and {more} more {plural(more, 'window')} (see Bounds)"
    if len(windows) == 1:
        return (
            f"One overloaded window: {listed} before any placement can exist (the excess plus "
            "the alignment padding of the requests counted there)."
        )
    shared = shared_line(windows)
    return (
        f"{len(windows)} overloaded windows, each of which must lose its own bytes (the excess "
        f"plus the alignment padding of the requests counted there), so trimming only the "
        f"worst fails at the next: {listed}.{shared}"
    )


def _bound_item(report: BoundReport) -> str:
    text = (
        f"Live storage lower bound: {byte_html(report.lower_bound)} at step {report.peak_step}, "
        f"against {byte_html(report.available)} available"
    )
    if report.deficit:
        text += f": <b>{byte_html(report.deficit)} over</b>"
    text += "."
    if report.support_deficit:
        text += f" Support-aware deficit: <b>{byte_html(report.support_deficit)}</b>."
    a = report.aligned
    if a.span > report.lower_bound:
        text += (
            f" With the padding their alignments force, the live requests span "
            f"{byte_html(a.span)} at step {a.step}"
        )
        if report.aligned_deficit > report.deficit:
            text += f": <b>{byte_html(report.aligned_deficit)} over</b>"
        text += "."
    m = report.meeting
    if m is not None and m.weight > report.lower_bound:
        text += (
            f" On the circle of steps, {len(m.ids)} requests whose "
            f"lifetimes meet pairwise need {byte_html(m.weight)}, more than any one step holds"
        )
        if report.meeting_deficit:
            text += f": <b>{byte_html(report.meeting_deficit)} over</b>"
        text += "."
    return text
