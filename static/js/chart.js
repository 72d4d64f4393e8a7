// karte's UI: charts, karted's own picture made alive (hover, click, zoom
// and pan ask karted for another view).

import { api, apiQuery, dataTable, el, errorText, fmt, go, link, problem, view } from './lib.js';

const RATIO = { isoefficiency: 0.66, efficiency: 0.5, scaling: 0.5, energy: 0.56, 'energy-shares': 0.56, history: 0.6,
  'scaling-history': 0.66, model: 0.66 };

// Beyond this many runs a chart comes as a PNG at the screen's pixel ratio:
// Chromium takes ~0.5 s to show an SVG of 10^4 markers, 7 s for 10^5, and
// a PNG of either in ~0.15 s (make bench).
export const SVG_POINTS_MAX = 5000;

export const MODEL_REGIONS_MAX = 16;	// regions modelled on a series page

const HIT_PX = 10;

export function viewParam(v) {
  return v ? v.map((x) => Number(x.toPrecision(6))).join(',') : null;
}

export function parseView(s) {
  if (!s) return null;
  const v = s.split(',').map(Number);
  return v.length === 4 && v.every(Number.isFinite) && v[1] > v[0] && v[3] > v[2] ? v : null;
}

// Data value to pixel along one axis of a frame (and back).
function toPx(ax, lo, hi, v) {
  const t = ax.log ? (Math.log10(v) - Math.log10(ax.min)) / (Math.log10(ax.max) - Math.log10(ax.min))
    : (v - ax.min) / (ax.max - ax.min);
  return lo + t * (hi - lo);
}

function fromPx(ax, lo, hi, px) {
  const t = (px - lo) / (hi - lo);
  return ax.log ? 10 ** (Math.log10(ax.min) + t * (Math.log10(ax.max) - Math.log10(ax.min)))
    : ax.min + t * (ax.max - ax.min);
}

// The range of an axis zoomed by factor f about the data value at pixel c
// and shifted by d pixels (log axes in log space).
function zoomAxis(ax, lo, hi, c, f, d) {
  const g = ax.log ? Math.log10 : (x) => x, ginv = ax.log ? (x) => 10 ** x : (x) => x;
  const a = g(ax.min), b = g(ax.max), per = (b - a) / (hi - lo);
  const at = a + (c - lo) * per, shift = -d * per;
  return [ginv(at + (a - at) * f + shift), ginv(at + (b - at) * f + shift)];
}

function pointText(pt) {
  if (pt.text) return pt.text;
  if (pt.speedup !== undefined) {
    return [...(pt.series ? [pt.series] : []), `p = ${pt.p}, n = ${fmt(pt.n)}`,
      `τ = ${fmt(pt.tau)} s${pt.runs > 1 ? ` (median of ${pt.runs} runs)` : ''}`,
      `speedup ${fmt(pt.speedup)}, efficiency ${fmt(pt.efficiency, 3)} (from p = ${pt.base_p})`];
  }
  const lines = [];
  if (pt.series) lines.push(pt.series);
  lines.push(`p = ${pt.p}, n = ${fmt(pt.n)}`);
  lines.push(`τ = ${fmt(pt.tau)} s, χ = ${fmt(pt.chi)} s, ε = ${fmt(pt.efficiency, 3)}`);
  lines.push(pt.count > 1 ? `${pt.count} runs (median); run ${pt.id} first` : `run ${pt.id}`);
  return lines;
}

