"use strict";
(function () {
  var NS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("vx-data").textContent);
  var tasks = data.tasks, edges = data.edges;
  var svg = document.getElementById("graph");
  var viewport = document.getElementById("viewport");
  var search = document.getElementById("search");
  var matches = document.getElementById("matches");
  var details = document.getElementById("details");

  document.title = data.title;
  document.getElementById("title").textContent = data.title;

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  // clipID shortens a long task id in its project part, so that the
  // task's name stays in sight.
  function clipID(id, n) {
    var hash = id.lastIndexOf("#");
    if (id.length <= n || id.charAt(0) === '"' || hash < 0 || id.length - hash > n / 2) return clip(id, n);
    return id.slice(0, n - (id.length - hash) - 1) + "\u2026" + id.slice(hash);
  }

  // Counts by cache state, for the header.
  var counts = { hit: 0, "remote-hit": 0, miss: 0, off: 0 };
  tasks.forEach(function (t) { counts[t.cache] = (counts[t.cache] || 0) + 1; });
  var parts = [tasks.length + (tasks.length === 1 ? " task" : " tasks")], countEl = document.getElementById("counts");
  ["hit", "remote-hit", "miss", "off"].forEach(function (c) {
    if (counts[c]) parts.push(counts[c] + " " + (c === "off" ? "not cached" : c));
  });
  var deps = 0;
  tasks.forEach(function (t) { deps += t.deps.length; });
  if (deps > edges.length) {
    parts.push(edges.length + " of " + deps + " edges drawn");
    countEl.title = "An edge a longer path implies is not drawn (web \u2192 utils when web \u2192 ui \u2192 utils is); select a task to list all it depends on.";
  }
  countEl.textContent = parts.join(", ");

  if (tasks.length === 0) {
    var empty = document.createElement("p");
    empty.id = "empty";
    empty.textContent = "No task: the selection is empty.";
    svg.replaceWith(empty);
    return;
  }

  // Dependents, the reverse of deps.
  var dependents = tasks.map(function () { return []; });
  tasks.forEach(function (t, i) { t.deps.forEach(function (d) { dependents[d].push(i); }); });

  var edgeLayer = document.getElementById("edges"), taskLayer = document.getElementById("tasks");
  var edgeEls = edges.map(function (e) {
    var p = e.points, d = "M" + p[0] + " " + p[1];
    for (var i = 2; i < p.length; i += 2) {
      var x0 = p[i - 2], y0 = p[i - 1], x1 = p[i], y1 = p[i + 1];
      if ((i / 2) % 2 === 1) {
        var dx = (x1 - x0) / 2;
        d += "C" + (x0 + dx) + " " + y0 + " " + (x1 - dx) + " " + y1 + " " + x1 + " " + y1;
      } else {
        d += "L" + x1 + " " + y1;
      }
    }
    return el("path", { d: d, "class": "edge", "marker-end": "url(#arrow)" }, edgeLayer);
  });
  var taskEls = tasks.map(function (t, i) {
    var g = el("g", { "class": "task " + t.cache, transform: "translate(" + t.x + "," + t.y + ")", "data-index": i }, taskLayer);
    el("rect", { "class": "box", width: data.box.w, height: data.box.h, rx: 4 }, g);
    el("rect", { "class": "bar", width: 6, height: data.box.h, rx: 2 }, g);
    el("text", { x: 13, y: 17 }, g).textContent = clipID(t.id, 30);
    el("text", { "class": "sub", x: 13, y: 32 }, g).textContent = clip(t.script, 33);
    var title = t.id + "\n" + t.script + "\ncache: " + t.cache + (t.persistent ? "\npersistent" : "");
    el("title", {}, g).textContent = title;
    return g;
  });

  // Pan and zoom: the viewport group's transform.
  var view = { x: 0, y: 0, k: 1 };
  function apply() { viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.k + ")"); }
  function size() { var r = svg.getBoundingClientRect(); return { w: r.width || 800, h: r.height || 600 }; }
  function zoomAt(k, cx, cy) {
    k = Math.min(4, Math.max(0.02, k));
    view.x = cx - (cx - view.x) * k / view.k;
    view.y = cy - (cy - view.y) * k / view.k;
    view.k = k;
    apply();
  }
  function fit() {
    var s = size();
    view.k = Math.min(1, s.w / data.width, s.h / data.height);
    view.x = (s.w - data.width * view.k) / 2;
    view.y = (s.h - data.height * view.k) / 2;
    apply();
  }
  function center(i, minK) {
    var s = size(), t = tasks[i];
    view.k = Math.max(view.k, minK || 0);
    view.x = s.w / 2 - (t.x + data.box.w / 2) * view.k;
    view.y = s.h / 2 - (t.y + data.box.h / 2) * view.k;
    apply();
  }
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = svg.getBoundingClientRect();
    zoomAt(view.k * Math.pow(1.0015, -ev.deltaY), ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  var drag = null;
  svg.addEventListener("pointerdown", function (ev) {
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false };
    svg.setPointerCapture(ev.pointerId);
  });
  svg.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; svg.classList.add("panning"); }
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    apply();
  });
  svg.addEventListener("pointerup", function (ev) {
    var d = drag;
    drag = null;
    svg.classList.remove("panning");
    if (d && !d.moved) {
      var target = document.elementFromPoint(ev.clientX, ev.clientY);
      var g = target && target.closest ? target.closest(".task") : null;
      select(g ? Number(g.getAttribute("data-index")) : -1);
    }
  });
  document.getElementById("fit").addEventListener("click", fit);
  document.getElementById("zoomin").addEventListener("click", function () { var s = size(); zoomAt(view.k * 1.25, s.w / 2, s.h / 2); });
  document.getElementById("zoomout").addEventListener("click", function () { var s = size(); zoomAt(view.k / 1.25, s.w / 2, s.h / 2); });

  // Selecting a task: it, what it depends on and what depends on it,
  // transitively, stand out; the rest fades.
  function closure(i, next) {
    var seen = {}, stack = [i], out = [];
    while (stack.length) {
      var j = stack.pop();
      next[j].forEach(function (k) { if (!seen[k]) { seen[k] = true; out.push(k); stack.push(k); } });
    }
    return out;
  }
  var selected = -1;
  function clearMarks() {
    taskEls.forEach(function (g) { g.classList.remove("on", "sel", "dep", "dependent"); });
    edgeEls.forEach(function (e) { e.classList.remove("on", "dep", "dependent"); });
    svg.classList.remove("focus");
  }
  function select(i) {
    selected = i;
    clearMarks();
    if (i < 0) { details.hidden = true; return; }
    var up = closure(i, tasks.map(function (t) { return t.deps; }));
    var down = closure(i, dependents);
    var inUp = {}, inDown = {};
    up.forEach(function (j) { inUp[j] = true; taskEls[j].classList.add("on", "dep"); });
    down.forEach(function (j) { inDown[j] = true; taskEls[j].classList.add("on", "dependent"); });
    taskEls[i].classList.add("on", "sel");
    edges.forEach(function (e, k) {
      if ((e.from === i || inUp[e.from]) && inUp[e.to]) edgeEls[k].classList.add("on", "dep");
      if ((e.to === i || inDown[e.to]) && inDown[e.from]) edgeEls[k].classList.add("on", "dependent");
    });
    svg.classList.add("focus");
    show(i, up.length, down.length);
  }

  function show(i, nUp, nDown) {
    var t = tasks[i];
    details.textContent = "";
    var h = document.createElement("h2");
    h.textContent = t.id;
    details.appendChild(h);
    var dl = document.createElement("dl");
    function row(name, value, code) {
      if (value === "" || value === undefined) return null;
      var dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = name;
      if (typeof value === "string") {
        var v = document.createElement(code ? "code" : "span");
        v.textContent = value;
        dd.appendChild(v);
      } else {
        dd.appendChild(value);
      }
      dl.appendChild(dt);
      dl.appendChild(dd);
      return dd;
    }
    function links(list) {
      if (!list.length) return "none";
      var ul = document.createElement("ul");
      list.forEach(function (j) {
        var li = document.createElement("li"), a = document.createElement("a");
        a.textContent = tasks[j].id;
        a.addEventListener("click", function () { select(j); center(j); });
        li.appendChild(a);
        ul.appendChild(li);
      });
      return ul;
    }
    row("project", t.project);
    row("path", t.path, true);
    row("task", t.task);
    row("pre", t.pre, true);
    row("script", t.script, true);
    row("post", t.post, true);
    row("cache", t.cache === "off" ? "off (not cached)" : t.cache);
    row("key", t.key, true);
    row("no key", t.error);
    row("persistent", t.persistent ? "yes: runs until stopped" : "");
    row("why", t.why);
    row("depends on", links(t.deps));
    row("needed by", links(dependents[i]));
    row("in all", nUp + " before it, " + nDown + " after it");
    details.appendChild(dl);
    details.hidden = false;
  }

  // Search: tasks whose id holds the text stand out; Enter goes to the
  // next one.
  var found = [], cursor = -1;
  search.addEventListener("input", function () {
    var q = search.value.trim().toLowerCase();
    found = [];
    cursor = -1;
    taskEls.forEach(function (g, i) {
      var hit = q !== "" && tasks[i].id.toLowerCase().indexOf(q) >= 0;
      g.classList.toggle("match", hit);
      if (hit) found.push(i);
    });
    matches.textContent = q === "" ? "" : found.length + (found.length === 1 ? " match" : " matches");
  });
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" && found.length) {
      cursor = (cursor + 1) % found.length;
      select(found[cursor]);
      center(found[cursor], 0.8);
    } else if (ev.key === "Escape") {
      search.value = "";
      search.dispatchEvent(new Event("input"));
      select(-1);
    }
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "/" && document.activeElement !== search) { ev.preventDefault(); search.focus(); }
    else if (ev.key === "Escape" && selected >= 0) select(-1);
  });

  // At first, the whole graph when its text stays readable, else its
  // top-left corner (the first layers, the first rows of the grid of
  // unjoined tasks) at a readable size.
  (function () {
    var s = size();
    if (Math.min(s.w / data.width, s.h / data.height) >= 0.75) { fit(); return; }
    view.k = Math.min(1, Math.max(0.75, s.w / data.width));
    view.x = 0;
    view.y = 0;
    apply();
  })();
})();
