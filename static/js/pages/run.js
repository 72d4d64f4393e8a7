// One run, as stored (numbers to 4 significant digits, as stored on hover).

import { TOKEN_KEY, api, dataTable, el, errorText, exact, fmt, link, message, seriesName, seriesQuery, tokenInput } from '../lib.js';

// A field's value to 4 significant digits (14.4), the value as stored on hover.
function shown(v) {
  return typeof v === 'number' && !Number.isInteger(v) ? el('span', { title: exact(v) }, fmt(v)) : exact(v);
}

export async function runPage(id) {
  document.title = `karte — run ${id}`;
  const r = await api(`/api/v1/runs/${encodeURIComponent(id)}`);
  if (!r.ok) return [el('h1', {}, `Run ${id}`), message('error', errorText(r.body))];
  const run = r.body;
  const s = { system: run.system, application: run.application, variant: run.variant };
  const skip = new Set(['regions', 'labels']);
  const fields = el('dl', { class: 'fields' }, Object.entries(run).filter(([k]) => !skip.has(k))
    .flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, shown(v))]));
  const out = [el('h1', {}, `Run ${run.id}`),
    el('p', {}, 'Series ', link(`/series?${seriesQuery(s)}`, seriesName(s))), fields];
  out.push(el('h2', {}, 'Labels'));
  const labels = Object.entries(run.labels || {});
  out.push(labels.length ? el('div', { class: 'table-wrap' }, el('table', { id: 'labels' },
    el('tbody', {}, labels.map(([k, v]) => el('tr', {}, el('th', { scope: 'row' }, k), el('td', {}, v))))))
    : el('p', { class: 'muted' }, 'none'));
  out.push(el('h2', {}, 'Regions'));
  const regions = (run.regions || []).map((g) => ({ ...g,
    counters: Object.entries(g.counters || {}).map(([k, v]) => `${k}=${fmt(v)}`).join(' ') }));
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
