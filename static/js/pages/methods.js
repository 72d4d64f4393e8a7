// The other methods: power caps, trace correction, power model, configurations.

import { api, dataTable, el, errorText, fmt, message } from '../lib.js';

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

export async function methodsPage() {
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
