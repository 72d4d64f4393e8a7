// A series' page: its analyses, models, charts and runs.

import { MODEL_REGIONS_MAX, SVG_POINTS_MAX, chartPoints, liveChart, parseView, seriesPoints, seriesScaling, viewParam } from '../chart.js';
import { callTreeSection } from './calltree.js';
import { api, apiQuery, dataTable, el, errorText, fmt, go, labelFilters, labelled, link, message, pct, problem, sentences, seriesName, seriesQuery, setParam } from '../lib.js';

function spsTable(iso) {
  const rows = iso.sps.map((s) => ({
    base: `(${s.base.p}, ${fmt(s.base.n)})`, grown_n: fmt(s.grown_n.n), grown_p: s.grown_p.p,
    efficiency: s.efficiency, crossing: s.crossing, arrow: s.arrow_region, step: s.step_region,
    uncertain: certainty(s) }));
  return dataTable([
    { key: 'base', label: 'base (p, n)' }, { key: 'grown_n', label: "n'", num: true },
    { key: 'grown_p', label: "p'", num: true }, { key: 'efficiency', label: 'ε', num: true },
    { key: 'crossing', label: 'crossing' }, { key: 'arrow', label: 'arrow' }, { key: 'step', label: 'step' },
    { key: 'uncertain', label: 'against the noise' }], rows, { id: 'sps' });
}

// A verdict that values inside the repeated runs' spreads would flip is
// uncertain (docs/api.md, "Repeats"); one run a point has no spread to say so.
function certainty(s) {
  return s.uncertain ? 'uncertain: the runs’ spread could flip it' : 'holds';
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
    slope: s.slope, uncertain: certainty(s) }));
  return dataTable([
    { key: 'n', label: 'n', num: true }, { key: 'from_p', label: 'from p', num: true },
    { key: 'to_p', label: 'to p', num: true }, { key: 'region', label: 'region' },
    { key: 'slope', label: 'dχ/dτ', num: true }, { key: 'uncertain', label: 'against the noise' }], rows, { id: 'steps' });
}

function qualityBadge(r) {
  if (!r.quality || r.quality === 'good') return null;
  return el('span', { class: `quality ${r.quality}`, title: (r.quality_reasons || []).join(' ') }, r.quality);
}