// points: [{panel, x, y, ...pointText fields}] in data coordinates, or a
// promise of them (the picture comes first; hover once they are there).
// opts: {zoomable, view, onView, png, after: a promise to wait for before
// the first drawing}. Returns the figure.
export function liveChart(kind, query, caption, pointsOrPromise, opts = {}) {
  const ratio = RATIO[kind] || 0.6;
  const img = el('img', { alt: caption, draggable: 'false' });
  const tip = el('div', { class: 'tip', role: 'status', hidden: true });
  const ring = el('div', { class: 'ring', hidden: true });
  const plot = el('div', { class: 'plot' }, img, ring, tip);
  const status = el('span', { class: 'muted' });
  const links = el('span', {});
  const tools = el('div', { class: 'toolbar chart-tools' });
  const table = el('div', { hidden: true });
  const fig = el('figure', { 'data-kind': kind }, plot, el('figcaption', {}, caption, ' · ', links, ' ', status),
    tools, table);
  let frame = null, url = null, width = 0, view = opts.view || null, pending = null, loading = 0;
  let placed = [], points = [], note = '';

  const src = (fmtName, w, h) => {
    const q = new URLSearchParams(query);
    q.set('width', w);
    q.set('height', h);
    if (view) { q.set('x_min', view[0]); q.set('x_max', view[1]); q.set('y_min', view[2]); q.set('y_max', view[3]); }
    if (fmtName === 'png' && window.devicePixelRatio > 1) q.set('scale', Math.min(3, Math.ceil(window.devicePixelRatio)));
    return `/api/v1/reports/${kind}.${fmtName}?${q}`;
  };

  function place() {
    placed = [];
    if (!frame) return;
    for (const pt of points) {
      const f = frame.panels[pt.panel || 0];
      if (!f || !(pt.x > 0 || !f.x.log) || !(pt.y > 0 || !f.y.log)) continue;
      const x = toPx(f.x, f.left, f.right, pt.x), y = toPx(f.y, f.bottom, f.top, pt.y);
      if (x >= f.left - 2 && x <= f.right + 2 && y >= f.top - 2 && y <= f.bottom + 2) placed.push({ x, y, pt });
    }
  }

  async function load() {
    const w = Math.max(320, Math.min(1600, Math.round(width)));
    // the whole chart in view on a laptop: at most 80 % of the window's height
    const h = Math.max(280, Math.min(900, Math.round(w * ratio), Math.round(window.innerHeight * 0.8)));
    const mine = ++loading;
    const fmtName = opts.png ? 'png' : 'svg';
    status.textContent = 'drawing…';
    let r;
    try { r = await fetch(src(fmtName, w, h)); } catch (e) { r = { ok: false, statusText: e.message, json: () => null }; }
    if (mine !== loading) return;
    if (!r.ok) {
      let b = null;
      try { b = await r.json(); } catch { /* not JSON */ }
      plot.replaceChildren(problem({ status: r.status || 0, body: b || r.statusText }, caption));
      status.textContent = '';
      fig.dataset.ready = 'error';
      fig.dispatchEvent(new CustomEvent('drawn', { bubbles: true }));
      return;
    }
    const blob = await r.blob();
    frame = JSON.parse(r.headers.get('X-Karte-Frame') || 'null');
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(blob);
    img.style.transform = '';
    img.width = w;
    img.height = h;
    const loaded = await new Promise((ok) => {
      img.onload = () => ok(true);
      img.onerror = () => ok(false);
      img.src = url;
    });
    if (mine !== loading) return;
    if (!loaded || !img.naturalWidth) {	// an answer the browser could not draw is not a chart
      plot.replaceChildren(problem({ status: 0, body: 'the browser could not draw the chart it was sent' }, caption));
      status.textContent = '';
      fig.dataset.ready = 'error';
      fig.dispatchEvent(new CustomEvent('drawn', { bubbles: true }));
      return;
    }
    place();
    fig.dataset.frame = JSON.stringify(frame);
    status.textContent = note;
    links.replaceChildren(el('a', { href: src('svg', w, h) }, 'SVG'), ' ', el('a', { href: src('pdf', w, h) }, 'PDF'),
      ' ', el('a', { href: src('png', w, h) }, 'PNG'));
    fig.dataset.ready = 'yes';
    if (!fig.dataset.firstDrawn) {
      fig.dataset.firstDrawn = String(Math.round(performance.now()));
      fig.dispatchEvent(new CustomEvent('drawn', { bubbles: true }));
    }
  }

  // pointer position in the frame's pixels (the image may be scaled by CSS)
  function at(ev) {
    const b = img.getBoundingClientRect(), k = frame ? frame.width / b.width : 1;
    return [(ev.clientX - b.left) * k, (ev.clientY - b.top) * k, k];
  }

  function nearest(x, y) {
    let best = null, bd = HIT_PX * HIT_PX;
    for (const q of placed) {
      const d = (q.x - x) ** 2 + (q.y - y) ** 2;
      if (d <= bd) { bd = d; best = q; }
    }
    return best;
  }

  function hover(ev) {
    if (!frame || drag) return;
    const [x, y, k] = at(ev), q = nearest(x, y);
    if (!q) { tip.hidden = ring.hidden = true; img.style.cursor = opts.zoomable ? 'grab' : ''; return; }
    tip.replaceChildren(...pointText(q.pt).map((t) => el('div', {}, t)));
    tip.hidden = ring.hidden = false;
    ring.style.left = `${q.x / k}px`;
    ring.style.top = `${q.y / k}px`;
    tip.style.left = `${Math.min(q.x / k + 12, plot.clientWidth - 230)}px`;
    tip.style.top = `${q.y / k + 12}px`;
    img.style.cursor = 'pointer';
  }

  function setView(v) {
    view = v;
    if (opts.onView) opts.onView(view);
    load();
  }

  // zoom about (cx, cy) by f, pan by (dx, dy) pixels: a new view of panel 0
  function viewFrom(cx, cy, f, dx, dy) {
    const p0 = frame.panels[0];
    return [...zoomAxis(p0.x, p0.left, p0.right, cx, f, dx), ...zoomAxis(p0.y, p0.bottom, p0.top, cy, f, dy)];
  }

  let drag = null;
  plot.addEventListener('mousemove', (ev) => {
    if (drag) {
      const [x, y] = at(ev);
      drag.dx = x - drag.x;
      drag.dy = y - drag.y;
      img.style.transform = `translate(${drag.dx / drag.k}px, ${drag.dy / drag.k}px)`;
      return;
    }
    hover(ev);
  });
  plot.addEventListener('mouseleave', () => { tip.hidden = ring.hidden = true; });
  let dragged = false;
  plot.addEventListener('click', (ev) => {
    if (!frame || dragged) return;
    const [x, y] = at(ev), q = nearest(x, y);
    if (q && q.pt.id) go(`/runs/${q.pt.id}`);
  });
  if (opts.zoomable) {
    plot.classList.add('zoomable');
    plot.addEventListener('mousedown', (ev) => {
      if (!frame || ev.button !== 0) return;
      const [x, y, k] = at(ev);
      drag = { x, y, k, dx: 0, dy: 0 };
      dragged = false;
      ev.preventDefault();
    });
    window.addEventListener('mouseup', () => {
      if (!drag) return;
      const d = drag;
      drag = null;
      if (Math.abs(d.dx) + Math.abs(d.dy) < 3) { img.style.transform = ''; return; }
      dragged = true;
      setView(viewFrom(0, 0, 1, d.dx, d.dy));
    });
    plot.addEventListener('wheel', (ev) => {
      if (!frame) return;
      ev.preventDefault();
      const [x, y, k] = at(ev), f = Math.exp(Math.sign(ev.deltaY) * Math.min(Math.abs(ev.deltaY), 300) * 0.002);
      pending = pending || { f: 1 };
      pending.f *= f;
      pending.x = x;
      pending.y = y;
      img.style.transformOrigin = `${x / k}px ${y / k}px`;
      img.style.transform = `scale(${1 / pending.f})`;
      clearTimeout(pending.timer);
      pending.timer = setTimeout(() => { const p = pending; pending = null; setView(viewFrom(p.x, p.y, p.f, 0, 0)); }, 180);
    }, { passive: false });
    plot.addEventListener('dblclick', () => setView(null));
    const centre = (f) => {
      const p0 = frame.panels[0];
      setView(viewFrom((p0.left + p0.right) / 2, (p0.top + p0.bottom) / 2, f, 0, 0));
    };
    tools.append(el('button', { type: 'button', class: 'secondary', onclick: () => frame && centre(0.5) }, 'Zoom in'),
      el('button', { type: 'button', class: 'secondary', onclick: () => frame && centre(2) }, 'Zoom out'),
      el('button', { type: 'button', class: 'secondary', onclick: () => setView(null) }, 'Whole series'),
      el('span', { class: 'muted' }, 'wheel: zoom · drag: pan · double-click: whole series'));
  }
  Promise.resolve(pointsOrPromise).then((got) => {
    points = Array.isArray(got) ? got : got.points;
    note = got.error ? `hover needs the points: ${got.error}` : '';
    if (frame) { place(); status.textContent = note; }
    if (!points.length) return;
    const tbtn = el('button', { type: 'button', class: 'secondary', 'aria-expanded': 'false' }, 'Table');
    tbtn.addEventListener('click', () => {
      table.hidden = !table.hidden;
      tbtn.setAttribute('aria-expanded', String(!table.hidden));
      if (!table.hidden && !table.firstChild) table.append(pointsTable(points.filter((q) => !q.panel), kind));
    });
    tools.prepend(tbtn);
  });
  Promise.resolve(opts.after).then(() => new ResizeObserver((entries) => {
    const w = entries[0].contentRect.width;
    if (w > 0 && Math.abs(w - width) > 40) { width = w; load(); }
  }).observe(plot));
  return fig;
}

