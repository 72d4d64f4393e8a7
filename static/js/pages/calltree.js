// Which part of the code does not scale: the call tree of a series as GET
// /api/v1/analysis/regions answers it. Every call path with its measured
// and predicted share of τ, its model and its growth class (in words and
// a mark, never in colour alone); expand and collapse, sortable columns
// (siblings sorted under their parent), each path's model chart one click
// away and a link to it (?path=solve->MPI_Allreduce) that opens the page
// with that path shown. Keyboard: Tab to a row's buttons; → expands, ←
// collapses (or goes to the parent), ↑ and ↓ move between rows.

import { liveChart } from '../chart.js';
import { api, el, fmt, problem, setParam } from '../lib.js';

const SEP = '->';
const EXPAND_ALL_MAX = 3000;	// rows "expand all" will show at once

const unusableOf = (d) => Boolean(d && d.model && d.model.quality === 'unusable');

// An unusable model's growth is no finding: said in grey, with why, and
// sorted with the paths not modelled.
function growthOf(g, unusable) {
  if (unusable && g && g !== 'not modelled') {
    return { word: `${growthOf(g).word}, from an unusable model`, cls: 'growth-none', mark: '·', order: -1 };
  }
  if (g === 'falls') return { word: 'falls', cls: 'growth-falls', mark: '↘', order: 0 };
  if (g === 'constant') return { word: 'constant', cls: 'growth-flat', mark: '→', order: 1 };
  if (!g || g === 'not modelled') return { word: 'not modelled', cls: 'growth-none', mark: '·', order: -1 };
  return { word: `grows as ${g}`, cls: 'growth-grows', mark: '↗', order: 2 };
}

function growthCell(g, unusable) {
  const x = growthOf(g, unusable);
  return el('span', { class: `growth ${x.cls}` }, el('span', { 'aria-hidden': 'true' }, `${x.mark} `), x.word);
}

const share = (s) => (s === null || s === undefined ? '—' : `${fmt(100 * s, 3)} %`);

// The tree of the answer's paths: a node per path, and one for each prefix
// the runs do not carry themselves (shown without figures).
function buildTree(paths) {
  const nodes = new Map();
  const roots = [];
  function node(path) {
    const key = path.join(SEP);
    let n = nodes.get(key);
    if (n) return n;
    n = { key, path, name: path[path.length - 1], data: null, children: [], open: false };
    nodes.set(key, n);
    if (path.length === 1) roots.push(n);
    else node(path.slice(0, -1)).children.push(n);
    return n;
  }
  for (const p of paths) node(p.path).data = p;
  return { nodes, roots };
}

const COLUMNS = [
  { key: 'path', label: 'call path', value: (n) => n.name },
  { key: 'rank', label: 'rank', num: true, value: (n) => (n.data ? n.data.rank : Infinity) },
  { key: 'time', label: 'time at largest p (s)', num: true, value: (n) => (n.data ? n.data.measured.value : null) },
  { key: 'share', label: 'share at largest p', num: true, value: (n) => (n.data ? n.data.measured.share : null) },
  { key: 'model', label: 'model', value: (n) => (n.data && n.data.model ? n.data.model.function : '') },
  { key: 'growth', label: 'growth', value: (n) => growthOf(n.data && n.data.growth, unusableOf(n.data)).order },
  { key: 'predicted', label: 'predicted time (s)', num: true, value: (n) => (n.data ? n.data.predicted.value : null) },
  { key: 'pshare', label: 'predicted share', num: true, value: (n) => (n.data ? n.data.predicted.share : null) },
  { key: 'grows', label: 'share grows', value: (n) => (n.data && n.data.share_grows ? 1 : 0) },
];

export function callTreeSection(q, params) {
  const box = el('div', { id: 'calltree-section' }, el('p', { class: 'muted' }, 'Modelling every call path…'));
  load(q, params, box);
  return box;
}