// Models of the series' metrics as GET /api/v1/analysis/model answers them
// by default (resource=auto: p × the metric where it falls at every step of
// p, as Extra-P 4.2 models strong scaling; else the metric as measured);
// the reading can be forced, and every row and chart says which reading it
// shows, with the server's reason. A model that is not good is greyed and
// says why; an unusable one draws no extrapolation.
function modelsSection(q, runs, hasChi = true) {
  // the first-level regions (the call tree below lists every path)
  const regions = [...new Set(runs.flatMap((r) => (r.regions || []).filter((g) => !g.path || g.path.length === 1)
    .map((g) => g.name)))].slice(0, MODEL_REGIONS_MAX);
  const metrics = [['tau', 'τ'], ...(hasChi ? [['chi', 'χ'], ['gamma', 'γ']] : []),
    ...regions.map((g) => [`region:${g}`, `region ${g}`])];
  const reading = el('select', { id: 'model-resource' },
    el('option', { value: 'auto', selected: true }, 'as Extra-P 4.2: p × the metric where it falls at every step of p'),
    el('option', { value: 'false' }, 'the metric as measured'),
    el('option', { value: 'true' }, 'p × the metric (the resource), divided by p'));
  const tableBox = el('div', {}, el('p', { class: 'muted' }, 'Modelling…'));
  const chartBox = el('div', { class: 'charts' });
  const answers = new Map();
  let chosen = 'tau';
  const queryFor = (metric) => {
    const c = new URLSearchParams(q);
    c.set('metric', metric);
    c.set('resource', reading.value);
    return c;
  };
  const readingOf = (b) => b && b.resource ? ' (modelled as p × the metric, divided by p)' : '';
  function drawCharts() {
    const label = (metrics.find(([m]) => m === chosen) || [chosen, chosen])[1];
    const boxes = [liveChart('model', queryFor(chosen), `scaling model of ${label}${readingOf(answers.get(chosen))}`, [])];
    if (hasChi) boxes.push(liveChart('isoefficiency-function', q, 'isoefficiency function: measured and from the models', []));
    chartBox.replaceChildren(...boxes);
  }
  async function load() {
    tableBox.replaceChildren(el('p', { class: 'muted' }, 'Modelling…'));
    const rows = await Promise.all(metrics.map(async ([m, label]) => {
      const r = await api(`/api/v1/analysis/model?${queryFor(m)}`);
      if (!r.ok) return { key: m, metric: label, function: errorText(r.body) };
      const b = r.body;
      answers.set(m, b);
      return { key: m, metric: label, function: b.function, quality: b.quality, quality_reasons: b.quality_reasons,
        smape: b.smape, adj_r2: b.adj_r2, points: b.points, reading: b.resource ? 'p × metric' : 'as measured',
        reading_why: b.resource_reason || '',
        at: b.n !== undefined ? `n = ${fmt(b.n)}` : b.scaling, band: b.band_from,
        notes: sentences([...(b.quality_reasons || []), ...b.warnings]) };
    }));
    const t = dataTable([
      { key: 'metric', label: 'metric', cell: (r) => el('button', { type: 'button', class: 'linkish',
        'data-metric': r.key, onclick: () => { chosen = r.key; drawCharts(); } }, r.metric) },
      { key: 'function', label: 'model', cell: (r) => el('span', {}, r.function || '', qualityBadge(r)) },
      { key: 'reading', label: 'modelled as', cell: (r) => el('span', { title: r.reading_why }, r.reading || '') },
      { key: 'smape', label: 'SMAPE (%)', num: true, cell: (r) => pct(r.smape) },
      { key: 'adj_r2', label: 'adj. R²', num: true, cell: (r) => r.adj_r2 === null && r.function !== undefined &&
        r.quality ? el('span', { title: 'a constant explains none of the variance: no adjusted R²' }, '—') : fmt(r.adj_r2) },
      { key: 'points', label: 'points', num: true },
      { key: 'at', label: 'runs' }, { key: 'band', label: 'band from' }, { key: 'notes', label: 'quality and warnings' }],
    rows, { id: 'models', download: 'models' });
    for (const [i, tr] of [...t.querySelectorAll('tbody tr')].entries())
      if (rows[i] && rows[i].quality && rows[i].quality !== 'good') tr.classList.add('not-good');
    const tau = answers.get('tau');
    tableBox.replaceChildren(...(tau && tau.resource_reason ? [el('p', { class: 'explain', id: 'model-reading' },
      `τ: ${tau.resource_reason}.`)] : []), t);
    drawCharts();
  }
  reading.addEventListener('change', () => load());
  load();
  return el('div', {},
    el('p', { class: 'explain' }, 'Performance models in Extra-P’s normal form, c₀ + Σ cₖ·pⁱ·log₂(p)ʲ, chosen by ' +
      'cross-validation over the runs at the n with the most points: the same models GET /api/v1/analysis/model ' +
      'and the compare page give. Each says how good it is (good; poor: SMAPE over 15 %, adj. R² under 0.5, or ' +
      'only 3 or 4 values of a parameter; unusable: below zero where the data is not, adj. R² under 0, or fewer ' +
      'than 3 values). A constant has no adj. R² (—): it explains none of the variance. Click a metric to draw it.'),
    el('label', { for: 'model-resource' }, 'Model ', reading),
    tableBox, chartBox);
}

