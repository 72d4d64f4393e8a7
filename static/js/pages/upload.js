// Posting runs from a CSV file, and importing other tools' files.

import { TOKEN_KEY, api, csvRisky, el, errorText, message, token, tokenInput } from '../lib.js';
import { runsTable } from './series.js';

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

export async function uploadPage() {
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

// Every format POST /api/v1/import reads (docs/api.md), as the API names them.
const IMPORT_FORMATS = [['extrap-text', 'Extra-P text'], ['extrap-jsonl', 'Extra-P JSON lines'],
  ['extrap-json', 'Extra-P JSON'], ['talpas', 'Talpas'], ['extrap-experiment', 'Extra-P saved experiment (.extra-p)'],
  ['cube', 'Score-P Cube (a tar of experiment directories, or one .cubex)'], ['cali', 'Caliper .cali'],
  ['caliper-json', 'Caliper JSON (cali-query)'], ['thicket-json', 'Thicket ensemble (to_json)'],
  ['geopm-report', 'GEOPM report'], ['csv', 'CSV'], ['ndjson', 'NDJSON']];

// Every option of POST /api/v1/import besides the file and the format.
const IMPORT_FIELDS = ['system', 'application', 'variant', 'region', 'metric', 'n_value', 'p', 'n', 'chi_regions',
  'gamma_regions', 'time_unit'];

// Another tool's file through POST /api/v1/import: karted reads it, this page
// says what it stored, or why nothing and what the file has; each name it
// lists fills the field it was clicked for.
function importForm() {
  const field = (id, label, attrs = {}) => [el('label', { for: id }, label), el('input', { id, name: id, ...attrs })];
  const file = el('input', { type: 'file', id: 'import-file' });
  const format = el('select', { id: 'import-format' }, el('option', { value: '' }, 'guess from the file'),
    ...IMPORT_FORMATS.map(([f, label]) => el('option', { value: f }, `${f}: ${label}`)));
  const timeUnit = el('select', { id: 'import-time_unit' }, el('option', { value: '' }, 'as the file says (s)'),
    ...['s', 'ms', 'us', 'ns'].map((u) => el('option', { value: u }, u)));
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
    el('div', { class: 'toolbar' },
      ...field('import-chi_regions', 'χ regions ', { placeholder: 'MPI_*, or A,B', title: 'regions whose time is ' +
        'the overhead χ: a whole call path, a leaf name under any number of paths, or a prefix with *' }),
      ...field('import-gamma_regions', 'or γ regions ', { placeholder: 'compute' }),
      el('label', { for: 'import-time_unit' }, 'Times in '), timeUnit),
    el('div', { class: 'toolbar' }, el('button', { type: 'submit' }, 'Import')));
  const input = (k) => form.querySelector(`#import-${k}`);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!file.files[0]) { result.replaceChildren(message('error', 'Choose a file to import.')); return; }
    const q = new URLSearchParams();
    if (format.value) q.set('format', format.value);
    for (const k of IMPORT_FIELDS) {
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
      // what the file has: each name a button that fills the field it is for
      const av = r.body && r.body.available;
      const fill = (k, v) => { input(k).value = v; input(k).focus(); };
      const pick = (title, names, into) => names && names.length ? el('p', {}, `${title}: `,
        names.slice(0, 50).flatMap((n) => into.map(([k, label]) => el('button', { type: 'button', class: 'pick',
          'data-field': k, title: `${label}: ${n}`, onclick: () => fill(k, n) }, into.length > 1 ? `${n} → ${k}` : n)))) : null;
      result.replaceChildren(...[message('error', `${name}: ${errorText(r.body)} — nothing was stored`), warnList,
        av ? el('div', { class: 'available' }, el('p', {}, 'The file has (click to choose):'),
          pick('root regions', av.roots, [['region', 'the region that is tau']]),
          pick('metrics', av.metrics, [['metric', 'the metric']]),
          pick('parameters', av.parameters, [['p', 'the parameter that is p'], ['n', 'the parameter that is n']]))
          : null].filter(Boolean));
      return;
    }
    const b = r.body, series = new URLSearchParams({ system: input('system').value.trim(),
      application: input('application').value.trim(), variant: input('variant').value.trim() });
    const labels = b.labels && b.labels.length ? ` Labels from the file's metadata: ${b.labels.join(', ')}.` : '';
    result.replaceChildren(...[message('ok', r.status === 201
      ? `${name} (${b.format}): ${b.runs} runs from ${b.points} points stored` +
        (b.regions.length ? `; regions ${b.regions.join(', ')}.` : '.') + labels
      : `${name} (${b.format}) was imported before with these choices: its ${b.runs} runs are stored, nothing new.`),
    warnList, el('p', {}, el('a', { href: `/series?${series}` }, 'Open the series'))].filter(Boolean));
  });
  return [el('h2', {}, "Import another tool's file"),
    el('p', { class: 'explain' }, 'Extra-P (text, JSON, JSON lines, a saved .extra-p experiment), Talpas, Score-P ' +
      'Cube profiles (a tar of experiment directories), Caliper (.cali, cali-query JSON), Thicket ensembles, GEOPM ' +
      'reports, CSV with any columns (see docs/api.md), or karte\'s own export. Each point and repetition becomes a ' +
      'run; τ is the parallel time (the slowest process); the regions under the one that is τ become its regions; ' +
      'metadata become labels. The same file with the same choices again stores nothing.'), form, result];
}
