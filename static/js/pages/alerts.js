// Regression alerts, and acknowledging them.

import { TOKEN_KEY, api, dataTable, el, errorText, fmt, link, message, seriesName, seriesQuery, tokenInput } from '../lib.js';

// /alerts: the regressions found on ingest, newest first, each linked to
// its run and to its point's history; acknowledged with a write token.
export async function alertsPage(params) {
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