// Kimura's prediction of the energy saved on more nodes, beside what the
// optimised runs measured: each region's reading (its power at the standard
// and the optimal frequency, its energy ratio, how its time scales), and at
// each p the predicted and measured ΔE with each region's share of it.
async function energySection(q) {
  const r = await api(`/api/v1/analysis/energy?${q}`);
  if (!r.ok) return problem(r);
  const b = r.body, names = b.regions.map((g) => g.name);
  const regions = dataTable([
    { key: 'name', label: 'region' }, { key: 'f_opt', label: 'f_opt (MHz)', num: true },
    { key: 'power_std_w', label: `P at ${fmt(b.f_std)} MHz (W)`, num: true },
    { key: 'power_opt_w', label: 'P at f_opt (W)', num: true },
    { key: 'energy_ratio', label: 'energy ratio E(f_opt)/E(f_std)', num: true },
    { key: 'alpha_p', label: 'α_p (time ∝ p^-α)', num: true }, { key: 'beta_on', label: 'β_on', num: true },
    { key: 'f_opt_from', label: 'f_opt from' }], b.regions, { id: 'energy-regions', download: 'energy-regions' });
  const measured = new Map(b.measured.map((m) => [m.p, m.delta_e]));
  const rows = b.predicted.map((x) => ({ p: x.p, predicted: x.delta_e, measured: measured.get(x.p) ?? null,
    ...Object.fromEntries(names.map((n) => [`share:${n}`, x.shares[n]])) }));
  const table = dataTable([{ key: 'p', label: 'p', num: true },
    { key: 'predicted', label: 'ΔE predicted', num: true }, { key: 'measured', label: 'ΔE measured', num: true },
    ...names.map((n) => ({ key: `share:${n}`, label: `${n}'s share`, num: true }))],
  rows, { id: 'energy-delta', download: 'energy-delta' });
  const both = rows.filter((x) => x.measured !== null);
  const worst = both.reduce((w, x) => Math.max(w, Math.abs(x.predicted - x.measured)), 0);
  const agree = both.length ? el('p', { class: 'explain', id: 'energy-agreement' }, worst <= 0.02
    ? `Predicted and measured ΔE agree at each of the ${both.length} measured p (at most ${fmt(worst * 100, 2)} ` +
      'percentage points apart).'
    : `Predicted and measured ΔE differ by up to ${fmt(worst * 100, 3)} percentage points: the regions' times or ` +
      'powers at f_opt in the optimised runs are not what the runs at p = 1 and other frequencies say. The ' +
      'measurement stands; check the frequency sweep at p = 1.') : null;
  return el('div', {}, el('p', { class: 'explain' }, 'Kimura et al.: each region run at its own frequency ' +
    `(f_opt) instead of ${fmt(b.f_std)} MHz saves ΔE of the standard run's energy. The model (eq. 4) is fitted ` +
    'to the standard runs over p and the frequency sweep at p = 1; the optimised runs measure ΔE (eq. 1). A ' +
    "region's share is its energy, run at f_opt, as a fraction of the standard run's energy at that p (Kimura's " +
    'Fig. 3): the shares add up to 1 − ΔE.'), regions, agree, table);
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

export function runsTable(runs, name, more = false, total = runs.length) {
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

export async function seriesPage(params) {
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
  if (hasEnergy) {
    const energyBox = el('div', { id: 'energy-section' }, el('p', { class: 'muted' }, 'Predicting…'));
    drawn.then(() => energySection(q)).then((x) => energyBox.replaceChildren(x));
    out.push(el('h2', {}, 'Energy saved on more nodes'), energyBox);
  }
  out.push(el('h2', {}, 'Scaling models'), modelsBox);
  if (counts.with_regions > 0) {
    const treeBox = el('div', {}, el('p', { class: 'muted' }, 'Modelling every call path…'));
    drawn.then(() => treeBox.replaceChildren(callTreeSection(q, params)));
    out.push(el('h2', { id: 'calltree-heading' }, 'Which part does not scale: the call tree'), treeBox);
  }
  out.push(el('h2', {}, 'History'), historyBox, el('h2', {}, 'Runs'), runsBox);
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
