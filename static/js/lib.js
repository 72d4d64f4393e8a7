// karte's UI: what every page uses: DOM built with textContent only (names
// from user data are never parsed as HTML), numbers, series names and
// queries, the API and its errors, the token, tables, moving between pages.

export const view = document.getElementById('view');

export const TOKEN_KEY = 'karte-token';

export function el(tag, attrs = {}, ...children) {
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

export function link(href, text) {
  return el('a', { href, 'data-nav': '' }, text);
}

export function fmt(x, digits = 4) {
  if (x === null || x === undefined) return '';
  if (typeof x !== 'number') return String(x);
  if (Number.isInteger(x)) return String(x);
  return Number(x.toPrecision(digits)).toString();
}

// A percentage such as a SMAPE: rounding noise (below 1e-9 %) is 0 %.
export function pct(x) {
  if (x === null || x === undefined) return '';
  return Math.abs(x) < 1e-9 ? '0' : fmt(x);
}

// A number as stored, for a page that shows one run: JavaScript writes the
// shortest text that reads back (2535.05), as karted does.
export function exact(x) {
  return x === null || x === undefined ? '' : String(x);
}

export function seriesName(s) {
  return `${s.system}:${s.application}${s.variant ? ':' + s.variant : ''}`;
}

export function seriesQuery(s) {
  const q = new URLSearchParams({ system: s.system, application: s.application });
  if (s.variant) q.set('variant', s.variant);
  return q;
}

// The same selection for the API: the variant always named (an empty one is
// the default variant; left out, the runs listing would take every variant).
export function apiQuery(s) {
  const q = seriesQuery(s);
  q.set('variant', s.variant || '');
  return q;
}

// The label.K=V filters of a page's URL, as [[key, value], ...].
export function labelFilters(params) {
  return [...params.entries()].filter(([k]) => k.startsWith('label.') && k.length > 6);
}

// "system:application [k=v, ...]" as the server's legends name them.
export function labelled(name, filters) {
  return filters.length ? `${name} [${filters.map(([k, v]) => `${k.slice(6)}=${v}`).join(', ')}]` : name;
}

export function parseSeries(spec) {
  const [system, application, ...rest] = spec.split(':');
  return { system, application, variant: rest.join(':') };
}

export async function api(path, options = {}) {
  const r = await fetch(path, options);
  let body = null;
  const text = await r.text();
  try { body = text ? JSON.parse(text) : null; } catch { body = text; }
  return { status: r.status, ok: r.ok, body };
}

export function message(kind, text) {
  return el('div', { class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

// What an API answer that is not ok says on a page: a calm note when the
// data cannot give it (a 4xx: nothing went wrong), an error otherwise.
export function problem(r, what) {
  const text = `${what ? `${what}: ` : ''}${errorText(r.body)}`;
  return message(r.status >= 400 && r.status < 500 ? 'note' : 'error', text);
}

export function errorText(body) {
  if (!body || typeof body !== 'object') return String(body);
  let t = body.error || 'error';
  if (body.field) t += ` (field: ${body.field})`;
  return t;
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function tokenInput() {
  const input = el('input', { type: 'password', id: 'token', name: 'token', autocomplete: 'off',
    placeholder: 'write token (kt_...)', value: token() });
  input.addEventListener('change', () => sessionStorage.setItem(TOKEN_KEY, input.value.trim()));
  return [el('label', { for: 'token' }, 'Token '), input];
}

// A sortable, filterable table; rows are objects, columns {key, label, num, cell}.
// It draws one page of rows at a time (a table of 10^4 series is 10^4 objects
// in memory, 100 rows in the page); filter, sort and the downloads take all.
const PAGE_ROWS = 100;

export function dataTable(columns, rows, { id, download, limit = Infinity, page: pageRows = PAGE_ROWS } = {}) {
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

// A chart is karted's own rendering, the SVG (or PDF, PNG) a paper gets,
// fetched at the size of its box so its text is read at its real size.
// X-Karte-Frame says where each panel's data went; the points of the
// analysis are mapped through it for hover and click, and zoom and pan ask
// karted for another view (x_min..y_max), so ticks and labels stay a
// paper's. One renderer, no chart library: what the page shows is what
// the PDF prints.

export function setParam(key, value) {
  const u = new URL(location.href);
  if (value === null || value === undefined || value === '') u.searchParams.delete(key);
  else u.searchParams.set(key, value);
  history.replaceState(null, '', u.pathname + u.search);
}

// Extra-P's scaling models of a series: a row per metric (τ, χ, γ and each
// region the runs carry) with its function, fit and warnings; the chart of
// the chosen row (measured medians with their spread, the model, its band
// and the extrapolation) and the isoefficiency function from the models.
// Sentences joined as prose: each ends with a full stop and starts with a capital.
export function sentences(list) {
  return list.map((t) => t.trim()).filter(Boolean)
    .map((t) => `${t[0].toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`).join(' ');
}

// A CSV cell a spreadsheet will not run: one that starts with = + - @, a tab
// or CR and is no number gets an apostrophe in front (karted's exports do the
// same, and both readers take it off again).
const CSV_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function csvRisky(s) {
  const t = s.replace(/^'+/, '');
  return /^[=+\-@\t\r]/.test(t) && !CSV_NUMBER.test(t);
}

function csvCell(v) {
  let s = String(v ?? '');
  if (csvRisky(s)) s = "'" + s;
  return /[",\n\r\t]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

// Moving between pages without a reload: app.js names the router.
let router = async () => {};

export function onNavigate(fn) {
  router = fn;
}

export function go(href) {
  history.pushState(null, '', href);
  router().then(() => view.focus());
}