async function load(q, params, box) {
  const r = await api(`/api/v1/analysis/regions?${q}`);
  if (!r.ok) {
    box.replaceChildren(problem(r));
    return;
  }
  const b = r.body;
  const { nodes, roots } = buildTree(b.paths);
  let sortKey = 'rank', dir = 1, selected = null;
  const tbody = el('tbody');
  const chartBox = el('div', { class: 'charts', id: 'calltree-chart' });
  const rank = (n) => (n.data ? n.data.rank : Infinity);
  // the first ranked of a subtree: a parent sorts as its best child
  const best = (n) => Math.min(rank(n), ...n.children.map(best));
  // open what the ranking points at: the ancestors of the top ten paths
  for (const p of b.paths.slice(0, 10))
    for (let i = 1; i < p.path.length; i++) nodes.get(p.path.slice(0, i).join(SEP)).open = true;

  function sorted(list) {
    const col = COLUMNS.find((c) => c.key === sortKey);
    return [...list].sort((x, y) => {
      const a = sortKey === 'rank' ? best(x) : col.value(x), c = sortKey === 'rank' ? best(y) : col.value(y);
      if (a === c) return best(x) - best(y);
      if (a === null || a === undefined) return 1;
      if (c === null || c === undefined) return -1;
      return (typeof a === 'number' ? a - c : String(a).localeCompare(String(c))) * dir;
    });
  }
  function visible() {
    const out = [];
    const walk = (list) => { for (const n of sorted(list)) { out.push(n); if (n.open) walk(n.children); } };
    walk(roots);
    return out;
  }
  function linkTo(n) {
    const u = new URL(location.href);
    u.searchParams.set('path', n.key);
    return u.pathname + u.search;
  }
  function openChart(n) {
    selected = n.key;
    setParam('path', n.key);
    const c = new URLSearchParams(q);
    c.set('metric', `region:${n.key}`);
    c.set('max_x', b.at_p || b.at_n);
    chartBox.replaceChildren(n.data ? liveChart('model', c, `scaling model of ${n.key}`, []) :
      el('p', { class: 'muted' }, `The runs carry no time of ${n.key} itself, only of the paths under it.`));
    render();
  }
  function toggle(n, open) {
    if (!n.children.length) return;
    n.open = open === undefined ? !n.open : open;
    render(n.key);
  }
  function row(n) {
    const d = n.data, depth = n.path.length;
    const toggleBtn = n.children.length ? el('button', { type: 'button', class: 'toggle',
      'aria-expanded': n.open ? 'true' : 'false', 'aria-label': `${n.open ? 'collapse' : 'expand'} ${n.key}`,
      onclick: () => toggle(n) }, n.open ? '▾' : '▸') : el('span', { class: 'toggle-space', 'aria-hidden': 'true' });
    const name = el('button', { type: 'button', class: 'linkish path-name', 'data-path': n.key,
      title: `draw the model of ${n.key}`, onclick: () => openChart(n) }, n.name);
    const anchor = el('a', { href: linkTo(n), class: 'path-link', 'aria-label': `link to ${n.key}` }, '#');
    const model = d && d.model ? el('span', { title: (d.model.quality_reasons || []).join(' ') || d.model.resource_reason },
      d.model.function, d.model.quality !== 'good' ? el('span', { class: `quality ${d.model.quality}` }, d.model.quality) : null)
      : el('span', { class: 'muted' }, d ? 'not modelled' : '');
    const cells = [
      el('td', { class: 'path', style: `padding-left: ${0.3 + 1.2 * (depth - 1)}em` }, toggleBtn, ' ', name, ' ', anchor),
      el('td', { class: 'num' }, d ? String(d.rank) : ''),
      el('td', { class: 'num' }, d ? fmt(d.measured.value) : ''),
      el('td', { class: 'num' }, d ? share(d.measured.share) : ''),
      el('td', {}, model),
      el('td', {}, d ? growthCell(d.growth, unusableOf(d)) : ''),
      el('td', { class: 'num' }, d && d.predicted.value !== null ? fmt(d.predicted.value) : d ? '—' : ''),
      el('td', { class: 'num' }, d ? share(d.predicted.share) : ''),
      el('td', {}, d && d.share_grows ? el('span', { class: 'candidate' }, '▲ grows') : d ? 'no' : ''),
    ];
    const tr = el('tr', { role: 'row', 'aria-level': depth, 'data-path': n.key,
      'aria-expanded': n.children.length ? (n.open ? 'true' : 'false') : null,
      'aria-selected': selected === n.key ? 'true' : null,
      class: [selected === n.key ? 'selected' : '', d && d.model && d.model.quality !== 'good' ? 'not-good' : '']
        .filter(Boolean).join(' ') || null }, cells);
    tr.addEventListener('keydown', (e) => keys(e, n, tr));
    return tr;
  }
  function keys(e, n, tr) {
    const move = (to) => { if (to) { to.querySelector('.path-name').focus(); e.preventDefault(); } };
    if (e.key === 'ArrowRight' && n.children.length && !n.open) { toggle(n, true); e.preventDefault(); }
    else if (e.key === 'ArrowLeft' && n.open) { toggle(n, false); e.preventDefault(); }
    else if (e.key === 'ArrowLeft' && n.path.length > 1) move(tbody.querySelector(`tr[data-path="${CSS.escape(n.path.slice(0, -1).join(SEP))}"]`));
    else if (e.key === 'ArrowDown') move(tr.nextElementSibling);
    else if (e.key === 'ArrowUp') move(tr.previousElementSibling);
  }
  function render(focusKey) {
    tbody.replaceChildren(...visible().map(row));
    if (focusKey) {
      const t = tbody.querySelector(`tr[data-path="${CSS.escape(focusKey)}"] .path-name`);
      if (t) t.focus();
    }
  }
  const head = el('tr', {}, COLUMNS.map((c) => {
    const btn = el('button', { class: 'sort', type: 'button', 'data-key': c.key }, c.label);
    const th = el('th', { class: c.num ? 'num' : null, scope: 'col',
      'aria-sort': c.key === sortKey ? 'ascending' : null }, btn);
    btn.addEventListener('click', () => {
      // shares and times read largest first; names and ranks in order
      dir = sortKey === c.key ? -dir : (['rank', 'path', 'model'].includes(c.key) ? 1 : -1);
      sortKey = c.key;
      for (const o of head.querySelectorAll('th')) o.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
      render();
    });
    return th;
  }));
  const expandAll = el('button', { type: 'button', class: 'secondary', disabled: nodes.size > EXPAND_ALL_MAX,
    title: nodes.size > EXPAND_ALL_MAX ? `more than ${EXPAND_ALL_MAX} paths: open them level by level` : null,
    onclick: () => { for (const n of nodes.values()) n.open = true; render(); } }, 'Expand all');
  const collapseAll = el('button', { type: 'button', class: 'secondary',
    onclick: () => { for (const n of nodes.values()) n.open = false; render(); } }, 'Collapse all');
  const at = b.at_p !== undefined ? `p = ${fmt(b.at_p)}` : `n = ${fmt(b.at_n)}`;
  const what = b.metric === 'energy' ? 'energy' : 'τ';
  const summary = el('p', { class: 'explain', id: 'calltree-summary' },
    `${b.count} call path${b.count === 1 ? '' : 's'} modelled as the scaling models are (${b.root.resource_reason}). ` +
    `Ranked by the share of ${what} each is predicted to take at ${at} (8 × the largest measured ${b.along}); ` +
    `${b.candidates} ${b.candidates === 1 ? 'has' : 'have'} a share that grows from the smallest to the largest ` +
    `measured ${b.along} and on to ${at}: the candidates for a scalability bug. Unusable models come last and are ` +
    `never candidates. ${what} itself: ${b.root.function} (${b.root.quality}).`);
  // the paths' models may predict more than τ's own: said, never hidden
  const warnings = el('ul', { class: 'warnings', id: 'calltree-warnings' },
    ...(b.warnings || []).map((w) => el('li', {}, w)));
  box.replaceChildren(summary, warnings,
    liveChart('regions', q, `the top call paths against ${b.along}, and their shares of ${what}`, []),
    el('div', { class: 'toolbar' }, expandAll, collapseAll),
    el('div', { class: 'table-wrap' }, el('table', { id: 'calltree', role: 'treegrid',
      'aria-label': 'call tree: every call path modelled' }, el('thead', {}, head), tbody)),
    chartBox);
  const want = params.get('path');
  const target = want && nodes.get(want);
  if (target) {
    for (let i = 1; i < target.path.length; i++) nodes.get(target.path.slice(0, i).join(SEP)).open = true;
    openChart(target);
    const t = tbody.querySelector(`tr[data-path="${CSS.escape(want)}"]`);
    if (t) { t.scrollIntoView({ block: 'center' }); t.querySelector('.path-name').focus(); }
  } else {
    render();
  }
}
