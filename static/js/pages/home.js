// The home page: every series, with what its runs carry.

import { api, dataTable, el, errorText, go, link, message, seriesName, seriesQuery } from '../lib.js';

export async function homePage() {
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
