// karte's browser UI: plain ES modules, no build step. Every view is a URL
// (/, /series?..., /compare?..., /runs/ID, /upload) that karted answers with
// index.html; this module draws the view from the API. DOM is built with
// textContent only: names from user data are never parsed as HTML.

const view = document.getElementById('view');
const TOKEN_KEY = 'karte-token';

// ---- helpers -------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function link(href, text) {
  return el('a', { href, 'data-nav': '' }, text);
}

function fmt(x, digits = 4) {
  if (x === null || x === undefined) return '';
  if (typeof x !== 'number') return String(x);
  if (Number.isInteger(x)) return String(x);
  return Number(x.toPrecision(digits)).toString();
}

// A number as stored, for a page that shows one run: JavaScript writes the
// shortest text that reads back (2535.05), as karted does.
function exact(x) {
  return x === null || x === undefined ? '' : String(x);
}
function seriesName(s) {
  return `${s.system}:${s.application}${s.variant ? ':' + s.variant : ''}`;
}

function seriesQuery(s) {
  const q = new URLSearchParams({ system: s.system, application: s.application });
  if (s.variant) q.set('variant', s.variant);
  return q;
}
// The same selection for the API: the variant always named (an empty one is
// the default variant; left out, the runs listing would take every variant).
function apiQuery(s) {
  const q = seriesQuery(s);
  q.set('variant', s.variant || '');
  return q;
}

// The label.K=V filters of a page's URL, as [[key, value], ...].
function labelFilters(params) {
  return [...params.entries()].filter(([k]) => k.startsWith('label.') && k.length > 6);
}

// "system:application [k=v, ...]" as the server's legends name them.
function labelled(name, filters) {
  return filters.length ? `${name} [${filters.map(([k, v]) => `${k.slice(6)}=${v}`).join(', ')}]` : name;
}

function parseSeries(spec) {
  const [system, application, ...rest] = spec.split(':');
  return { system, application, variant: rest.join(':') };
}

async function api(path, options = {}) {
  const r = await fetch(path, options);
  let body = null;
  const text = await r.text();
  try { body = text ? JSON.parse(text) : null; } catch { body = text; }
  return { status: r.status, ok: r.ok, body };
}

