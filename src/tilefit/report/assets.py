"""The page's own style and script, inlined: the report fetches nothing when opened.

The script reads the one JSON blob (``#tilefit-data``) and listens once on the
document (event delegation), so a map of 20,000 boxes costs no listener per
box: hovering a box or a hole shows its tooltip, clicking a box marks it, its
sequence mates and its conflict partners, a class can be highlighted, and an
id can be looked up.
"""

from __future__ import annotations

CSS = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;
background:#f6f6f4}
main{max-width:1240px;margin:0 auto;padding:12px 20px 40px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:26px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:14px 0 4px}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace;background:#ececea;padding:0 3px;
border-radius:3px}
.verdict{font-size:16px;margin:6px 0;padding:8px 12px;border-radius:6px;background:#fff;
border-left:6px solid #888}
.badge{display:inline-block;font-weight:700;text-transform:uppercase;letter-spacing:.04em;
padding:1px 8px;border-radius:4px;color:#fff;background:#888;margin-right:6px}
.v-fits{border-color:#2ca02c}.v-fits .badge{background:#2ca02c}
.v-fragmentation{border-color:#e08214}.v-fragmentation .badge{background:#e08214}
.v-capacity,.v-infeasible{border-color:#d62728}
.v-capacity .badge,.v-infeasible .badge{background:#d62728}
ol.headline{font-size:15px;margin:6px 0;padding-left:26px}
.own-over{color:#a11b1c}.own-fits{color:#1a6b1a}
nav a{margin-right:12px}
ul{margin:4px 0;padding-left:22px}li{margin:3px 0}
figure{margin:10px 0 18px;background:#fff;border:1px solid #ddd;border-radius:6px;padding:6px}
figure p{margin:2px 6px 4px;color:#444}
table{border-collapse:collapse;background:#fff;margin:6px 0}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
table.kv th{background:#f0f0ee;white-space:nowrap}
.grid th{background:#f0f0ee}.n{text-align:right;white-space:nowrap}
td.ok,span.ok{color:#1a6b1a}td.no,span.no{color:#a11b1c}td.ok{background:#eef7ec}
td.no{background:#fbefee}.more{color:#555;font-style:italic}
.tag{font-size:11px;padding:0 5px;border-radius:3px;background:#dde3ea;color:#234;
white-space:nowrap}.tag.v{background:#ffe2b8;color:#6b3b00}.tag.low{background:#d4edd4;color:#1a5b1a}
.controls{display:flex;flex-wrap:wrap;gap:14px;align-items:center;margin:6px 0}
.legend{display:flex;flex-wrap:wrap;gap:6px;margin:6px 0}
.chip{font:inherit;font-size:12.5px;border:1px solid #ccc;background:#fff;border-radius:12px;
padding:1px 9px;cursor:pointer}.chip i{display:inline-block;width:11px;height:11px;
margin-right:5px;vertical-align:-1px;border-radius:2px}.chip.static{cursor:default}
.chip.on{border-color:#000;box-shadow:0 0 0 1px #000}
#selection{color:#333}#selection button{margin-left:8px}
.hint{color:#555;margin:2px 0}
#tip{position:fixed;display:none;z-index:10;pointer-events:none;background:#fff;color:#111;
border:1px solid #999;border-radius:5px;box-shadow:0 2px 8px rgba(0,0,0,.2);padding:6px 9px;
font-size:12.5px;max-width:380px}
#tip .b{font-weight:700;font-family:ui-monospace,Menlo,monospace}#tip .l{color:#555}
#tip .w{color:#a11b1c;font-weight:700}
footer{margin-top:30px;color:#777;font-size:12px}
svg.map,svg.profile,svg.bracket{display:block;width:100%;height:auto;background:#fff}
.bk-band{fill:#fde9c8}.bk-lack{fill:#f4a259}.bk-top{stroke:#333;stroke-width:2}
.bk-label{font-size:12px;fill:#333}
.frame{fill:none;stroke:#333}.tick{fill:none;stroke:#333}
.tx{font-size:11px;text-anchor:middle;fill:#333}
.ty{font-size:11px;text-anchor:end;dominant-baseline:middle;fill:#333}
.axis{font-size:12px;text-anchor:middle;fill:#333}
.na{fill:url(#hatch)}.ap{fill:#f2eaf4}
.apl,.ill{font-size:10px;fill:#333;pointer-events:none;paint-order:stroke;stroke:#fff;
stroke-width:3px}
.el{fill:none;stroke:#333;stroke-width:.6;stroke-dasharray:4 3;pointer-events:none}
.il{fill:#17becf;pointer-events:none}
.band{fill:#d62728;opacity:.08;pointer-events:none}
.bandl{fill:none;stroke:#d62728;stroke-dasharray:5 3;pointer-events:none}
.wr{fill:none;stroke:#222;stroke-width:1.5;stroke-dasharray:3 2;pointer-events:none}
.hole{fill:#ffd92f;fill-opacity:.8;stroke:#9a7b00;stroke-width:.7}
.hole:hover{fill-opacity:.95}
.hl{font-size:9px;font-weight:700;fill:#0b3d0b;text-anchor:middle;dominant-baseline:middle;
pointer-events:none;paint-order:stroke;stroke:#fff;stroke-width:2.5px}
.bl{font-size:9px;text-anchor:middle;dominant-baseline:middle;pointer-events:none}
rect.e{stroke:#fff;stroke-width:.5}
.need{fill:#d62728;stroke:#fff;stroke-width:.5}
.st{font-size:11px;text-anchor:middle;fill:#333}
.sf{font-size:11px;font-weight:700;text-anchor:middle;fill:#d62728}
.ss{font-size:10px;text-anchor:middle;fill:#a11b1c}
.avail{stroke:#000;stroke-width:1.5;fill:none}.availl,.limitl{font-size:10px;fill:#333}
.limit{fill:none;stroke:#7b3294;stroke-width:1.5;stroke-dasharray:6 4}.limitl{fill:#7b3294}
.peak{stroke:#d62728;stroke-dasharray:2 3;fill:none;pointer-events:none}.peakm{fill:#d62728}
.cmp-given,.cmp-best,.cmp-avail{fill:none;stroke-width:1.5;pointer-events:none}
.cmp-given{stroke:#a11b1c;stroke-dasharray:6 3}.cmp-best{stroke:#1a6b1a}
.cmp-avail{stroke:#333;stroke-dasharray:2 3}.cmp-saved{stroke:#1a6b1a;stroke-width:3}
.cmp-t,.cmp-st{font-size:12px;font-weight:700;text-anchor:middle;fill:#333}
.cmp-st{fill:#1a6b1a;text-anchor:start}.cmp-at{font-size:10px;dominant-baseline:middle;fill:#333}
.peakt{font-size:10px;font-weight:700;fill:#d62728;text-anchor:middle}
.peakl{font-size:12px;font-weight:700;fill:#d62728;paint-order:stroke;stroke:#fff;
stroke-width:3px}
.hover{fill:transparent}
.win{fill:url(#over);pointer-events:none}
.winl{font-size:10px;font-weight:700;fill:#a11b1c;text-anchor:middle}
.chip i.over{background:repeating-linear-gradient(45deg,#a11b1c 0 2px,#f3dede 2px 5px)}
a.save{display:inline-block;margin-left:8px;font-weight:600}
body[data-hl] svg.map rect[data-k],body.sel svg.map rect[data-k]{opacity:.13}
body.sel svg.map rect.on,body.sel svg.map rect.mate,body.sel svg.map rect.partner{opacity:1}
svg.map rect.on{stroke:#000;stroke-width:2px;vector-effect:non-scaling-stroke}
svg.map rect.mate{stroke:#444;stroke-width:1px;vector-effect:non-scaling-stroke}
svg.map rect.partner{stroke:#d62728;stroke-width:2px;vector-effect:non-scaling-stroke}
"""

HATCH = (
    '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>'
    '<pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><rect width="8" height="8" fill="#e4e4e4"/>'
    '<path d="M0 0V8" stroke="#c2c2c2" stroke-width="3"/></pattern>'
    '<pattern id="over" width="6" height="6" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><rect width="6" height="6" fill="#a11b1c" '
    'fill-opacity=".1"/><path d="M0 0V6" stroke="#a11b1c" stroke-opacity=".6" '
    'stroke-width="1.6"/></pattern></defs></svg>'
)

JS = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("tilefit-data").textContent);
  var R = D.requests, tip = document.getElementById("tip");
  var info = document.getElementById("selection");
  var byK = {}, seqOf = {}, edges = {}, marked = [];
  var all = document.querySelectorAll("svg.map rect[data-k]");
  for (var i = 0; i < all.length; i++) {
    var key = all[i].getAttribute("data-k");
    (byK[key] || (byK[key] = [])).push(all[i]);
  }
  D.sequences.forEach(function (s, j) { s.members.forEach(function (k) { seqOf[k] = j; }); });
  D.conflicts.forEach(function (c) {
    (edges[c[0]] || (edges[c[0]] = [])).push(c[1]);
    (edges[c[1]] || (edges[c[1]] = [])).push(c[0]);
  });
  function members(node) {
    return node.charAt(0) === "s" ? D.sequences[+node.slice(1)].members : [+node.slice(1)];
  }
  function partners(k) {
    var nodes = ["r" + k], seen = {}, out = [];
    if (k in seqOf) nodes.push("s" + seqOf[k]);
    nodes.forEach(function (n) {
      (edges[n] || []).forEach(function (m) {
        members(m).forEach(function (p) { if (!seen[p]) { seen[p] = 1; out.push(p); } });
      });
    });
    return out.sort(function (a, b) { return a - b; });
  }
  function bytes(n) { return n.toLocaleString("en-US") + " B"; }
  function requestLines(k, map) {
    var lines = [[R.id[k], "b"]];
    if (R.label[k]) lines.push([R.label[k], "l"]);
    lines.push(["size " + bytes(R.size[k]) + ", alignment " + R.align[k]]);
    lines.push(["class " + D.classes[R.cls[k]] + (R.il[k] ? " (interleaved)" : "")]);
    lines.push(["lifetime: steps [" + R.start[k] + ", " + R.end[k] + ")" +
      (R.start[k] >= R.end[k] ? ", around the loop's last step to its first" : "")]);
    var off = map ? D.maps[map].offsets[k] : -1;
    lines.push([off >= 0 ? "offset " + off + " .. " + (off + R.size[k]) : "not placed here"]);
    if (k in seqOf) {
      var s = D.sequences[seqOf[k]];
      lines.push(["sequence " + s.id + ": member " + (s.members.indexOf(k) + 1) +
                  " of " + s.members.length]);
    }
    var p = partners(k);
    if (p.length) lines.push([p.length + " conflict partner" + (p.length > 1 ? "s" : "") +
                              " (click to show)"]);
    return lines;
  }
  function holeLines(map, j) {
    var f = D.maps[map].failed, h = f.holes[j];
    return [["hole " + (j + 1) + " of " + f.holes.length, "b"],
            ["addresses " + h[0] + " .. " + h[1] + ": " + bytes(h[1] - h[0])],
            ["free over steps [" + f.start + ", " + f.end + ")"],
            [f.id + " needs " + bytes(f.size) + " (alignment " + f.alignment + ")"]];
  }
  function show(lines, e) {
    tip.textContent = "";
    lines.forEach(function (line) {
      var div = document.createElement("div");
      div.textContent = line[0];
      if (line[1]) div.className = line[1];
      tip.appendChild(div);
    });
    tip.style.display = "block";
    place(e);
  }
  function place(e) {
    var x = e.clientX + 14, y = e.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth) x = e.clientX - tip.offsetWidth - 10;
    if (y + tip.offsetHeight > window.innerHeight) y = e.clientY - tip.offsetHeight - 10;
    tip.style.left = Math.max(0, x) + "px";
    tip.style.top = Math.max(0, y) + "px";
  }
  function hide() { tip.style.display = "none"; }
  function mapOf(el) {
    var svg = el.closest("[data-map]");  // a map, or one panel of the comparison
    return svg ? svg.getAttribute("data-map") : null;
  }
  document.addEventListener("mouseover", function (e) {
    var t = e.target;
    if (!(t instanceof Element) || t.closest("svg.profile")) return;
    if (t.hasAttribute("data-k")) show(requestLines(+t.getAttribute("data-k"), mapOf(t)), e);
    else if (t.hasAttribute("data-h") && mapOf(t)) {
      show(holeLines(mapOf(t), +t.getAttribute("data-h")), e);
    }
    else hide();
  });
  document.addEventListener("mousemove", function (e) {
    if (tip.style.display === "block") place(e);
  });
  document.addEventListener("mouseleave", hide);
  function mark(k, cls) {
    (byK[k] || []).forEach(function (el) { el.classList.add(cls); marked.push([el, cls]); });
  }
  function clearSelection() {
    marked.forEach(function (m) { m[0].classList.remove(m[1]); });
    marked = [];
    document.body.classList.remove("sel");
    info.textContent = "";
  }
  function select(k, sequence) {
    clearSelection();
    var p = partners(k), mates = k in seqOf ? D.sequences[seqOf[k]].members : [];
    mates.forEach(function (m) { if (m !== k) mark(m, sequence ? "on" : "mate"); });
    p.forEach(function (q) { mark(q, "partner"); });
    mark(k, "on");
    document.body.classList.add("sel");
    // A sequence found by its id is named by it, not by its first member.
    var text = (sequence ? "sequence " + sequence.id + " (" + sequence.members.length +
      (sequence.members.length > 1 ? " members)" : " member)") : R.id[k]) + ": " +
      (p.length ? p.length + " conflict partner" +
      (p.length > 1 ? "s" : "") + " (red): " + p.slice(0, 12).map(function (q) {
        return R.id[q]; }).join(", ") + (p.length > 12 ? ", ..." : "") : "no conflict partner");
    if (mates.length > 1 && !sequence) {
      text += "; " + (mates.length - 1) + " sequence mate" + (mates.length > 2 ? "s" : "") +
        " (grey edge)";
    }
    info.textContent = text + " ";
    var button = document.createElement("button");
    button.textContent = "clear";
    button.addEventListener("click", clearSelection);
    info.appendChild(button);
  }
  document.addEventListener("click", function (e) {
    var t = e.target;
    if (!(t instanceof Element)) return;
    if (t.hasAttribute("data-k")) select(+t.getAttribute("data-k"));
    else if (t.closest("svg.map")) clearSelection();
    var chip = t.closest(".chip[data-cls]");
    if (chip) highlight(document.body.getAttribute("data-hl") === chip.getAttribute("data-cls")
                        ? "" : chip.getAttribute("data-cls"));
  });
  var picker = document.getElementById("hl");
  function highlight(cls) {
    if (cls === "") document.body.removeAttribute("data-hl");
    else document.body.setAttribute("data-hl", cls);
    picker.value = cls;
    document.querySelectorAll(".chip[data-cls]").forEach(function (c) {
      c.classList.toggle("on", c.getAttribute("data-cls") === cls);
    });
  }
  picker.addEventListener("change", function () { highlight(picker.value); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { clearSelection(); highlight(""); hide(); }
  });
  var find = document.getElementById("find");
  find.addEventListener("keydown", function (e) {
    if (e.key !== "Enter") return;
    var name = find.value.trim(), k = R.id.indexOf(name), found = null;
    if (k < 0) D.sequences.forEach(function (s) { if (s.id === name) found = s; });
    if (found) k = found.members[0];
    if (k >= 0) select(k, found); else info.textContent = "no request or sequence named " + name;
  });
  var prof = document.querySelector("svg.profile"), P = D.profile;
  if (prof) {
    var left = +prof.getAttribute("data-left"), right = +prof.getAttribute("data-right");
    var horizon = +prof.getAttribute("data-horizon");
    prof.addEventListener("mousemove", function (e) {
      var pt = prof.createSVGPoint();
      pt.x = e.clientX; pt.y = e.clientY;
      var step = (pt.matrixTransform(prof.getScreenCTM().inverse()).x - left) /
        (right - left) * horizon;
      if (step < 0 || step >= horizon) { hide(); return; }
      var lo = 0, hi = P.end.length - 1;
      while (lo < hi) {
        var mid = (lo + hi) >> 1;
        if (P.end[mid] <= step) lo = mid + 1; else hi = mid;
      }
      var live = P.live[lo], total = 0, lines = [];
      live.forEach(function (v) { total += v; });
      lines.push(["steps [" + P.start[lo] + ", " + P.end[lo] + ")", "b"]);
      lines.push(["live " + bytes(total) + " of " + bytes(P.available) + " available"]);
      live.forEach(function (v, c) {
        if (v) lines.push(["  " + D.classes[P.classes[c]] + " " + bytes(v)]);
      });
      if (P.limit[lo] !== null) lines.push(["support-aware limit " + bytes(P.limit[lo])]);
      D.windows.forEach(function (w, j) {
        if (w.start > step || step >= w.end) return;
        lines.push(["overloaded window " + (j + 1) + " of " + D.windows.length + ": steps [" +
                    w.start + ", " + w.end + ")", "w"]);
        lines.push(["  " + bytes(w.excess) + " over at step " + w.worst + "; " +
                    bytes(w.must_leave) + " must leave"]);
      });
      show(lines, e);
    });
    prof.addEventListener("mouseleave", hide);
  }
})();
"""