function pointsTable(points, name) {
  if (points.length && points[0].speedup !== undefined) {
    return dataTable([{ key: 'p', label: 'p', num: true }, { key: 'n', label: 'n', num: true },
      { key: 'tau', label: 'τ (s), median', num: true }, { key: 'runs', label: 'runs', num: true },
      { key: 'speedup', label: 'speedup', num: true }, { key: 'efficiency', label: 'efficiency', num: true },
      { key: 'base_p', label: 'from p', num: true }], points, { download: `${name}-points` });
  }
  const rows = points.map((q) => ({ series: q.series || '', p: q.p, n: q.n, tau: q.tau, chi: q.chi,
    efficiency: q.efficiency, runs: q.count, id: q.id }));
  const cols = [
    { key: 'p', label: 'p', num: true }, { key: 'n', label: 'n', num: true },
    { key: 'tau', label: 'τ (s)', num: true }, { key: 'chi', label: 'χ (s)', num: true },
    { key: 'efficiency', label: 'ε', num: true }, { key: 'runs', label: 'runs', num: true },
    { key: 'id', label: 'run', num: true, cell: (r) => link(`/runs/${r.id}`, String(r.id)) }];
  if (rows.some((r) => r.series)) cols.unshift({ key: 'series', label: 'series' });
  return dataTable(cols, rows, { download: `${name}-points`, limit: 2000 });
}