function message(kind, text) {
  return el('div', { class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
// What an API answer that is not ok says on a page: a calm note when the
// data cannot give it (a 4xx: nothing went wrong), an error otherwise.
function problem(r, what) {
  const text = `${what ? `${what}: ` : ''}${errorText(r.body)}`;
  return message(r.status >= 400 && r.status < 500 ? 'note' : 'error', text);
}

function errorText(body) {
  if (!body || typeof body !== 'object') return String(body);
  let t = body.error || 'error';
  if (body.field) t += ` (field: ${body.field})`;
  return t;
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

function tokenInput() {
  const input = el('input', { type: 'password', id: 'token', name: 'token', autocomplete: 'off',
    placeholder: 'write token (kt_...)', value: token() });
  input.addEventListener('change', () => sessionStorage.setItem(TOKEN_KEY, input.value.trim()));
  return [el('label', { for: 'token' }, 'Token '), input];
}

// A sortable, filterable table; rows are objects, columns {key, label, num, cell}.
// It draws one page of rows at a time (a table of 10^4 series is 10^4 objects
// in memory, 100 rows in the page); filter, sort and the downloads take all.
const PAGE_ROWS = 100;
function dataTable(columns, rows, { id, download, limit = Infinity, page: pageRows = PAGE_ROWS } = {}) {
  let sortKey = null, dir = 1, filter = '', first = 0;
  const tbody = el('tbody');
  const headCells = columns.map((c) => {
    const b = el('button', { class: 'sort', type: 'button', 'data-key': c.key }, c.label);
    b.addEventListener('click', () => {
      dir = sortKey === c.key ? -dir : 1;
      sortKey = c.key;
      for (const o of thead.querySelectorAll('button.sort')) o.removeAttribute('aria-sort');
      b.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
      first = 0;
      render();
    });
    return el('th', { class: c.num ? 'num' : null, scope: 'col' }, b);
  });
  const thead = el('thead', {}, el('tr', {}, headCells));
  const table = el('table', { id }, thead, tbody);
  const count = el('span', { class: 'muted' });

  function shown() {
    let out = rows;
    if (filter) {
      const f = filter.toLowerCase();
      out = out.filter((r) => columns.some((c) => String(r[c.key] ?? '').toLowerCase().includes(f)));
    }
    if (sortKey) {
      out = [...out].sort((a, b) => {
        const x = a[sortKey], y = b[sortKey];
        if (typeof x === 'number' && typeof y === 'number') return (x - y) * dir;
        return String(x ?? '').localeCompare(String(y ?? '')) * dir;
      });
    }
    return out;
  }
  const prev = el('button', { type: 'button', class: 'secondary', 'aria-label': 'previous rows' }, '‹ Previous');
  const next = el('button', { type: 'button', class: 'secondary', 'aria-label': 'next rows' }, 'Next ›');
  prev.addEventListener('click', () => { first = Math.max(0, first - pageRows); render(); });
  next.addEventListener('click', () => { first += pageRows; render(); });
  const pager = el('div', { class: 'toolbar pager' }, prev, next);
  function render() {
    const list = shown();
    const all = Math.min(list.length, limit);
    if (first >= all) first = Math.max(0, all - 1 - ((all - 1) % pageRows));
    const last = Math.min(all, first + pageRows);
    tbody.replaceChildren(...list.slice(first, last).map((r) => el('tr', {}, columns.map((c) =>
      el('td', { class: c.num ? 'num' : null }, c.cell ? c.cell(r) : fmt(r[c.key]))))));
    const range = all > pageRows ? `rows ${first + 1}–${last} of ` : '';
    const of = list.length === rows.length ? `${rows.length}` : `${list.length} matching, ${rows.length} in all`;
    count.textContent = list.length > limit ? `${range}the first ${limit} of ${list.length} (the downloads hold all)`
      : range ? `${range}${of}` : `${list.length} of ${rows.length} shown`;
    pager.hidden = all <= pageRows;
    prev.disabled = first === 0;
    next.disabled = last >= all;
  }
  function save(kind) {
    const list = shown();
    let data, type;
    if (kind === 'csv') {
      data = [columns.map((c) => c.key).join(','),
        ...list.map((r) => columns.map((c) => csvCell(r[c.key])).join(','))].join('\n') + '\n';
      type = 'text/csv';
    } else {
      data = JSON.stringify(list.map((r) => Object.fromEntries(columns.map((c) => [c.key, r[c.key]]))), null, 1);
      type = 'application/json';
    }
    const a = el('a', { href: URL.createObjectURL(new Blob([data], { type })), download: `${download || 'runs'}.${kind}` });
    document.body.append(a);
    a.click();
    a.remove();
  }
  const search = el('input', { type: 'search', placeholder: 'filter rows', 'aria-label': 'filter rows' });
  search.addEventListener('input', () => { filter = search.value; first = 0; render(); });
  const tools = el('div', { class: 'toolbar' }, search,
    download ? el('button', { type: 'button', class: 'secondary', onclick: () => save('csv') }, 'Download CSV') : null,
    download ? el('button', { type: 'button', class: 'secondary', onclick: () => save('json') }, 'Download JSON') : null,
    count);
  render();
  return el('div', {}, tools, el('div', { class: 'table-wrap' }, table), pager);
}

// ---- charts: karted's picture, alive ------------------------------------------
// A chart is karted's own rendering, the SVG (or PDF, PNG) a paper gets,
// fetched at the size of its box so its text is read at its real size.
// X-Karte-Frame says where each panel's data went; the points of the
// analysis are mapped through it for hover and click, and zoom and pan ask
// karted for another view (x_min..y_max), so ticks and labels stay a
// paper's. One renderer, no chart library: what the page shows is what
// the PDF prints.

const RATIO = { isoefficiency: 0.66, efficiency: 0.5, scaling: 0.5, energy: 0.56, 'energy-shares': 0.56, history: 0.6,
  'scaling-history': 0.66, model: 0.66 };
// Beyond this many runs a chart comes as a PNG at the screen's pixel ratio:
// Chromium takes ~0.5 s to show an SVG of 10^4 markers, 7 s for 10^5, and
// a PNG of either in ~0.15 s (make bench).
const SVG_POINTS_MAX = 5000;
const MODEL_REGIONS_MAX = 16;	// regions modelled on a series page
const HIT_PX = 10;

function viewParam(v) {
  return v ? v.map((x) => Number(x.toPrecision(6))).join(',') : null;
}

function parseView(s) {
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
function liveChart(kind, query, caption, pointsOrPromise, opts = {}) {
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
    await new Promise((ok) => { img.onload = ok; img.onerror = ok; img.src = url; });
    if (mine !== loading) return;
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
async function seriesPoints(s, labels = []) {
  const q = apiQuery(s);
  for (const [k, v] of labels) q.append(k, v);
  const r = await api(`/api/v1/analysis/points?${q}`);
  if (!r.ok) return { points: [], error: errorText(r.body) };
  const c = r.body.columns;
  return { points: r.body.points.map((row) => Object.fromEntries(c.map((k, i) => [k, row[i]]))) };
}

// The scaling analysis of a series (tau alone): its points and what its runs carry.
async function seriesScaling(s, labels = []) {
  const q = apiQuery(s);
  for (const [k, v] of labels) q.append(k, v);
  const r = await api(`/api/v1/analysis/scaling?${q}`);
  if (!r.ok) return { points: [], error: errorText(r.body), response: r };
  return { points: r.body.points.map((x) => ({ ...x, base_p: r.body.base_p[String(x.n)] })), counts: r.body.runs,
    response: r };
}

// Hover points of a chart kind: tau-chi on one panel, p-eps and p-tau on two.
function chartPoints(kind, pts, series) {
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

function setParam(key, value) {
  const u = new URL(location.href);
  if (value === null || value === undefined || value === '') u.searchParams.delete(key);
  else u.searchParams.set(key, value);
  history.replaceState(null, '', u.pathname + u.search);
}

// ---- views -----------------------------------------------------------------

async function home() {
  document.title = 'karte — series';
  const r = await api('/api/v1/series');
  if (!r.ok) return [message('error', errorText(r.body))];
  const rows = r.body.series.map((s) => ({ ...s, name: seriesName(s) }));
  const picked = new Set();
  const compare = el('button', { type: 'button', disabled: true }, 'Compare selected');
  compare.addEventListener('click', () => {
    const q = new URLSearchParams();
    for (const s of picked) q.append('series', s);
    go(`/compare?${q}`);
  });
  const columns = [
    { key: 'system', label: 'System' },
    { key: 'application', label: 'Application' },
    { key: 'variant', label: 'Variant', cell: (s) => link(`/series?${seriesQuery(s)}`, s.variant || '(default)') },
    { key: 'runs', label: 'Runs', num: true },
    { key: 'last_run_at', label: 'Last update' },
    { key: 'name', label: 'Compare', cell: (s) => {
      const box = el('input', { type: 'checkbox', 'aria-label': `compare ${s.name}` });
      box.checked = picked.has(s.name);	// a page drawn again keeps what was ticked
      box.addEventListener('change', () => {
        if (box.checked) picked.add(s.name); else picked.delete(s.name);
        compare.disabled = picked.size < 2;
      });
      return box;
    } },
  ];
  return [el('h1', {}, 'Series'),
    el('p', { class: 'explain' }, 'Every system × application and its variants (algorithms or builds). ' +
      'Open a variant for its analyses; tick two or more to compare them.'),
    rows.length ? dataTable(columns, rows, { id: 'series', download: 'series' }) :
      message('ok', 'No runs yet: upload some, or POST them to /api/v1/runs.'),
    el('div', { class: 'toolbar' }, compare)];
}

function spsTable(iso) {
  const rows = iso.sps.map((s) => ({
    base: `(${s.base.p}, ${fmt(s.base.n)})`, grown_n: fmt(s.grown_n.n), grown_p: s.grown_p.p,
    efficiency: s.efficiency, crossing: s.crossing, arrow: s.arrow_region, step: s.step_region,
    uncertain: s.uncertain ? 'uncertain' : '' }));
  return dataTable([
    { key: 'base', label: 'base (p, n)' }, { key: 'grown_n', label: "n'", num: true },
    { key: 'grown_p', label: "p'", num: true }, { key: 'efficiency', label: 'ε', num: true },
    { key: 'crossing', label: 'crossing' }, { key: 'arrow', label: 'arrow' }, { key: 'step', label: 'step' },
    { key: 'uncertain', label: 'verdict' }], rows, { id: 'sps' });
}

// No SPS triple: why, from the grid the points form, with the weak-scaling
// efficiency of a weak-scaling series and the runs that would complete it.
function noSps(scaling) {
  const out = [message('ok', `No SPS triple in this series. ${scaling ? scaling.explanation : ''}`)];
  if (scaling && scaling.kind === 'weak') {
    out.push(el('h3', {}, 'Weak-scaling efficiency τ(p₀)/τ(p)'), dataTable([
      { key: 'p', label: 'p', num: true }, { key: 'n', label: 'n', num: true },
      { key: 'tau', label: 'τ (s)', num: true }, { key: 'efficiency', label: 'efficiency', num: true }],
    scaling.weak_efficiency, { id: 'weak' }));
  }
  if (scaling && scaling.to_complete.length) {
    out.push(el('p', { class: 'explain', id: 'to-complete' }, 'Runs that would complete the grid: ' +
      scaling.to_complete.map((x) => `(p = ${x.p}, n = ${fmt(x.n)})`).join(', ') + '.'));
  }
  return el('div', {}, ...out);
}

function stepsTable(iso) {
  const rows = iso.steps.map((s) => ({ n: s.n, from_p: s.from_p, to_p: s.to_p, region: s.region,
    slope: s.slope, uncertain: s.uncertain ? 'uncertain' : '' }));
  return dataTable([
    { key: 'n', label: 'n', num: true }, { key: 'from_p', label: 'from p', num: true },
    { key: 'to_p', label: 'to p', num: true }, { key: 'region', label: 'region' },
    { key: 'slope', label: 'dχ/dτ', num: true }, { key: 'uncertain', label: 'verdict' }], rows, { id: 'steps' });
}

// Extra-P's scaling models of a series: a row per metric (τ, χ, γ and each
// region the runs carry) with its function, fit and warnings; the chart of
// the chosen row (measured medians with their spread, the model, its band
// and the extrapolation) and the isoefficiency function from the models.
// Sentences joined as prose: each ends with a full stop and starts with a capital.
function sentences(list) {
  return list.map((t) => t.trim()).filter(Boolean)
    .map((t) => `${t[0].toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`).join(' ');
}

function qualityBadge(r) {
  if (!r.quality || r.quality === 'good') return null;
  return el('span', { class: `quality ${r.quality}`, title: (r.quality_reasons || []).join(' ') }, r.quality);
}

// Models of the series' metrics as GET /api/v1/analysis/model answers them
// by default (the metric as measured); modelling p × the metric (resource)
// is a choice, named on the table and the chart when made. A model that is
// not good is greyed and says why; an unusable one draws no extrapolation.
function modelsSection(q, runs, hasChi = true) {
  const regions = [...new Set(runs.flatMap((r) => (r.regions || []).map((g) => g.name)))].slice(0, MODEL_REGIONS_MAX);
  const metrics = [['tau', 'τ'], ...(hasChi ? [['chi', 'χ'], ['gamma', 'γ']] : []),
    ...regions.map((g) => [`region:${g}`, `region ${g}`])];
  const resource = el('input', { type: 'checkbox', id: 'model-resource' });
  const tableBox = el('div', {}, el('p', { class: 'muted' }, 'Modelling…'));
  const chartBox = el('div', { class: 'charts' });
  let chosen = 'tau';
  const queryFor = (metric) => {
    const c = new URLSearchParams(q);
    c.set('metric', metric);
    if (resource.checked) c.set('resource', 'true');
    return c;
  };
  const reading = () => resource.checked ? ' (modelled as p × the metric, divided by p)' : '';
  function drawCharts() {
    const label = (metrics.find(([m]) => m === chosen) || [chosen, chosen])[1];
    const boxes = [liveChart('model', queryFor(chosen), `scaling model of ${label}${reading()}`, [])];
    if (hasChi) boxes.push(liveChart('isoefficiency-function', q, 'isoefficiency function: measured and from the models', []));
    chartBox.replaceChildren(...boxes);
  }
  async function load() {
    tableBox.replaceChildren(el('p', { class: 'muted' }, 'Modelling…'));
    const rows = await Promise.all(metrics.map(async ([m, label]) => {
      const r = await api(`/api/v1/analysis/model?${queryFor(m)}`);
      if (!r.ok) return { key: m, metric: label, function: errorText(r.body) };
      const b = r.body;
      return { key: m, metric: label, function: b.function, quality: b.quality, quality_reasons: b.quality_reasons,
        smape: b.smape, adj_r2: b.adj_r2, points: b.points,
        at: b.n !== undefined ? `n = ${fmt(b.n)}` : b.scaling, band: b.band_from,
        notes: sentences([...(b.quality_reasons || []), ...b.warnings]) };
    }));
    const t = dataTable([
      { key: 'metric', label: 'metric', cell: (r) => el('button', { type: 'button', class: 'linkish',
        'data-metric': r.key, onclick: () => { chosen = r.key; drawCharts(); } }, r.metric) },
      { key: 'function', label: `model${resource.checked ? ' (as p × metric) / p' : ''}`,
        cell: (r) => el('span', {}, r.function || '', qualityBadge(r)) },
      { key: 'smape', label: 'SMAPE (%)', num: true },
      { key: 'adj_r2', label: 'adj. R²', num: true }, { key: 'points', label: 'points', num: true },
      { key: 'at', label: 'runs' }, { key: 'band', label: 'band from' }, { key: 'notes', label: 'quality and warnings' }],
    rows, { id: 'models', download: 'models' });
    for (const [i, tr] of [...t.querySelectorAll('tbody tr')].entries())
      if (rows[i] && rows[i].quality && rows[i].quality !== 'good') tr.classList.add('not-good');
    tableBox.replaceChildren(t);
    drawCharts();
  }
  resource.addEventListener('change', () => load());
  load();
  return el('div', {},
    el('p', { class: 'explain' }, 'Performance models in Extra-P’s normal form, c₀ + Σ cₖ·pⁱ·log₂(p)ʲ, chosen by ' +
      'cross-validation over the runs at the n with the most points: the same models GET /api/v1/analysis/model ' +
      'and the compare page give. Each says how good it is (good, poor: SMAPE over 15 % or adj. R² under 0.5, ' +
      'unusable: below zero where the data is not, or adj. R² under 0). Click a metric to draw it.'),
    el('label', { for: 'model-resource' }, resource, ' model p × the metric instead (the resource, for a time ' +
      'that falls like 1/p: Extra-P’s exponents are never negative)'),
    tableBox, chartBox);
}

// Where the models say τ stops falling (C1 turning into C3), per n.
function turnsTable(models) {
  if (!models || !models.c1_c3) return el('p', { class: 'muted' }, models && models.skipped ? `No models: ${models.skipped}` : '');
  return el('div', {}, el('h3', {}, 'Where τ stops falling, from the models'),
    dataTable([{ key: 'n', label: 'n', num: true }, { key: 'p', label: 'p', num: true },
      { key: 'tau', label: 'τ (s)', num: true }, { key: 'tau_low', label: 'τ low', num: true },
      { key: 'tau_high', label: 'τ high', num: true },
      { key: 'extrapolated', label: '', cell: (r) => r.note || (r.extrapolated ? 'extrapolated' : 'measured range') }],
    models.c1_c3, { id: 'c1c3-model' }));
}

// The newest runs of a series, at most max of them.
async function runsPage(q, max) {
  const out = [];
  let after = '';
  while (out.length < max) {
    const r = await api(`/api/v1/runs?${q}&limit=${Math.min(1000, max - out.length)}${after ? `&after=${after}` : ''}`);
    if (!r.ok) break;
    out.push(...r.body.runs);
    if (!r.body.next) return { runs: out, more: false };
    after = r.body.next;
  }
  return { runs: out, more: true };
}

function runsTable(runs, name, more = false, total = runs.length) {
  const rows = runs.map((r) => ({ id: r.id, p: r.p, n: r.n, tau: r.tau, chi: r.chi, efficiency: r.efficiency,
    frequency_mhz: r.frequency_mhz ?? null, energy_j: r.energy_j ?? null, created_at: r.created_at }));
  const t = dataTable([
    { key: 'id', label: 'id', num: true, cell: (r) => link(`/runs/${r.id}`, String(r.id)) },
    { key: 'p', label: 'p', num: true }, { key: 'n', label: 'n', num: true },
    { key: 'tau', label: 'τ (s)', num: true }, { key: 'chi', label: 'χ (s)', num: true },
    { key: 'efficiency', label: 'ε', num: true }, { key: 'frequency_mhz', label: 'f (MHz)', num: true },
    { key: 'energy_j', label: 'E (J)', num: true }, { key: 'created_at', label: 'stored' }],
  rows, { id: 'runs', download: name.replaceAll(':', '_') });
  if (more) t.prepend(el('p', { class: 'muted' }, `The newest ${runs.length} of ${total} runs; ` +
    'GET /api/v1/runs pages through them all.'));
  return t;
}

// What a series' runs lack, and what adding it would show: one calm note.
function energyReady(counts) {
  return counts.with_energy > 0 && counts.with_frequency > 0;
}
function absenceNote(counts) {
  const noChi = counts.with_chi === 0, noEnergy = counts.with_energy === 0;
  if (!noChi && energyReady(counts)) return null;
  const parts = [];
  if (noChi) {
    parts.push('These runs carry τ alone: karte shows τ against p with the speedup, the scaling models and the ' +
      'history. With χ (or γ) per run it would add the τ–χ plane, the efficiency and Orii’s scalable-parallel-' +
      'system analysis: post "chi" or "gamma" (seconds of overhead, or of parallel computation) with each run, ' +
      'or import with --chi-regions A,B (chi_regions=A,B) naming the regions that are overhead, such as MPI_Waitall.');
  }
  if (noEnergy) {
    parts.push(`${noChi ? 'No' : 'These runs carry no'} energy: with regions that have "energy_j" (or "power_w") at ` +
      'the standard frequency and others, karte would predict the energy saved on more nodes (Kimura). ' +
      'karte-collect run measures RAPL energy; the region library writes each region’s.');
  } else if (!energyReady(counts)) {
    parts.push('The runs carry energy but no frequency: the prediction of the energy saved on more nodes (Kimura) ' +
      'compares regions run at the standard frequency with the same regions at others. Post "frequency_mhz" ' +
      'with each run (and with each region run at another frequency).');
  }
  return el('div', { class: 'message note', role: 'status', id: 'absent' }, ...parts.map((t) => el('p', {}, t)));
}

async function series(params) {
  const s = { system: params.get('system') || '', application: params.get('application') || '',
    variant: params.get('variant') || '' };
  const name = seriesName(s);
  const filters = labelFilters(params);
  document.title = `karte — ${labelled(name, filters)}`;
  // one selection for every part of the page: this variant, these labels
  const q = apiQuery(s);
  for (const [k, v] of filters) q.append(k, v);
  const cat = await api('/api/v1/series');
  const info = cat.ok ? cat.body.series.find((x) => seriesName(x) === name) : null;
  if (!info) return [el('h1', {}, name), message('error', `There are no runs of series ${name}.`)];
  const others = cat.body.series.filter((x) => x.system === s.system && x.application === s.application &&
    x.variant !== s.variant);
  const sc = await seriesScaling(s, filters);
  if (sc.error) return [el('h1', {}, labelled(name, filters)), problem(sc.response)];
  const counts = sc.counts, hasChi = counts.with_chi > 0, hasEnergy = energyReady(counts);
  const large = info.runs > SVG_POINTS_MAX;
  // the charts first; the points (hover), the analysis and the runs once
  // the first is drawn, so a series of 10^5 runs shows its picture at once
  let firstDrawn;
  const drawn = new Promise((ok) => { firstDrawn = ok; });
  const charts = [];
  const scale = liveChart('scaling', q, 'τ and speedup versus p', { points: chartPoints('scaling', sc.points, '') },
    { png: large });
  scale.addEventListener('drawn', firstDrawn);
  charts.push(scale);
  if (hasChi) {
    const points = drawn.then(() => seriesPoints(s, filters));
    charts.push(liveChart('isoefficiency', q, 'τ–χ isoefficiency', points.then((r) => ({ ...r,
      points: chartPoints('isoefficiency', r.points, '') })),
    { zoomable: true, view: parseView(params.get('view')), onView: (v) => setParam('view', viewParam(v)), png: large,
      after: drawn }));
    charts.push(liveChart('efficiency', q, 'efficiency and parallel time', points.then((r) => ({ ...r,
      points: chartPoints('efficiency', r.points, '') })), { png: large, after: drawn }));
  }
  if (hasEnergy) charts.push(liveChart('energy', q, 'energy saved versus nodes', [], { after: drawn }));
  const spsBox = el('div', {}, el('p', { class: 'muted' }, 'Analysing…'));
  const stepsBox = el('div');
  const runsBox = el('div', {}, el('p', { class: 'muted' }, 'Loading runs…'));
  let turns = null;
  if (hasChi) {
    turns = drawn.then(() => api(`/api/v1/analysis/isoefficiency?${q}&points=false&max_pairs=2000`)).then((r) => {
      if (!r.ok) { spsBox.replaceChildren(problem(r)); return null; }
      spsBox.replaceChildren(r.body.sps.length ? spsTable(r.body) : noSps(r.body.scaling));
      stepsBox.replaceChildren(el('h2', {}, 'C1, C2 and C3 steps'),
        el('p', { class: 'explain' }, `Each step to more processors at fixed n: C1 when τ falls, C2 when it ` +
          `changes by at most ${fmt(r.body.c2_rtol * 100)} %, C3 when it rises — processors used redundantly.`),
        stepsTable(r.body), turnsTable(r.body.models));
      return r.body;
    });
  }
  const modelsBox = el('div', { id: 'models-section' }, el('p', { class: 'muted' }, 'Modelling…'));
  const historyBox = el('div', { id: 'history-section' }, el('p', { class: 'muted' }, 'Loading runs…'));
  drawn.then(() => runsPage(q, 1000)).then(({ runs, more }) => {
    runsBox.replaceChildren(runsTable(runs, name, more, info.runs));
    modelsBox.replaceChildren(modelsSection(q, runs, hasChi));
    historyBox.replaceChildren(historyLinks(s, filters, runs));
  });
  const labelsBox = el('div', { id: 'labels-section' });
  api(`/api/v1/series/labels?${apiQuery(s)}`).then((r) => {
    if (r.ok) labelsBox.replaceChildren(labelControls(s, filters, r.body.labels));
  });
  const variants = others.length ? el('p', { class: 'muted', id: 'variants' }, 'Other variants of ' +
    `${s.system}:${s.application}: `, ...others.flatMap((x, i) => [i ? ', ' : '',
    link(`/series?${seriesQuery(x)}`, x.variant || '(default)'), ` (${x.runs} runs)`])) : null;
  const out = [el('h1', {}, labelled(name, filters)),
    el('div', { class: 'toolbar' }, link(`/compare?series=${encodeURIComponent(name)}`, 'Compare with…'),
      el('span', { class: 'muted' }, `${info.runs} runs${filters.length ? ' in the series (the charts: those with the labels)' : ''}` +
        ' · hover a point for its figures, click it for its run')),
    variants, labelsBox, absenceNote(counts), el('div', { class: 'charts' }, ...charts)];
  if (hasChi) {
    out.push(el('h2', {}, 'Scalable parallel systems'),
      el('p', { class: 'explain' }, 'A base run (p, n) and a larger problem n′ at the same p identify a ' +
        'scalable parallel system when raising p at n′ brings the efficiency back down to the base’s: the ' +
        'isoefficiency holds as both grow (Orii).'),
      spsBox, stepsBox);
  }
  out.push(el('h2', {}, 'Scaling models'), modelsBox, el('h2', {}, 'History'), historyBox, el('h2', {}, 'Runs'), runsBox);
  return out.filter((x) => x);
}
function labelControls(s, filters, labels) {
  if (!labels.length) return el('p', { class: 'muted' }, 'The runs carry no labels (e.g. commit, compiler) to filter by.');
  const name = seriesName(s);
  const active = new Map(filters.map(([k, v]) => [k.slice(6), v]));
  const rows = labels.map((l) => {
    const id = `label-${l.key}`;
    const pick = el('select', { id, 'data-label': l.key },
      el('option', { value: '' }, 'all runs'),
      l.values.map((v) => el('option', { value: v.value, selected: active.get(l.key) === v.value },
        `${v.value} (${v.runs} run${v.runs === 1 ? '' : 's'})`)));
    pick.addEventListener('change', () => {
      const q = seriesQuery(s);
      for (const [k, v] of filters) if (k !== `label.${l.key}`) q.append(k, v);
      if (pick.value) q.set(`label.${l.key}`, pick.value);
      go(`/series?${q}`);
    });
    const parts = [el('label', { for: id }, `${l.key} `), pick];
    if (l.values.length >= 2) {
      const n = l.values.length;
      const a = el('select', { 'aria-label': `${l.key}: first value`, 'data-compare': 'a' },
        l.values.map((v, i) => el('option', { value: v.value, selected: i === n - 2 }, v.value)));
      const b = el('select', { 'aria-label': `${l.key}: second value`, 'data-compare': 'b' },
        l.values.map((v, i) => el('option', { value: v.value, selected: i === n - 1 }, v.value)));
      const btn = el('button', { type: 'button', class: 'secondary' }, 'Side by side');
      btn.addEventListener('click', () => {
        const q = new URLSearchParams({ series: name });
        q.append(`label.${l.key}`, a.value);
        q.append(`label.${l.key}`, b.value);
        go(`/compare?${q}`);
      });
      parts.push(el('span', { class: 'muted' }, ' compare '), a, el('span', { class: 'muted' }, ' with '), b, ' ', btn);
    }
    if (l.more) parts.push(el('span', { class: 'muted' }, ' (the 1000 most recent values)'));
    return el('div', { class: 'toolbar label-row', 'data-key': l.key }, ...parts);
  });
  return el('fieldset', { class: 'labels' }, el('legend', {}, 'Labels'), ...rows);
}

// Each (p, n) point of the runs, linked to its history over time.
function historyLinks(s, filters, runs) {
  const points = new Map();
  for (const r of runs) {
    const key = `${r.p}|${r.n}`;
    points.set(key, { p: r.p, n: r.n, runs: (points.get(key)?.runs || 0) + 1 });
  }
  const rows = [...points.values()].sort((a, b) => a.p - b.p || a.n - b.n);
  if (!rows.length) return el('p', { class: 'muted' }, 'No runs.');
  const href = (r) => {
    const q = seriesQuery(s);
    q.set('p', r.p);
    q.set('n', r.n);
    for (const [k, v] of filters) q.append(k, v);
    return `/history?${q}`;
  };
  return el('div', {}, el('p', { class: 'explain' }, 'Each run of a point held against the median and MAD of ' +
    'the runs before it: a regression or an improvement when it leaves the band.'),
  el('ul', { class: 'points', id: 'history-points' }, rows.slice(0, 200).map((r) =>
    el('li', {}, link(href(r), `p = ${r.p}, n = ${fmt(r.n)}`), el('span', { class: 'muted' }, ` ${r.runs} run${r.runs === 1 ? '' : 's'}`)))));
}

// /history?system&application[&variant]&p&n[&by][&metric][&label.K=V]: one
// point over time with its baseline band and verdicts, and the p–τ curve
// of the latest commit beside the one before it.
async function historyPage(params) {
  const s = { system: params.get('system') || '', application: params.get('application') || '',
    variant: params.get('variant') || '' };
  const name = seriesName(s);
  const filters = labelFilters(params);
  const p = params.get('p'), n = params.get('n'), by = params.get('by') || '', metric = params.get('metric') || 'tau';
  document.title = `karte — history of ${name}`;
  const q = seriesQuery(s);
  q.set('p', p || '');
  q.set('n', n || '');
  if (by) q.set('by', by);
  if (metric !== 'tau') q.set('metric', metric);
  for (const [k, v] of filters) q.append(k, v);
  const [h, lb] = await Promise.all([api(`/api/v1/analysis/history?${q}`), api(`/api/v1/series/labels?${seriesQuery(s)}`)]);
  const head = [el('h1', {}, `History of ${labelled(name, filters)} at p = ${p}, n = ${n}`),
    el('p', {}, 'Series ', link(`/series?${seriesQuery(s)}`, name))];
  if (!h.ok) return [...head, message('error', errorText(h.body))];
  const keys = lb.ok ? lb.body.labels : [];
  const set = (key, value) => {
    const u = new URLSearchParams(q);
    if (value) u.set(key, value); else u.delete(key);
    return `/history?${u}`;
  };
  const axisPick = el('select', { id: 'history-by' }, el('option', { value: '' }, 'time (measured_at)'),
    keys.map((l) => el('option', { value: l.key, selected: l.key === by }, `label ${l.key}`)));
  axisPick.addEventListener('change', () => go(set('by', axisPick.value)));
  const metricPick = el('select', { id: 'history-metric' },
    el('option', { value: 'tau', selected: metric === 'tau' }, 'τ'),
    el('option', { value: 'energy_j', selected: metric === 'energy_j' }, 'energy'));
  metricPick.addEventListener('change', () => go(set('metric', metricPick.value === 'tau' ? '' : metricPick.value)));
  const runs = h.body.runs;
  const unit = metric === 'tau' ? 's' : 'J';
  const text = (r) => [`run ${r.id}${r.group ? ` · ${by} ${r.group}` : ''}`, r.measured_at,
    `${metric === 'tau' ? 'τ' : 'E'} = ${fmt(r[metric])} ${unit}: ${r.verdict ?? 'no value'}`,
    r.baseline ? `baseline ${fmt(r.baseline.median)} ± MAD ${fmt(r.baseline.mad)} (${r.baseline.runs} runs)` : 'no runs before'];
  // hover: x is the run's place in time (with by=, the server spreads a value's runs)
  const points = by ? [] : runs.map((r, i) => ({ panel: 0, x: i + 1, y: r[metric], id: r.id, text: text(r) }))
    .filter((pt) => pt.y !== null);
  const c = h.body.counts, t = h.body.thresholds;
  const out = [...head,
    el('div', { class: 'toolbar' }, el('label', { for: 'history-by' }, 'Across '), axisPick,
      el('label', { for: 'history-metric' }, ' metric '), metricPick,
      el('span', { class: 'muted' }, `${runs.length} run${runs.length === 1 ? '' : 's'} · ${c.regression} regression${c.regression === 1 ? '' : 's'}, ` +
        `${c.improvement} improvement${c.improvement === 1 ? '' : 's'} · thresholds ${fmt(t.rel * 100)} % and ` +
        `${fmt(t.noise)} × 1.4826 MAD after ${t.min_runs} runs`)),
    el('div', { class: 'charts' }, liveChart('history', q, `${metric === 'tau' ? 'τ' : 'energy'} over ${by ? `label ${by}` : 'time'}`, points))];
  const rows = runs.map((r) => ({ id: r.id, measured_at: r.measured_at, group: r.group ?? '', value: r[metric],
    verdict: r.verdict ?? '', median: r.baseline?.median ?? null, mad: r.baseline?.mad ?? null,
    early: r.verdict === 'ok' && (!r.baseline || r.baseline.runs < t.min_runs) }));
  const cols = [{ key: 'id', label: 'run', num: true, cell: (r) => link(`/runs/${r.id}`, String(r.id)) },
    { key: 'measured_at', label: 'measured' }];
  if (by) cols.push({ key: 'group', label: by });
  cols.push({ key: 'value', label: `${metric === 'tau' ? 'τ' : 'E'} (${unit})`, num: true },
    { key: 'verdict', label: 'verdict', cell: (r) => r.early
      ? el('span', { class: 'verdict muted' }, `ok: fewer than ${t.min_runs} runs before`)
      : el('span', { class: `verdict ${r.verdict}` }, r.verdict) },
    { key: 'median', label: 'baseline median', num: true }, { key: 'mad', label: 'MAD', num: true });
  out.push(el('h2', {}, 'Runs and verdicts'), dataTable(cols, rows.reverse(), { id: 'history', download: `${name.replaceAll(':', '_')}-history` }));
  // the scaling curve of one label value beside the one before it
  const lab = keys.find((l) => l.key === (by || 'commit'));
  if (lab && lab.values.length) {
    const sq = seriesQuery(s);
    sq.set('by', lab.key);
    const value = params.get('value') || lab.values[lab.values.length - 1].value;
    sq.set('value', value);
    const pick = el('select', { id: 'scaling-value' }, lab.values.map((v) => el('option', { value: v.value, selected: v.value === value }, v.value)));
    pick.addEventListener('change', () => go(set('value', pick.value)));
    out.push(el('h2', {}, `Scaling across ${lab.key}`),
      el('p', { class: 'explain' }, `τ over p at the busiest n for one ${lab.key} beside the one before it (in the order of their first runs).`),
      el('div', { class: 'toolbar' }, el('label', { for: 'scaling-value' }, `${lab.key} `), pick),
      el('div', { class: 'charts' }, liveChart('scaling-history', sq, `p–τ: ${lab.key} ${value} and the one before`, [])));
  }
  return out;
}

// /alerts: the regressions found on ingest, newest first, each linked to
// its run and to its point's history; acknowledged with a write token.
async function alertsPage(params) {
  document.title = 'karte — alerts';
  const q = new URLSearchParams();
  for (const k of ['system', 'application', 'variant', 'acknowledged', 'after']) if (params.get(k)) q.set(k, params.get(k));
  q.set('limit', '100');
  const r = await api(`/api/v1/alerts?${q}`);
  const out = [el('h1', {}, 'Alerts'),
    el('p', { class: 'explain' }, 'A run posted to /api/v1/runs is held against the median and MAD of the earlier runs of its ' +
      '(p, n) point; a regression of τ, energy or a region\'s energy makes an alert. ',
    el('a', { href: `/api/v1/alerts?format=atom${q.get('system') ? `&system=${encodeURIComponent(q.get('system'))}` : ''}` }, 'Atom feed'))];
  if (!r.ok) return [...out, message('error', errorText(r.body))];
  const unacked = new URLSearchParams(q);
  unacked.delete('after');
  unacked.delete('limit');
  if (params.get('acknowledged') === 'false') unacked.delete('acknowledged'); else unacked.set('acknowledged', 'false');
  out.push(el('div', { class: 'toolbar' }, link(`/alerts?${unacked}`,
    params.get('acknowledged') === 'false' ? 'Show all alerts' : 'Show unacknowledged only')));
  if (!r.body.alerts.length) return [...out, message('ok', 'No alerts: no run has left its baseline.')];
  const status = el('div');
  const tok = tokenInput();
  const ack = async (a, btn) => {
    const t = document.getElementById('token').value.trim();
    sessionStorage.setItem(TOKEN_KEY, t);
    const d = await api(`/api/v1/alerts/${a.id}/ack`, { method: 'POST', headers: { Authorization: `Bearer ${t}` } });
    status.replaceChildren(d.ok ? message('ok', `Alert ${a.id} acknowledged.`) : message('error', errorText(d.body)));
    if (d.ok) btn.replaceWith(el('span', {}, `by ${d.body.acknowledged_by}`));
  };
  const rows = r.body.alerts.map((a) => ({ ...a, series: seriesName(a), change: a.regressions?.[0]?.change ?? null,
    labelText: Object.entries(a.labels || {}).map(([k, v]) => `${k}=${v}`).join(', '),
    what: a.regressions.map((g) => g.region ? `${g.metric} of ${g.region}` : g.metric).join(', ') }));
  const histHref = (a) => {
    const hq = seriesQuery(a);
    hq.set('p', a.p);
    hq.set('n', a.n);
    return `/history?${hq}`;
  };
  out.push(el('div', { class: 'toolbar' }, ...tok), status, dataTable([
    { key: 'created_at', label: 'found' },
    { key: 'series', label: 'series', cell: (a) => link(`/series?${seriesQuery(a)}`, a.series) },
    { key: 'p', label: 'p', num: true }, { key: 'n', label: 'n', num: true },
    { key: 'measured_at', label: 'run measured' }, { key: 'labelText', label: 'labels' },
    { key: 'what', label: 'regression of' },
    { key: 'value', label: 'value', num: true }, { key: 'change', label: 'change', num: true,
      cell: (a) => (a.change === null ? '' : `+${fmt(a.change * 100, 3)} %`) },
    { key: 'run_id', label: 'run', num: true, cell: (a) => link(`/runs/${a.run_id}`, String(a.run_id)) },
    { key: 'id', label: 'history', cell: (a) => link(histHref(a), 'history') },
    { key: 'acknowledged', label: 'acknowledged', cell: (a) => {
      if (a.acknowledged) return `by ${a.acknowledged_by}`;
      const b = el('button', { type: 'button', class: 'secondary', 'data-ack': a.id }, 'Acknowledge');
      b.addEventListener('click', () => ack(a, b));
      return b;
    } }], rows, { id: 'alerts', download: 'alerts' }));
  if (r.body.next) {
    const nq = new URLSearchParams(q);
    nq.delete('limit');
    nq.set('after', r.body.next);
    out.push(el('div', { class: 'toolbar' }, link(`/alerts?${nq}`, 'Older alerts')));
  }
  return out;
}

// The one label key a URL gives with two or more values, and those values.
function labelSplit(filters) {
  const seen = new Map();
  for (const [k, v] of filters) seen.set(k, [...new Set([...(seen.get(k) || []), v])]);
  for (const [k, vs] of seen) if (vs.length > 1) return { key: k, values: vs };
  return null;
}

async function compare(params) {
  document.title = 'karte — compare';
  const chosen = params.getAll('series');
  // series x values of one label (label.commit=A&label.commit=B): the
  // server's reports overlay them in this order
  const filters = labelFilters(params);
  const split = labelSplit(filters);
  const base = filters.filter(([k]) => !split || k !== split.key);
  const items = chosen.flatMap((c) => (split ? split.values : [null]).map((v) => {
    const labels = v === null ? base : [...base, [split.key, v]];
    return { spec: c, labels, name: labelled(c, labels) };
  }));
  const all = await api('/api/v1/series');
  const picks = el('ul', { class: 'picks' }, (all.ok ? all.body.series : []).map((s) => {
    const n = seriesName(s);
    const box = el('input', { type: 'checkbox', id: `pick-${n}`, value: n, checked: chosen.includes(n) });
    return el('li', {}, box, ' ', el('label', { for: `pick-${n}` }, n));
  }));
  const apply = el('button', { type: 'button' }, 'Compare');
  apply.addEventListener('click', () => {
    const q = new URLSearchParams();
    for (const b of picks.querySelectorAll('input:checked')) q.append('series', b.value);
    go(`/compare?${q}`);
  });
  const out = [el('h1', {}, 'Compare'),
    el('p', { class: 'explain' }, 'The same application on different systems, or variants on one system: ' +
      'overlaid charts and efficiency and τ at the (p, n) they share.'),
    el('details', { open: items.length < 2 }, el('summary', {}, 'Series'), picks, apply)];
  if (items.length < 2) {
    out.push(message('ok', 'Pick two or more series, or two values of a label (on a series page).'));
    return out;
  }
  if (split) {
    out.push(el('p', { class: 'muted', id: 'label-compare' },
      `${split.key.slice(6)}: ${split.values.join(' beside ')} — each value's runs drawn as a series of their own.`));
  }
  // each series can be hidden from the charts (toggles kept in the URL:
  // hide=NAME); values of a label are drawn together
  const hidden = new Set(split ? [] : params.getAll('hide').filter((h) => chosen.includes(h)));
  // tau alone for every series; the tau-chi points only where runs carry chi
  const scaled = await Promise.all(items.map((it) => seriesScaling(parseSeries(it.spec), it.labels)));
  const loaded = await Promise.all(items.map((it, i) => scaled[i].counts && scaled[i].counts.with_chi > 0
    ? seriesPoints(parseSeries(it.spec), it.labels) : { points: [], noChi: true }));
  const chartsBox = el('div', { class: 'charts' });
  const drawCharts = () => {
    const shown = items.filter((it) => !hidden.has(it.spec));
    if (!shown.length) { chartsBox.replaceChildren(message('ok', 'Every series is hidden: tick one to draw it.')); return; }
    const q = new URLSearchParams();
    for (const c of new Set(shown.map((it) => it.spec))) q.append('series', c);
    for (const [k, v] of filters) q.append(k, v);
    const pts = (kind, from) => shown.flatMap((it) => chartPoints(kind, from[items.indexOf(it)].points, it.name));
    const charts = [liveChart('scaling', q, 'τ and speedup versus p', pts('scaling', scaled))];
    if (shown.every((it) => !loaded[items.indexOf(it)].noChi)) {
      charts.push(liveChart('isoefficiency', q, 'τ–χ isoefficiency', pts('isoefficiency', loaded),
        { zoomable: true, view: parseView(new URL(location.href).searchParams.get('view')),
          onView: (v) => setParam('view', viewParam(v)) }),
      liveChart('efficiency', q, 'efficiency and parallel time', pts('efficiency', loaded)));
    }
    charts.push(liveChart('model', q, 'scaling model of τ over p', []));
    chartsBox.replaceChildren(...charts);
  };
  const tauAlone = items.filter((_, i) => loaded[i].noChi && !scaled[i].error).map((it) => it.name);
  if (tauAlone.length) {
    out.push(el('div', { class: 'message note', role: 'status', id: 'absent' },
      `${tauAlone.join(', ')} ${tauAlone.length > 1 ? 'carry' : 'carries'} τ alone: the series are compared by τ ` +
      'and the speedup against p; with χ (or γ) in every series the τ–χ plane and the efficiency would be drawn too.'));
  }
  const toggles = split ? el('div') : el('fieldset', { class: 'toggles' }, el('legend', {}, 'Shown in the charts'),
    chosen.map((c) => {
      const box = el('input', { type: 'checkbox', id: `show-${c}`, checked: !hidden.has(c) });
      box.addEventListener('change', () => {
        if (box.checked) hidden.delete(c); else hidden.add(c);
        const u = new URL(location.href);
        u.searchParams.delete('hide');
        for (const h of hidden) u.searchParams.append('hide', h);
        history.replaceState(null, '', u.pathname + u.search);
        drawCharts();
      });
      return el('label', { for: `show-${c}` }, box, ' ', c);
    }));
  drawCharts();
  out.push(toggles, chartsBox);
  const byPoint = new Map();
  // tau of every series at each (p, n); Orii's eps beside it where chi is measured
  scaled.forEach((l, i) => {
    const e = l.error || loaded[i].error;
    if (e) { out.push(message('error', `${items[i].name}: ${e}`)); return; }
    const eps = new Map(loaded[i].points.map((pt) => [`${pt.p}|${pt.n}`, pt.efficiency]));
    for (const pt of l.points) {
      const key = `${pt.p}|${pt.n}`;
      if (!byPoint.has(key)) byPoint.set(key, { p: pt.p, n: pt.n });
      byPoint.get(key)[`tau${i}`] = pt.tau;
      if (eps.has(key)) byPoint.get(key)[`eps${i}`] = eps.get(key);
    }
  });
  const rows = [...byPoint.values()].filter((r) => items.filter((_, i) => r[`tau${i}`] !== undefined).length >= 2);
  const columns = [{ key: 'p', label: 'p', num: true }, { key: 'n', label: 'n', num: true }];
  items.forEach((it, i) => {
    if (!loaded[i].noChi) columns.push({ key: `eps${i}`, label: `ε ${it.name}`, num: true });
    columns.push({ key: `tau${i}`, label: `τ ${it.name} (s)`, num: true });
  });
  out.push(el('h2', {}, 'At matching (p, n)'),
    rows.length ? dataTable(columns, rows, { id: 'matching', download: 'compare' })
      : message('ok', 'These series share no (p, n).'));
  return out;
}

async function runPage(id) {
  document.title = `karte — run ${id}`;
  const r = await api(`/api/v1/runs/${encodeURIComponent(id)}`);
  if (!r.ok) return [el('h1', {}, `Run ${id}`), message('error', errorText(r.body))];
  const run = r.body;
  const s = { system: run.system, application: run.application, variant: run.variant };
  const skip = new Set(['regions', 'labels']);
  const fields = el('dl', { class: 'fields' }, Object.entries(run).filter(([k]) => !skip.has(k))
    .flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, exact(v))]));
  const out = [el('h1', {}, `Run ${run.id}`),
    el('p', {}, 'Series ', link(`/series?${seriesQuery(s)}`, seriesName(s))), fields];
  out.push(el('h2', {}, 'Labels'));
  const labels = Object.entries(run.labels || {});
  out.push(labels.length ? el('div', { class: 'table-wrap' }, el('table', { id: 'labels' },
    el('tbody', {}, labels.map(([k, v]) => el('tr', {}, el('th', { scope: 'row' }, k), el('td', {}, v))))))
    : el('p', { class: 'muted' }, 'none'));
  out.push(el('h2', {}, 'Regions'));
  const regions = (run.regions || []).map((g) => ({ ...g,
    counters: Object.entries(g.counters || {}).map(([k, v]) => `${k}=${exact(v)}`).join(' ') }));
  out.push(regions.length ? dataTable([
    { key: 'name', label: 'name' }, { key: 'time_s', label: 'time (s)', num: true },
    { key: 'energy_j', label: 'energy (J)', num: true }, { key: 'power_w', label: 'power (W)', num: true },
    { key: 'frequency_mhz', label: 'f (MHz)', num: true }, { key: 'counters', label: 'counters' }],
  regions, { id: 'regions' }) : el('p', { class: 'muted' }, 'none'));
  const status = el('div');
  const del = el('button', { type: 'button', class: 'danger' }, 'Delete this run');
  const form = el('form', { class: 'toolbar', hidden: true }, ...tokenInput(),
    el('button', { type: 'submit', class: 'danger' }, 'Delete for good'));
  del.addEventListener('click', () => { form.hidden = false; form.querySelector('input').focus(); });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const t = form.querySelector('input').value.trim();
    sessionStorage.setItem(TOKEN_KEY, t);
    const d = await api(`/api/v1/runs/${run.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${t}` } });
    status.replaceChildren(d.ok ? message('ok', `Run ${run.id} deleted.`) : message('error', errorText(d.body)));
    if (d.ok) { del.disabled = true; form.hidden = true; }
  });
  out.push(el('h2', {}, 'Delete'), el('div', { class: 'toolbar' }, del), form, status);
  return out;
}

