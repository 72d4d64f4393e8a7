// Series side by side: one chart each analysis, every series in it.

import { chartPoints, liveChart, parseView, seriesPoints, seriesScaling, viewParam } from '../chart.js';
import { api, dataTable, el, go, labelFilters, labelled, message, parseSeries, seriesName, setParam } from '../lib.js';

// The one label key a URL gives with two or more values, and those values.
function labelSplit(filters) {
  const seen = new Map();
  for (const [k, v] of filters) seen.set(k, [...new Set([...(seen.get(k) || []), v])]);
  for (const [k, vs] of seen) if (vs.length > 1) return { key: k, values: vs };
  return null;
}

export async function comparePage(params) {
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