// The pooled (p, n) points of a series, for hover: [{p, n, tau, chi, ...}].
export async function seriesPoints(s, labels = []) {
  const q = apiQuery(s);
  for (const [k, v] of labels) q.append(k, v);
  const r = await api(`/api/v1/analysis/points?${q}`);
  if (!r.ok) return { points: [], error: errorText(r.body) };
  const c = r.body.columns;
  return { points: r.body.points.map((row) => Object.fromEntries(c.map((k, i) => [k, row[i]]))) };
}

// The scaling analysis of a series (tau alone): its points and what its runs carry.
export async function seriesScaling(s, labels = []) {
  const q = apiQuery(s);
  for (const [k, v] of labels) q.append(k, v);
  const r = await api(`/api/v1/analysis/scaling?${q}`);
  if (!r.ok) return { points: [], error: errorText(r.body), response: r };
  return { points: r.body.points.map((x) => ({ ...x, base_p: r.body.base_p[String(x.n)] })), counts: r.body.runs,
    response: r };
}

// Hover points of a chart kind: tau-chi on one panel, p-eps and p-tau on two.
export function chartPoints(kind, pts, series) {
  const out = [];
  for (const q of pts) {
    const base = { ...q, series };
    if (kind === 'isoefficiency') out.push({ ...base, panel: 0, x: q.tau, y: q.chi });
    else if (kind === 'scaling') {
      out.push({ ...base, panel: 0, x: q.p, y: q.tau }, { ...base, panel: 1, x: q.p, y: q.speedup });
    }
    else if (kind === 'efficiency') {
      out.push({ ...base, panel: 0, x: q.p, y: q.efficiency }, { ...base, panel: 1, x: q.p, y: q.tau });
    }
  }
  return out;
}