// A CSV cell a spreadsheet will not run: one that starts with = + - @, a tab
// or CR and is no number gets an apostrophe in front (karted's exports do the
// same, and both readers take it off again).
const CSV_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
function csvRisky(s) {
  const t = s.replace(/^'+/, '');
  return /^[=+\-@\t\r]/.test(t) && !CSV_NUMBER.test(t);
}
function csvCell(v) {
  let s = String(v ?? '');
  if (csvRisky(s)) s = "'" + s;
  return /[",\n\r\t]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

// CSV (header of run fields, label.NAME columns) to NDJSON; errors name the line.
function csvToNdjson(text) {
  const rows = [];
  let row = [], field = '', quoted = false, line = 1, rowLine = 1;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else if (c === undefined) throw new Error(`line ${rowLine}: a quoted field is not closed`);
      else { if (c === '\n') line++; field += c; }
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n' || c === undefined) {
      if (c === undefined && field === '' && row.length === 0) break;
      row.push(field.replace(/\r$/, ''));
      rows.push({ cells: row, line: rowLine });
      row = []; field = ''; line++; rowLine = line;
    } else field += c;
  }
  if (!rows.length) throw new Error('the file is empty');
  const head = rows[0].cells.map((h) => h.trim());
  const nums = new Set(['p', 'n', 'tau', 'chi', 'gamma', 'frequency_mhz', 'power_cap_w', 'energy_j']);
  const lines = [], csvLine = [];
  for (const { cells, line: ln } of rows.slice(1)) {
    if (cells.length === 1 && cells[0].trim() === '') continue;
    if (cells.length !== head.length) throw new Error(`line ${ln}: ${cells.length} fields, the header has ${head.length}`);
    const run = {};
    head.forEach((h, i) => {
      let v = cells[i].trim();
      if (v.startsWith("'") && csvRisky(v)) v = v.slice(1);
      if (v === '') return;
      if (h.startsWith('label.')) { (run.labels ??= {})[h.slice(6)] = v; return; }
      if (nums.has(h)) {
        const x = Number(v);
        if (!Number.isFinite(x)) throw new Error(`line ${ln}: ${h} '${v}' is not a number`);
        run[h] = x;
      } else run[h] = v;
    });
    lines.push(JSON.stringify(run));
    csvLine.push(ln);
  }
  return { ndjson: lines.join('\n') + '\n', csvLine };
}

async function upload() {
  document.title = 'karte — upload';
  const file = el('input', { type: 'file', id: 'file', accept: '.csv,.ndjson,.jsonl,.json,text/csv' });
  const text = el('textarea', { id: 'text', 'aria-label': 'or paste CSV or NDJSON here',
    placeholder: 'system,application,p,n,tau,chi\nSP2,md,16,80000,12.5,5.6' });
  const result = el('div', { id: 'result' });
  const form = el('form', {},
    el('div', { class: 'toolbar' }, ...tokenInput()),
    el('div', { class: 'toolbar' }, el('label', { for: 'file' }, 'File (CSV or NDJSON) '), file),
    text,
    el('div', { class: 'toolbar' }, el('button', { type: 'submit' }, 'Upload')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const t = form.querySelector('#token').value.trim();
    sessionStorage.setItem(TOKEN_KEY, t);
    let body = text.value, name = 'pasted text';
    if (file.files[0]) { body = await file.files[0].text(); name = file.files[0].name; }
    const isCsv = name.endsWith('.csv') || (!name.match(/\.(nd)?json(l)?$/) && !body.trimStart().startsWith('{'));
    let ndjson = body, csvLine = null;
    if (isCsv) {
      try { ({ ndjson, csvLine } = csvToNdjson(body)); } catch (e) {
        result.replaceChildren(message('error', `${name}: ${e.message}`)); return;
      }
    }
    const r = await api('/api/v1/runs', { method: 'POST', body: ndjson,
      headers: { 'Content-Type': 'application/x-ndjson', Authorization: `Bearer ${t}` } });
    if (!r.ok) {
      let where = '';
      if (r.body && typeof r.body === 'object' && r.body.index !== undefined)
        where = `${name} line ${csvLine ? csvLine[r.body.index] : r.body.index + 1}: `;
      // karted counts NDJSON lines; the line that matters is the file's, named above
      const text = errorText(r.body).replace(/ \(line \d+\)/, '');
      result.replaceChildren(message('error', `${where}${text} — nothing of it was stored`));
      return;
    }
    const ids = r.body.ids;
    const runs = (await Promise.all(ids.slice(0, 100).map((id) => api(`/api/v1/runs/${id}`))))
      .filter((x) => x.ok).map((x) => x.body);
    result.replaceChildren(message('ok', `${ids.length} run${ids.length === 1 ? '' : 's'} stored.`),
      runsTable(runs, 'uploaded'));
  });
  return [el('h1', {}, 'Upload runs'),
    el('p', { class: 'explain' }, 'CSV with a header of run fields (system, application, variant, p, n, ' +
      'tau, chi or gamma, frequency_mhz, energy_j, …, label.NAME), or NDJSON with one run per line. ' +
      'A file is stored whole or not at all; an error names its line and field.'), form, result,
    ...importForm()];
}

const IMPORT_FORMATS = ['extrap-text', 'extrap-jsonl', 'extrap-json', 'talpas', 'cali', 'caliper-json',
  'geopm-report', 'csv', 'ndjson'];

// Another tool's file through POST /api/v1/import: karted reads it, this page
// says what it stored, or why nothing and what the file has.
function importForm() {
  const field = (id, label, attrs = {}) => [el('label', { for: id }, label), el('input', { id, name: id, ...attrs })];
  const file = el('input', { type: 'file', id: 'import-file' });
  const format = el('select', { id: 'import-format' }, el('option', { value: '' }, 'guess'),
    ...IMPORT_FORMATS.map((f) => el('option', { value: f }, f)));
  const result = el('div', { id: 'import-result' });
  const form = el('form', { id: 'import' },
    el('div', { class: 'toolbar' }, el('label', { for: 'import-file' }, 'File '), file,
      el('label', { for: 'import-format' }, 'Format '), format),
    el('div', { class: 'toolbar' }, ...field('import-system', 'System ', { required: true }),
      ...field('import-application', 'Application ', { required: true }),
      ...field('import-variant', 'Variant ')),
    el('div', { class: 'toolbar' }, ...field('import-region', 'Region (tau) ', { placeholder: 'the single root' }),
      ...field('import-metric', 'Metric ', { placeholder: 'time' }),
      ...field('import-n_value', 'Constant n ', { size: 8 }),
      ...field('import-p', 'p is ', { size: 6, placeholder: 'p' }), ...field('import-n', 'n is ', { size: 6, placeholder: 'n' })),
    el('div', { class: 'toolbar' }, el('button', { type: 'submit' }, 'Import')));
  const input = (k) => form.querySelector(`#import-${k}`);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!file.files[0]) { result.replaceChildren(message('error', 'Choose a file to import.')); return; }
    const q = new URLSearchParams();
    if (format.value) q.set('format', format.value);
    for (const k of ['system', 'application', 'variant', 'region', 'metric', 'n_value', 'p', 'n']) {
      const v = input(k).value.trim();
      if (v) q.set(k, v);
    }
    const name = file.files[0].name;
    result.replaceChildren(message('ok', `Sending ${name} …`));
    const r = await api(`/api/v1/import?${q}`, { method: 'POST', body: await file.files[0].arrayBuffer(),
      headers: { 'Content-Type': 'application/octet-stream', Authorization: `Bearer ${token()}` } });
    const warnings = (r.body && r.body.warnings) || [];
    const warnList = warnings.length ? el('ul', { class: 'warnings' }, warnings.map((w) => el('li', {}, w))) : null;
    if (!r.ok) {
      // what the file has, each name a button that fills the field it belongs to
      const av = r.body && r.body.available;
      const pick = (k, names) => names && names.length ? el('p', {}, `${k}: `,
        names.slice(0, 50).map((n) => el('button', { type: 'button', class: 'pick', onclick: () => {
          input(k === 'root regions' ? 'region' : k === 'metrics' ? 'metric' : 'p').value = n;
        } }, n))) : null;
      result.replaceChildren(...[message('error', `${name}: ${errorText(r.body)} — nothing was stored`), warnList,
        av ? el('div', { class: 'available' }, el('p', {}, 'The file has (click to choose):'),
          pick('root regions', av.roots), pick('metrics', av.metrics), pick('parameters', av.parameters)) : null]
        .filter(Boolean));
      return;
    }
    const b = r.body, series = new URLSearchParams({ system: input('system').value.trim(),
      application: input('application').value.trim(), variant: input('variant').value.trim() });
    result.replaceChildren(...[message('ok', r.status === 201
      ? `${name} (${b.format}): ${b.runs} runs from ${b.points} points stored` +
        (b.regions.length ? `; regions ${b.regions.join(', ')}.` : '.')
      : `${name} (${b.format}) was imported before with these choices: its ${b.runs} runs are stored, nothing new.`),
    warnList, el('p', {}, el('a', { href: `/series?${series}` }, 'Open the series'))].filter(Boolean));
  });
  return [el('h2', {}, "Import another tool's file"),
    el('p', { class: 'explain' }, 'Extra-P (text, JSON, JSON lines), Talpas, Caliper (.cali, cali-query or Thicket ' +
      'JSON), GEOPM reports, CSV with any columns (see docs/api.md), or karte\'s own export. Each point and ' +
      'repetition becomes a run; the regions under the one that is tau become its regions. The same file with ' +
      'the same choices again stores nothing.'), form, result];
}

