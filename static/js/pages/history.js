// One (p, n) point over time, each run against its baseline.

import { liveChart } from '../chart.js';
import { api, dataTable, el, errorText, fmt, go, labelFilters, labelled, link, message, seriesName, seriesQuery } from '../lib.js';

// /history?system&application[&variant]&p&n[&by][&metric][&label.K=V]: one
// point over time with its baseline band and verdicts, and the p–τ curve
// of the latest commit beside the one before it.
export async function historyPage(params) {
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
  const settings = h.body.settings || [];
  const settingOf = (r) => settings.find((x) => x.frequency_mhz === r.frequency_mhz && x.power_cap_w === r.power_cap_w);
  const text = (r) => [`run ${r.id}${r.group ? ` · ${by} ${r.group}` : ''}${settings.length > 1 ? ` · ${settingOf(r)?.name ?? ''}` : ''}`, r.measured_at,
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
    ...(settings.length > 1 ? [el('p', { class: 'explain', id: 'history-settings' },
      `These runs ran at ${settings.length} settings (${settings.map((x) => `${x.name}: ${x.runs}`).join('; ')}). ` +
      'Each is a line of its own and its own baseline: a run at another frequency or power cap is never held ' +
      'against these.')] : []),
    el('div', { class: 'charts' }, liveChart('history', q, `${metric === 'tau' ? 'τ' : 'energy'} over ${by ? `label ${by}` : 'time'}`, points))];
  const rows = runs.map((r) => ({ id: r.id, measured_at: r.measured_at, group: r.group ?? '', value: r[metric],
    setting: settingOf(r)?.name ?? '',
    verdict: r.verdict ?? '', median: r.baseline?.median ?? null, mad: r.baseline?.mad ?? null,
    early: r.verdict === 'ok' && (!r.baseline || r.baseline.runs < t.min_runs) }));
  const cols = [{ key: 'id', label: 'run', num: true, cell: (r) => link(`/runs/${r.id}`, String(r.id)) },
    { key: 'measured_at', label: 'measured' }];
  if (by) cols.push({ key: 'group', label: by });
  if (settings.length > 1) cols.push({ key: 'setting', label: 'frequency, cap' });
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
