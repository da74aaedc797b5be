"""The report's table of overloaded windows, and the requests live in several of them."""

from __future__ import annotations

from tilefit.bounds.deficit import BoundReport
from tilefit.bounds.overload import Window
from tilefit.model.words import plural
from tilefit.report.svg import byte_html, esc

MAX_WINDOW_ROWS = 200  # rows of the windows table; the rest are summed up
SHARED_NAMED = 8  # requests named per "live in N windows" line


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
            f"<tr><td class=n>{k}</td><td class=n>{steps_text(w)}</td><td class=n>{s.start}</td>"
            f"<td class=n>{byte_html(live)}</td><td class=n>{byte_html(usable)}</td>"
            f"<td class=n>{byte_html(w.excess)}</td>"
            f"<td class=n><b>{byte_html(w.must_leave)}</b></td>"
            f"<td>{esc(where)}</td></tr>"
        )
    rest = windows[MAX_WINDOW_ROWS:]
    if rest:
        rows.append(
            f'<tr><td colspan=8 class="more">and {len(rest)} more '
            f"{plural(len(rest), 'window')}, up to "
            f"{byte_html(max(w.must_leave for w in rest))} must leave one of them</td></tr>"
        )
    steps = sum(w.step_count for w in windows)
    return (
        f'<h3 id="windows">Overloaded windows: {len(windows)}, of {steps} '
        f"step{'s' if steps > 1 else ''}</h3>"
        "<p>Steps where the live requests need more than they may use, adjacent ones grouped "
        "into windows (hatched on the maps and the profile). Each window must lose its own "
        "bytes: the excess at its worst step plus the alignment padding of the requests "
        f"counted there.{shared_line(windows)}</p>"
        '<table class="grid"><tr><th>window</th><th>steps</th><th>worst step</th>'
        "<th>live there</th><th>usable</th><th>over</th><th>must leave</th><th>usable in</th>"
        f"</tr>{''.join(rows)}</table>"
    )


def shared_line(windows: tuple[Window, ...]) -> str:
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
    named = ", ".join(
        f"<code>{esc(i)}</code> ({byte_html(size)})" for i, size in ranked[:SHARED_NAMED]
    )
    more = f" and {len(ranked) - SHARED_NAMED} more" if len(ranked) > SHARED_NAMED else ""
    where = f"all {most}" if most == len(windows) else str(most)
    return f" Live in {where} windows, so shrinking one helps in each: {named}{more}."


def steps_text(w: Window) -> str:
    """A window's steps as the text output writes them: ``54`` or ``[40, 43)``."""
    return str(w.start) if w.end == w.start + 1 else f"[{w.start}, {w.end})"