// ---- the other methods: power caps, trace correction, power model -------------

const EXAMPLES = {
  powercap: {
    f_max: 2700, f_min: 1200, t0: 100,
    modules: [{ p_max: 100, p_min: 50 }, { p_max: 110, p_min: 55 }, { p_max: 90, p_min: 45 }, { p_max: 120, p_min: 60 }],
    r: { f: [2700, 2400, 1500, 1200], r: [1, 1.093, 1.74, 2.204] },
    budgets: [250, 300, 350, 400],
  },
  trace: {
    instrumented: 't,p\n0,130\n0.2,160\n0.4,150\n0.6,120\n0.8,140\n1.0,170\n1.2,110\n',
    reference: [{ t: 0, p: 100 }, { t: 0.1, p: 130 }, { t: 0.2, p: 120 }, { t: 0.3, p: 90 }, { t: 0.4, p: 110 },
      { t: 0.5, p: 140 }, { t: 0.6, p: 80 }],
    segments: [{ start: 0, end: 0.6, ref_start: 0, ref_end: 0.3 }, { start: 0.6, end: 1.2, ref_start: 0.3, ref_end: 0.6 }],
  },
  configurations: {
    parameters: ['mm', 'is'], bounds: { mm: [1, 4], is: [1, 4] }, goal: 'energy',
    runs: [[1, 1, 110, 1400], [2, 1, 104, 1200], [1, 2, 105, 1300], [3, 1, 93.9, 1108.15], [2, 2, 104, 1250],
      [4, 1, 105, 1130], [3, 2, 105, 1170], [4, 4, 100, 1155.53]]
      .map(([mm, is, t, e]) => ({ config: { mm, is }, time_s: t, energy_j: e })),
  },
  'power-model': {
    counters: ['instructions', 'cache_misses'],
    training: [[1, 10, 4], [2, 12, 9], [1.5, 30, 6], [1, 8, 20], [2, 40, 10], [1, 25, 2], [3, 33, 30], [1.2, 14, 11]]
      .map(([t, i, c]) => ({ time_s: t, power_w: 5 + 2 * i / t + 0.5 * c / t + ((i * 7 + c) % 3 - 1) * 0.05,
        counters: { instructions: i, cache_misses: c } })),
  },
};

const METHOD_PATHS = { powercap: 'powercap', trace: 'trace-correction', 'power-model': 'power-model',
  configurations: 'configurations' };

// a configuration {mm: 3, is: 1} as "mm 3, is 1"
const configText = (c) => (c ? Object.entries(c).map(([k, v]) => `${k} ${v}`).join(', ') : '—');

function methodSection(kind, title, explain, render) {
  const text = el('textarea', { id: `${kind}-body`, 'aria-label': `${title}: the request body (JSON)` },
    JSON.stringify(EXAMPLES[kind], null, 1));
  const result = el('div', { id: `${kind}-result` });
  const run = el('button', { type: 'button' }, 'Analyse');
  run.addEventListener('click', async () => {
    const path = `/api/v1/analysis/${METHOD_PATHS[kind]}`;
    const r = await api(path, { method: 'POST', body: text.value, headers: { 'Content-Type': 'application/json' } });
    if (!r.ok) { result.replaceChildren(message('error', errorText(r.body))); return; }
    const parts = render(r.body);
    if (kind === 'powercap' || kind === 'trace') {
      const img = await api(`/api/v1/reports/${kind}.svg`, { method: 'POST', body: text.value,
        headers: { 'Content-Type': 'application/json' } });
      if (img.ok) {
        const url = URL.createObjectURL(new Blob([img.body], { type: 'image/svg+xml' }));
        parts.unshift(el('figure', {}, el('img', { src: url, alt: title }), el('figcaption', {}, title)));
      }
    }
    result.replaceChildren(...parts);
  });
  return el('section', { id: kind }, el('h2', {}, title), el('p', { class: 'explain' }, explain),
    text, el('div', { class: 'toolbar' }, run), result);
}

async function methods() {
  document.title = 'karte — power caps, traces, power models';
  return [el('h1', {}, 'Power caps, traces and power models'),
    methodSection('powercap', 'Runtime under a power cap',
      'Inadomi et al.: each module’s power and frequency are linear in one parameter; a budget split evenly ' +
      '(uniform) or so that every module runs at the same frequency (variation-aware); the capped time is ' +
      'T0 × the largest normalised time. Modules may come from a stored table: "pvt": SYSTEM with mean_p_max, mean_p_min.',
      (b) => [dataTable([
        { key: 'budget_w', label: 'budget (W)', num: true },
        { key: 'u2', label: 'T uniform, 2-point (s)', num: true }, { key: 'a2', label: 'T aware, 2-point (s)', num: true },
        { key: 'u3', label: 'T uniform, 3-point (s)', num: true }, { key: 'a3', label: 'T aware, 3-point (s)', num: true },
        { key: 'flag', label: 'note' }],
      b.budgets.map((x) => ({ budget_w: x.budget_w, u2: x.uniform.t_two_point_s, a2: x.variation_aware.t_two_point_s,
        u3: x.uniform.t_three_point_s, a3: x.variation_aware.t_three_point_s,
        flag: x.uniform.infeasible || x.variation_aware.infeasible ? 'budget cannot be met (clamped)' : '' })),
      { id: 'powercap-table' }),
      el('dl', { class: 'fields', id: 'powercap-fit' },
        el('dt', {}, 'cycle ratio'), el('dd', {}, fmt(b.cycle_ratio, 4)),
        ...['two_point', 'three_point', 'best_f3'].flatMap((m) => [
          el('dt', {}, { two_point: '2-point model', three_point: '3-point model', best_f3: 'best-f3 model' }[m]),
          el('dd', {}, b.fit_quality[m] ? `Pearson r ${fmt(b.fit_quality[m].pearson_r, 4)}, R² ` +
            `${fmt(b.fit_quality[m].r2, 4)}${b.models[m] && b.models[m].f3_mhz ? `, f3 ${fmt(b.models[m].f3_mhz)} MHz` : ''}`
            : 'not fitted')]))]),
    methodSection('trace', 'Power-trace correction',
      'Osaka et al.: a trace taken under a heavy profiler is mapped, segment by segment, onto a light reference run: ' +
      'time first, then power from the reference at the same relative position. Traces are [{t, p}] or CSV text.',
      (b) => [el('dl', { class: 'fields', id: 'trace-figures' },
        el('dt', {}, 'duration (s)'), el('dd', {}, `instrumented ${fmt(b.durations_s.instrumented)}, reference ` +
          `${fmt(b.durations_s.reference)}, corrected ${fmt(b.durations_s.corrected)}`),
        el('dt', {}, 'RMS power error (W)'), el('dd', {}, `before ${fmt(b.rms_power_error_w.before)}, after ` +
          `${fmt(b.rms_power_error_w.after)}`)),
      dataTable([{ key: 'segment', label: 'segment' }, { key: 'inst', label: 'instrumented (s)', num: true },
        { key: 'ref', label: 'reference (s)', num: true }, { key: 'ratio', label: 'reference / instrumented', num: true },
        { key: 'ish', label: 'share, instrumented', num: true }, { key: 'rsh', label: 'share, reference', num: true }],
      b.segments.map((x) => ({ segment: String(x.segment), inst: x.instrumented_s, ref: x.reference_s, ratio: x.ratio,
        ish: x.instrumented_share, rsh: x.reference_share })), { id: 'trace-segments' })]),
    methodSection('power-model', 'Regression power model',
      'ePRO-MP: power = Σ c_k · (event_k / time) + c_0 by least squares; counters whose coefficient is not ' +
      'significant (p > 0.05) are dropped. Add "verification" rows for the prediction error.',
      // the regression table as SAS prints it: estimate, standard error, t, p; a
      // dropped counter with its t and p when it was dropped, in the order dropped
      (b) => [dataTable([{ key: 'counter', label: 'counter' }, { key: 'coef', label: 'W per event/s', num: true },
        { key: 'se', label: 'std. error', num: true }, { key: 't', label: 't', num: true },
        { key: 'p', label: 'p-value', num: true }, { key: 'kept', label: '' }],
      [...b.terms.map((x) => ({ counter: x.counter, coef: x.coefficient, se: x.se, t: x.t, p: x.p_value,
        kept: x.counter === '(intercept)' ? 'F_const' : 'kept' })),
        ...b.dropped.map((x) => ({ counter: x.counter, coef: null, se: null, t: x.t, p: x.p_value,
          kept: 'dropped' }))], { id: 'power-model-table' }),
      el('p', { id: 'power-model-fit' }, `R² = ${fmt(b.r2, 6)}, adjusted R² = ${fmt(b.adj_r2, 6)}, ` +
        `residual σ = ${fmt(b.sigma, 4)} W, ${b.dof} degrees of freedom (${b.rows} rows)`)]),
    methodSection('configurations', 'Configuration search',
      'ePRO-MP: from every parameter at its lowest bound, run each configuration with one parameter raised by one, ' +
      'go on from the best while it improves the goal (energy, time or edp), then run the baseline (default: every ' +
      'parameter at its highest). Record what you ran in "runs"; karte says what to run next.',
      (b) => [el('dl', { class: 'fields', id: 'configurations-answer' },
        el('dt', {}, 'best'), el('dd', {}, `${configText(b.best.config)}: ${fmt(b.best.time_s)} s, ${fmt(b.best.energy_j)} J`),
        el('dt', {}, 'run next'), el('dd', {}, b.next ? configText(b.next) : 'nothing: the search is done'),
        el('dt', {}, `over the baseline (${configText(b.baseline.config)})`),
        el('dd', {}, b.baseline.time_improvement === null ? 'not measured yet' :
          `time ${fmt(100 * b.baseline.time_improvement, 3)} % less, energy ` +
          `${fmt(100 * b.baseline.energy_improvement, 3)} % less`)),
      dataTable([{ key: 'step', label: '#', num: true }, { key: 'config', label: 'configuration' },
        { key: 't', label: 'time (s)', num: true }, { key: 'e', label: 'energy (J)', num: true }],
      b.executed.map((x, i) => ({ step: i + 1, config: configText(x.config), t: x.time_s, e: x.energy_j })),
      { id: 'configurations-executed' })]),
  ];
}

// ---- routing ------------------------------------------------------------------

async function route() {
  const url = new URL(location.href);
  let parts;
  view.replaceChildren(el('p', { class: 'muted' }, 'Loading…'));
  try {
    if (url.pathname === '/' || url.pathname === '/index.html') parts = await home();
    else if (url.pathname === '/series') parts = await series(url.searchParams);
    else if (url.pathname === '/compare') parts = await compare(url.searchParams);
    else if (url.pathname.startsWith('/runs/')) parts = await runPage(url.pathname.slice(6));
    else if (url.pathname === '/upload') parts = await upload();
    else if (url.pathname === '/methods') parts = await methods();
    else if (url.pathname === '/history') parts = await historyPage(url.searchParams);
    else if (url.pathname === '/alerts') parts = await alertsPage(url.searchParams);
    else parts = [el('h1', {}, 'Not found'), message('error', `There is no page ${url.pathname}.`)];
  } catch (e) {
    parts = [message('error', `Cannot load this page: ${e.message}`)];
  }
  view.replaceChildren(...parts);
  view.dataset.ready = url.pathname + url.search;
}

function go(href) {
  history.pushState(null, '', href);
  route().then(() => view.focus());
}

document.addEventListener('click', (ev) => {
  const a = ev.target.closest('a');
  if (!a || a.target || a.hasAttribute('download') || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
  ev.preventDefault();
  go(url.pathname + url.search);
});
window.addEventListener('popstate', route);
route();
