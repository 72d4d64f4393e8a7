// karte's UI in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): a real karted on a free loopback port with a temporary
// database, data posted through the API, then the pages as a person uses
// them. Screenshots go to tests/out/browser/.
//
// usage: KARTED=build/karted node --test tests/browser/ui.test.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium, root, startKarted } from './karted.mjs';

const out = path.join(root, 'tests', 'out', 'browser');
const karted = path.resolve(root, process.env.KARTED || 'build/karted');
let server, url, token, browser, page;

async function post(runs) {
  const r = await fetch(`${url}/api/v1/runs`, { method: 'POST', body: JSON.stringify(runs),
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` } });
  const text = await r.text();
  assert.equal(r.status, 201, text);
  return JSON.parse(text).ids;
}

const SP2 = [[10, 39200, 20, 0.552], [16, 39200, 16, 0.45], [24, 39200, 14, 0.334], [36, 39200, 15, 0.22],
  [10, 80000, 40, 0.62], [16, 80000, 32, 0.5], [24, 80000, 25, 0.4], [36, 80000, 28, 0.3]];

before(async () => {
  server = await startKarted(karted);
  ({ url, token } = server);
  mkdirSync(out, { recursive: true });
  await post(SP2.map(([p, n, tau, e]) => ({ system: 'SP2', application: 'md', p, n, tau, chi: (1 - e) * tau,
    labels: { compiler: 'xlf 3' }, regions: [{ name: 'force', time_s: tau * e, energy_j: 100 * tau }] })));
  await post(SP2.map(([p, n, tau, e]) => ({ system: 'T3E', application: 'md', p, n, tau: tau * 0.6,
    chi: (1 - Math.min(e + 0.1, 0.95)) * tau * 0.6 })));
  await post([{ system: 'T3E', application: 'cg', variant: 'blocked', p: 4, n: 10, tau: 2, chi: 0.5 }]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => { throw e; });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(p) {
  await page.goto(`${url}${p}`);
  await page.waitForFunction((want) => document.getElementById('view').dataset.ready === want, p);
}

async function shot(name) {
  await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
}

test('home lists every series with counts and filters as you type', async () => {
  await open('/');
  const rows = page.locator('#series tbody tr');
  assert.equal(await rows.count(), 3);
  assert.match(await page.locator('#series').innerText(), /SP2\s+md\s+\(default\)\s+8/);
  await shot('home');
  await page.getByPlaceholder('filter rows').fill('T3E');
  assert.equal(await rows.count(), 2);
  await page.getByPlaceholder('filter rows').fill('');
});

test('a series page shows its charts, the SPS and C-class tables and a sortable runs table', async () => {
  await open('/');
  await page.locator('#series a', { hasText: '(default)' }).first().click();
  await page.waitForFunction(() => document.getElementById('view').dataset.ready?.startsWith('/series'));
  assert.equal(new URL(page.url()).pathname, '/series');
  const fig = page.locator('figure[data-kind="isoefficiency"]');
  await page.locator('figure[data-kind="isoefficiency"][data-ready="yes"]').waitFor();
  assert.match(await fig.getByRole('link', { name: 'SVG' }).getAttribute('href'),
    /^\/api\/v1\/reports\/isoefficiency\.svg\?system=SP2&application=md&variant=&width=\d+&height=\d+$/);
  // tau against p comes first, from tau alone
  await page.locator('figure[data-kind="scaling"][data-ready="yes"]').waitFor();
  assert.equal(await page.locator('figure').first().getAttribute('data-kind'), 'scaling');
  await page.locator('#sps tbody tr').first().waitFor();
  assert.equal(await page.locator('#sps tbody tr').count(), 3);
  assert.match(await page.locator('#sps').innerText(), /\(10, 39200\)\s+80000\s+16\s+0\.552\s+crossed\s+C1\s+C1\s+holds/);
  assert.equal(await page.locator('#steps tbody tr').count(), 6);
  // energy: this series has none: no chart, one calm note that says what energy would add
  assert.equal(await page.locator('figure[data-kind="energy"]').count(), 0);
  assert.match(await page.locator('#absent[role="status"]').innerText(), /energy/);
  assert.deepEqual(await page.locator('[role="alert"]').allInnerTexts(), [], 'nothing went wrong: no alert');
  await page.locator('#runs tbody tr').first().waitFor();
  const taus = async () => (await page.locator('#runs tbody tr td:nth-child(4)').allInnerTexts()).map(Number);
  await page.locator('#runs thead button', { hasText: 'τ (s)' }).click();
  let t = await taus();
  assert.deepEqual(t, [...t].sort((a, b) => a - b));
  await page.locator('#runs thead button', { hasText: 'τ (s)' }).click();
  t = await taus();
  assert.deepEqual(t, [...t].sort((a, b) => b - a));
  assert.equal(t[0], 40);
  // a reload of the URL gives the same view
  await page.reload();
  await page.waitForFunction(() => document.getElementById('view').dataset.ready?.startsWith('/series'));
  await page.locator('#sps tbody tr').first().waitFor();
  assert.equal(await page.locator('#sps tbody tr').count(), 3);
  await shot('series');
  // downloads hold exactly what is shown
  await page.locator('#runs').locator('..').locator('..').getByPlaceholder('filter rows').fill('80000');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).last().click()]);
  const csv = (await (await dl.createReadStream()).toArray()).join('');
  assert.equal(csv.trim().split('\n').length, 1 + 4);
  assert.match(csv.split('\n')[0], /^id,p,n,tau,chi,efficiency/);
});

test('compare overlays two series and lines them up at matching (p, n)', async () => {
  await open('/');
  await page.getByLabel('compare SP2:md').check();
  await page.getByLabel('compare T3E:md').check();
  await page.getByRole('button', { name: 'Compare selected' }).click();
  await page.waitForFunction(() => document.getElementById('view').dataset.ready?.startsWith('/compare'));
  const u = new URL(page.url());
  assert.deepEqual(u.searchParams.getAll('series'), ['SP2:md', 'T3E:md']);
  await page.waitForFunction(() => [...document.querySelectorAll('figure img')].every((i) => i.naturalWidth > 0));
  assert.match(await page.locator('figure').first().getByRole('link', { name: 'SVG' }).getAttribute('href'),
    /series=SP2%3Amd&series=T3E%3Amd/);
  assert.equal(await page.locator('#matching tbody tr').count(), 8);
  assert.match(await page.locator('#matching').innerText(), /10\s+39200\s+0\.552\s+20\s+0\.652/);
  await shot('compare');
});

// Where a data point of panel k was drawn, in page coordinates: karted's
// frame (X-Karte-Frame, kept on the figure) through the image's box.
async function pointAt(kind, x, y, k = 0) {
  return page.evaluate(({ kind, x, y, k }) => {
    const fig = document.querySelector(`figure[data-kind="${kind}"]`);
    const f = JSON.parse(fig.dataset.frame), p = f.panels[k], b = fig.querySelector('img').getBoundingClientRect();
    const map = (ax, lo, hi, v) => lo + (ax.log ? (Math.log10(v) - Math.log10(ax.min)) / (Math.log10(ax.max) - Math.log10(ax.min))
      : (v - ax.min) / (ax.max - ax.min)) * (hi - lo);
    const s = b.width / f.width;
    return { x: b.left + map(p.x, p.left, p.right, x) * s, y: b.top + map(p.y, p.bottom, p.top, y) * s };
  }, { kind, x, y, k });
}

test('charts are alive: sized to the page, hover tells a point, click opens its run', async () => {
  await open('/series?system=SP2&application=md');
  await page.locator('figure[data-kind="isoefficiency"][data-ready="yes"]').waitFor();
  const box = await page.locator('figure[data-kind="isoefficiency"] img').boundingBox();
  assert.ok(box.width > 1000 && box.height <= 900 * 0.8 + 1, `sized to the page (${box.width} x ${box.height})`);
  const frame = JSON.parse(await page.locator('figure[data-kind="isoefficiency"]').getAttribute('data-frame'));
  assert.equal(frame.width, Math.round(box.width), 'drawn at the size shown: text at its real size');
  // (p, n) = (16, 80000): tau 32, chi 16 (the scaling chart comes first: scroll to this one)
  await page.locator('figure[data-kind="isoefficiency"]').scrollIntoViewIfNeeded();
  const at = await pointAt('isoefficiency', 32, 16);
  await page.mouse.move(at.x, at.y);
  const tip = page.locator('figure[data-kind="isoefficiency"] .tip');
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.innerText(), /p = 16, n = 80000\s+τ = 32 s, χ = 16 s, ε = 0\.5\s+run \d+/);
  await shot('chart-hover');
  // the same point on the efficiency chart's p-eps panel
  const id = (await tip.innerText()).match(/run (\d+)/);
  await page.locator('figure[data-kind="efficiency"]').scrollIntoViewIfNeeded();
  const e = await pointAt('efficiency', 16, 0.5, 0);
  await page.mouse.move(e.x, e.y);
  await page.locator('figure[data-kind="efficiency"] .tip', { hasText: 'p = 16, n = 80000' }).waitFor();
  await page.locator('figure[data-kind="isoefficiency"]').scrollIntoViewIfNeeded();
  const again = await pointAt('isoefficiency', 32, 16);
  await page.mouse.move(again.x, again.y);
  await page.mouse.click(again.x, again.y);
  await page.waitForFunction(() => location.pathname.startsWith('/runs/'));
  assert.match(await page.locator('dl.fields').innerText(), /tau\s+32/);
  assert.ok(id, 'the tip names the run');
});

test('zoom and pan on the tau-chi plane ask karted for a view, and the URL keeps it', async () => {
  await open('/series?system=SP2&application=md');
  const fig = page.locator('figure[data-kind="isoefficiency"]');
  await page.locator('figure[data-kind="isoefficiency"][data-ready="yes"]').waitFor();
  const before = JSON.parse(await fig.getAttribute('data-frame')).panels[0];
  await fig.scrollIntoViewIfNeeded();
  const c = await pointAt('isoefficiency', 25, 15);
  await page.mouse.move(c.x, c.y);
  await page.mouse.wheel(0, -400);	// zoom in about (25, 15)
  await page.waitForFunction(() => new URL(location.href).searchParams.has('view'));
  await page.waitForFunction((w) => JSON.parse(document.querySelector('figure[data-kind="isoefficiency"]').dataset.frame)
    .panels[0].x.max < w, before.x.max);
  const zoomed = JSON.parse(await fig.getAttribute('data-frame')).panels[0];
  const span = (a) => Math.log10(a.max / a.min);
  assert.ok(span(zoomed.x) < span(before.x) * 0.7 && zoomed.x.min < 25 && zoomed.x.max > 25,
    `narrower about tau = 25 (${JSON.stringify(zoomed.x)})`);
  // drag to the left: the view moves to larger tau
  const p0 = await pointAt('isoefficiency', 25, 15);
  await page.mouse.move(p0.x, p0.y);
  await page.mouse.down();
  await page.mouse.move(p0.x - 150, p0.y, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction((m) => JSON.parse(document.querySelector('figure[data-kind="isoefficiency"]').dataset.frame)
    .panels[0].x.min > m * 1.01, zoomed.x.min);
  assert.equal(new URL(page.url()).pathname, '/series', 'a drag that ends on a point does not open it');
  const view = new URL(page.url()).searchParams.get('view');
  // a deep link shows the same view
  await page.reload();
  await page.locator('figure[data-kind="isoefficiency"][data-ready="yes"]').waitFor();
  const again = JSON.parse(await fig.getAttribute('data-frame')).panels[0];
  assert.deepEqual(view.split(',').map(Number), [again.x.min, again.x.max, again.y.min, again.y.max].map((v) => Number(v.toPrecision(6))));
  await shot('chart-zoomed');
  await page.getByRole('button', { name: 'Whole series' }).click();
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('view'));
});

test('a chart has a table view of its points with CSV download', async () => {
  await open('/series?system=SP2&application=md');
  const fig = page.locator('figure[data-kind="isoefficiency"]');
  await fig.getByRole('button', { name: 'Table' }).click();
  const rows = fig.locator('table tbody tr');
  assert.equal(await rows.count(), 8);
  assert.match(await fig.locator('table').innerText(), /10\s+39200\s+20\s+8\.96\s+0\.552\s+1\s+\d+/);
  const [dl] = await Promise.all([page.waitForEvent('download'), fig.getByRole('button', { name: 'Download CSV' }).click()]);
  const csv = (await (await dl.createReadStream()).toArray()).join('');
  assert.equal(csv.trim().split('\n').length, 9);
  assert.match(csv.split('\n')[0], /^p,n,tau,chi,efficiency,runs,id$/);
});

test('compare: each series can be hidden from the charts, and the URL keeps it', async () => {
  await open('/compare?series=SP2:md&series=T3E:md');
  await page.locator('figure[data-kind="isoefficiency"][data-ready="yes"]').waitFor();
  await page.locator('fieldset.toggles').getByLabel('T3E:md').uncheck();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('hide') === 'T3E:md');
  await page.locator('figure[data-kind="isoefficiency"][data-ready="yes"]').waitFor();
  const href = await page.locator('figure[data-kind="isoefficiency"]').getByRole('link', { name: 'SVG' }).getAttribute('href');
  assert.match(href, /series=SP2%3Amd&/);
  assert.doesNotMatch(href, /T3E/);
  // hover finds SP2's points only; T3E's (tau 0.6 x) are not on the chart
  await page.locator('figure[data-kind="isoefficiency"] img').scrollIntoViewIfNeeded();
  const at = await pointAt('isoefficiency', 32, 16);
  await page.mouse.move(at.x, at.y);
  await page.locator('figure[data-kind="isoefficiency"] .tip', { hasText: 'SP2:md' }).waitFor();
  await page.reload();
  await page.locator('figure[data-kind="isoefficiency"][data-ready="yes"]').waitFor();
  assert.equal(await page.locator('fieldset.toggles').getByLabel('T3E:md').isChecked(), false);
  await shot('compare-toggled');
});

test('upload: an error names the line and field; a good file shows the new runs', async () => {
  await open('/upload');
  const bad = path.join(out, 'bad.csv');
  writeFileSync(bad, 'system,application,p,n,tau,chi\nUP,md,1,100,10,1\nUP,md,2,100,5,9\n');
  await page.locator('#token').fill(token);
  await page.locator('#file').setInputFiles(bad);
  await page.getByRole('button', { name: 'Upload' }).click();
  const err = page.locator('#result .message.error');
  await err.waitFor();
  assert.match(await err.innerText(), /^bad\.csv line 3: chi \(9\) must not exceed tau \(5\) \(field: chi\) — nothing of it was stored$/);
  await shot('upload-error');
  const good = path.join(out, 'good.csv');
  writeFileSync(good, 'system,application,p,n,tau,chi,label.queue\nUP,md,1,100,10,1,short\nUP,md,2,100,5.5,1.2,short\n');
  await page.locator('#file').setInputFiles(good);
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.locator('#result .message.ok').waitFor();
  assert.match(await page.locator('#result .message.ok').innerText(), /2 runs stored/);
  assert.equal(await page.locator('#result #runs tbody tr').count(), 2);
  await shot('upload-ok');
  const r = await (await fetch(`${url}/api/v1/runs?system=UP`)).json();
  assert.equal(r.runs.length, 2);
});

test('import: an Extra-P file; no region named gives the roots to click; then 50 runs', async () => {
  await open('/upload');
  const stencil = path.join(root, 'tests', 'data', 'import', 'stencil.txt');
  await page.locator('#token').fill(token);
  await page.locator('#token').dispatchEvent('change');
  await page.locator('#import-file').setInputFiles(stencil);
  await page.locator('#import-system').fill('JURECA');
  await page.locator('#import-application').fill('stencil');
  await page.getByRole('button', { name: 'Import' }).click();
  const err = page.locator('#import-result .message.error');
  await err.waitFor();
  assert.match(await err.innerText(), /^stencil\.txt: say which region is tau .*'main\(\)'.* \(field: region\) — nothing was stored$/);
  const roots = page.locator('#import-result .available button.pick');
  assert.deepEqual(await roots.allInnerTexts(), ['main()', 'Setup', 'Iterations', 'time', 'p → p', 'p → n', 'n → p', 'n → n']);
  assert.ok(!(await page.locator('#import-result').innerText()).includes('null'), 'no stray null');
  await shot('import-error');
  // a parameter fills the field it was clicked for
  await page.locator('#import-result button.pick', { hasText: 'n → p' }).click();
  assert.equal(await page.locator('#import-p').inputValue(), 'n');
  assert.equal(await page.locator('#import-n').inputValue(), '');
  await page.locator('#import-result button.pick', { hasText: 'p → n' }).click();
  assert.equal(await page.locator('#import-n').inputValue(), 'p');
  await page.locator('#import-p').fill('');
  await page.locator('#import-n').fill('');
  await roots.first().click();
  assert.equal(await page.locator('#import-region').inputValue(), 'main()');
  // every format and option the API has
  const formats = await page.locator('#import-format option').evaluateAll((o) => o.map((x) => x.value));
  for (const f of ['extrap-text', 'extrap-jsonl', 'extrap-json', 'talpas', 'extrap-experiment', 'cube', 'cali',
    'caliper-json', 'thicket-json', 'geopm-report', 'csv', 'ndjson']) assert.ok(formats.includes(f), f);
  for (const id of ['chi_regions', 'gamma_regions', 'time_unit']) assert.equal(await page.locator(`#import-${id}`).count(), 1);
  await page.getByRole('button', { name: 'Import' }).click();
  const ok = page.locator('#import-result .message.ok', { hasText: 'stored' });
  await ok.waitFor();
  assert.equal(await ok.innerText(), 'stencil.txt (extrap-text): 50 runs from 25 points stored.');
  await shot('import-ok');
  await page.getByRole('button', { name: 'Import' }).click();
  await page.locator('#import-result .message.ok', { hasText: 'nothing new' }).waitFor();
  const r = await (await fetch(`${url}/api/v1/runs?system=JURECA&limit=1000`)).json();
  assert.equal(r.runs.length, 50);
  assert.equal(await page.locator('#import-result a').getAttribute('href'),
    '/series?system=JURECA&application=stencil&variant=');
  // χ regions and the time unit go to the API as the form says
  await page.locator('#import-application').fill('stencil-chi');
  await page.locator('#import-region').fill('Iterations');
  await page.locator('#import-chi_regions').fill('Halo exchange (MPI_Sendrecv),Residual (MPI_Allreduce)');
  await page.locator('#import-time_unit').selectOption('s');
  await page.getByRole('button', { name: 'Import' }).click();
  await page.locator('#import-result .message.ok', { hasText: 'stored' }).waitFor();
  const chi = await (await fetch(`${url}/api/v1/runs?system=JURECA&application=stencil-chi&p=512&n=9000`)).json();
  const x = chi.runs.find((v) => v.tau < 1.86);
  assert.ok(x && Math.abs(x.chi - (1.62 + 0.081)) < 1e-12, JSON.stringify(chi.runs.map((v) => [v.tau, v.chi])));
});

test('a run page shows every field, labels and regions, and deletes with a token', async () => {
  const [id] = await post([{ system: 'DEL', application: 'md', p: 2, n: 5, tau: 3, chi: 1,
    labels: { who: '<b>not markup</b>' }, regions: [{ name: 'solve', time_s: 1.5, power_w: 90 }] }]);
  await open(`/runs/${id}`);
  assert.match(await page.locator('dl.fields').innerText(), /tau\s+3/);
  assert.equal(await page.locator('#labels td').innerText(), '<b>not markup</b>');
  assert.match(await page.locator('#regions').innerText(), /solve\s+1\.5\s+90/);
  await shot('run');
  await page.getByRole('button', { name: 'Delete this run' }).click();
  await page.locator('#token').fill('kt_wrong');
  await page.getByRole('button', { name: 'Delete for good' }).click();
  await page.locator('.message.error').waitFor();
  await page.locator('#token').fill(token);
  await page.getByRole('button', { name: 'Delete for good' }).click();
  await page.locator('.message.ok', { hasText: `Run ${id} deleted.` }).waitFor();
  assert.equal((await fetch(`${url}/api/v1/runs/${id}`)).status, 404);
});

test('the methods page analyses a power cap, a trace, a power model and a configuration search', async () => {
  await open('/methods');
  for (const kind of ['powercap', 'trace', 'power-model', 'configurations']) {
    await page.locator(`#${kind} button`, { hasText: 'Analyse' }).click();
    await page.locator(`#${kind}-result table, #${kind}-result dl`).first().waitFor();
  }
  assert.equal(await page.locator('#powercap-table tbody tr').count(), 4);
  await page.waitForFunction(() => document.querySelector('#powercap-result img')?.naturalWidth > 0);
  assert.match(await page.locator('#trace-figures').innerText(), /RMS power error \(W\)\s+before [\d.]+, after [\d.]+/);
  // the example's cycle ratio: 2.204 * 1200 / 2700 = 0.9796
  assert.match(await page.locator('#powercap-fit').innerText(), /cycle ratio\s+0\.9796\s+2-point model\s+Pearson r [\d.]+, R² [\d.]+/);
  // each segment: 0.6 s instrumented, 0.3 s reference, ratio 0.5, shares 0.6/1.2 and 0.3/0.6
  assert.match(await page.locator('#trace-segments tbody tr').first().innerText(), /^0\s+0\.6\s+0\.3\s+0\.5\s+0\.5\s+0\.5$/);
  // ePRO-MP's walk over the example: the paper's eight, the baseline last, 6.1 % and 4.1 % better
  assert.equal(await page.locator('#configurations-executed tbody tr').count(), 8);
  assert.match(await page.locator('#configurations-executed tbody tr').last().innerText(), /^8\s+mm 4, is 4\s+100\s+1156$/);
  assert.match(await page.locator('#configurations-answer').innerText(),
    /best\s+mm 3, is 1: 93\.9 s, 1108 J\s+run next\s+nothing: the search is done\s+over the baseline \(mm 4, is 4\)\s+time 6\.1 % less, energy 4\.1 % less/);
  const table = await page.locator('#power-model-table').innerText();
  assert.match(table, /instructions\s+2(\.0\d*)?\s+[\d.e-]+\s+[\d.e-]+\s+[\d.e-]+\s+kept/);
  assert.match(table, /\(intercept\)\s+[\d.e-]+\s+[\d.e-]+\s+[\d.e-]+\s+[\d.e-]+\s+F_const/);
  assert.match(await page.locator('#power-model-fit').innerText(),
    /^R² = [\d.]+, adjusted R² = [\d.]+, residual σ = [\d.e-]+ W, \d+ degrees of freedom \(\d+ rows\)$/);
  await page.locator('#powercap-body').fill('{"f_max": 1}');
  await page.locator('#powercap button', { hasText: 'Analyse' }).click();
  await page.locator('#powercap-result .message.error').waitFor();
  await shot('methods');
});

test('keyboard and phone width', async () => {
  await open('/');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to content');
  await page.setViewportSize({ width: 390, height: 800 });
  await open('/series?system=SP2&application=md');
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390 + 1, `no sideways scrolling of the page at 390 px (${wide})`);
  await shot('series-phone');
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('static files come with their types, caching and a strict CSP', async () => {
  for (const [p, type] of [['/', 'text/html'], ['/app.js', 'text/javascript'], ['/js/lib.js', 'text/javascript'],
    ['/js/pages/series.js', 'text/javascript'], ['/style.css', 'text/css'], ['/favicon.svg', 'image/svg+xml']]) {
    const r = await fetch(`${url}${p}`);
    assert.equal(r.status, 200);
    assert.ok(r.headers.get('content-type').startsWith(type), `${p}: ${r.headers.get('content-type')}`);
    assert.ok(r.headers.get('cache-control'), `${p} has Cache-Control`);
  }
  const csp = (await fetch(`${url}/`)).headers.get('content-security-policy');
  assert.match(csp, /default-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  // the page names its icon, so no browser asks for a /favicon.ico that is not there
  const errors = [];
  const listen = (m) => { if (m.type() === 'error') errors.push(m.text()); };
  page.on('console', listen);
  await page.goto(`${url}/`);
  await page.locator('nav').waitFor();
  await page.waitForLoadState('networkidle');
  page.off('console', listen);
  assert.equal(await page.locator('link[rel="icon"]').getAttribute('href'), '/favicon.svg');
  assert.deepEqual(errors, [], 'no console error (no 404 for an icon)');
});

test('a weak-scaling series says why it has no SPS triple and which runs would complete it', async () => {
  await post([1, 2, 4, 8].map((p) => ({ system: 'WEAK', application: 'cg', p, n: 1000 * p, tau: 10 + p / 10,
    chi: p / 10 })));
  await page.goto(`${url}/series?system=WEAK&application=cg`);
  await page.locator('#to-complete').waitFor();
  assert.match(await page.locator('#to-complete').innerText(),
    /\(p = 1, n = 2000\), \(p = 2, n = 4000\), \(p = 4, n = 8000\)\./);
  assert.match(await page.locator('.message', { hasText: 'No SPS triple' }).innerText(),
    /Weak scaling: one n per p \(n proportional to p\)/);
  assert.equal(await page.locator('#weak tbody tr').count(), 4);
  assert.match(await page.locator('#weak tbody tr').last().innerText(), /8\s+8000\s+10\.8\s+0\.93/);
  await shot('weak-scaling');
});

test('a series page models every metric and region, draws the chosen model and the isoefficiency function', async () => {
  // tau = 2n/p + 5 sqrt(p) exactly: work p·γ = 2n, overhead p·χ = 5 p^(3/2)
  const runs = [];
  for (const p of [1, 2, 4, 8, 16, 32, 64]) {
    for (const n of [1000, 2000, 4000, 8000, 16000]) {
      const g = 2 * n / p, c = 5 * Math.sqrt(p);
      runs.push({ system: 'MODEL', application: 'cg', p, n, tau: g + c, chi: c,
        regions: [{ name: 'solve', time_s: g }, { name: 'halo', time_s: c }] });
    }
  }
  await post(runs);
  await page.goto(`${url}/series?system=MODEL&application=cg`);
  await page.locator('#models tbody tr').first().waitFor();
  const rows = page.locator('#models tbody tr');
  assert.equal(await rows.count(), 5);	// τ, χ, γ, region solve, region halo
  // by default the models GET /api/v1/analysis/model answers (resource=auto): τ falls at every
  // step of p at n = 16000, so it is modelled as p × τ, as Extra-P 4.2 models strong scaling
  const api = await (await fetch(`${url}/api/v1/analysis/model?system=MODEL&application=cg&variant=&metric=tau`)).json();
  assert.equal(api.resource, true);
  assert.match(await rows.first().innerText(), new RegExp(`^τ\\s+${api.function.replace(/[.*+^()\\/]/g, '\\$&')}`));
  let text = await page.locator('#models').innerText();
  assert.match(text, /τ\s+\(32000 \+ 5 \* p\^\(3\/2\)\) \/ p\s+p × metric/);
  assert.match(text, /γ\s+\(32000\) \/ p\s+p × metric/);
  // the halo's time rises with p: modelled as measured, and the row says so
  assert.match(text, /region halo\s+5 \* p\^\(1\/2\)\s+as measured/);
  assert.match(await page.locator('#model-reading').innerText(), /τ: τ falls at every step of the 7 measured p/);
  assert.equal(await rows.first().getAttribute('class'), null);
  // forced as measured: τ falls like 1/p, Extra-P's exponents cannot follow, and the table says so
  await page.locator('#model-resource').selectOption('false');
  await page.waitForFunction(() => document.querySelector('#models tbody tr')?.innerText.includes('as measured') &&
    !document.querySelector('#models tbody tr').innerText.includes('/ p'));
  const measured = await (await fetch(`${url}/api/v1/analysis/model?system=MODEL&application=cg&variant=&metric=tau&resource=false`)).json();
  assert.notEqual(measured.quality, 'good');
  assert.equal(await page.locator('#models tbody tr').first().locator('.quality').innerText(), measured.quality);
  assert.equal(await page.locator('#models tbody tr').first().getAttribute('class'), 'not-good');
  await page.locator('#model-resource').selectOption('auto');
  await page.waitForFunction(() => document.getElementById('models')?.innerText.includes('(32000'));
  text = await page.locator('#models').innerText();
  assert.match(text, /τ\s+\(32000 \+ 5 \* p\^\(3\/2\)\) \/ p/);
  // where τ stops falling at n = 1000: dτ/dp = 0 at p^(3/2) = 800, p = 86.18
  await page.locator('#c1c3-model tbody tr').first().waitFor();
  const turn = await page.locator('#c1c3-model tbody tr').first().innerText();
  assert.match(turn, /^1000\s+86\.18/);
  assert.match(turn, /extrapolated/);
  const modelFig = page.locator('figure[data-kind="model"]');
  await page.waitForFunction(() => document.querySelector('figure[data-kind="model"]')?.dataset.ready === 'yes' &&
    document.querySelector('figure[data-kind="isoefficiency-function"]')?.dataset.ready === 'yes');
  assert.match(await modelFig.locator('figcaption').innerText(), /scaling model of τ \(modelled as p × the metric, divided by p\)/);
  // a metric's name reads from the cell's left edge, also when it wraps (a button centres its text)
  assert.equal(await page.locator('#models button[data-metric="region:halo"]').evaluate((b) => getComputedStyle(b).textAlign), 'left');
  await page.locator('#models button[data-metric="region:halo"]').click();
  await page.waitForFunction(() => document.querySelector('figure[data-kind="model"] figcaption')
    ?.textContent.includes('region halo') && document.querySelector('figure[data-kind="model"]').dataset.ready === 'yes');
  const frame = JSON.parse(await modelFig.getAttribute('data-frame'));
  assert.ok(frame.panels[0].x.log && frame.panels[0].x.max > 64 * 3, 'the model is drawn past the measured p');
  await page.locator('#models-section').screenshot({ path: path.join(out, 'models.png') });
});

test('labels filter a series and compare two commits side by side; history and alerts link runs and charts', async () => {
  // one point (p = 4, n = 100) over seven commits, posted one by one as CI
  // would: c5's 14.5 s is a regression against 10, 11, 9, 10, 12 (median
  // 10, MAD 1), c6's 5.0 s an improvement; c5 and c6 also at p = 1, 2, 8
  const taus = [10, 11, 9, 10, 12, 14.5, 5.0];
  let regressionRun = null;
  for (const [i, tau] of taus.entries()) {
    const r = await fetch(`${url}/api/v1/runs`, { method: 'POST', headers: { 'Content-Type': 'application/json',
      Authorization: `Bearer ${token}` }, body: JSON.stringify({ system: 'CI', application: 'stencil', p: 4, n: 100,
      tau, chi: 0.4, measured_at: `2026-11-${10 + i}T10:00:00Z`, labels: { commit: `c${i}` } }) });
    const b = await r.json();
    assert.equal(r.status, 201);
    assert.equal(b.verdicts[0], i === 5 ? 'regression' : i === 6 ? 'improvement' : 'ok');
    if (i === 5) regressionRun = b.ids[0];
  }
  for (const [i, slow] of [[5, 1], [6, 1.5]]) {
    await post([[1, 40], [2, 21], [8, 6 * slow]].map(([p, tau]) => ({ system: 'CI', application: 'stencil', p, n: 100,
      tau, chi: 0.1 * p * tau, measured_at: `2026-11-${10 + i}T11:00:00Z`, labels: { commit: `c${i}` } })));
  }

  // the series page offers the labels: commit with its seven values
  await open('/series?system=CI&application=stencil');
  const row = page.locator('.label-row[data-key="commit"]');
  await row.waitFor();
  assert.equal(await row.locator('select[data-label="commit"] option').count(), 8);
  assert.equal(await row.locator('select[data-compare="a"]').inputValue(), 'c5');
  assert.equal(await row.locator('select[data-compare="b"]').inputValue(), 'c6');
  // a filter narrows the whole page to commit c6
  await row.locator('select[data-label="commit"]').selectOption('c6');
  await page.waitForFunction(() => document.getElementById('view').dataset.ready?.includes('label.commit=c6'));
  assert.match(await page.locator('h1').innerText(), /CI:stencil \[commit=c6\]/);
  await page.locator('figure[data-kind="efficiency"][data-ready="yes"]').waitFor();
  assert.match(await page.locator('figure[data-kind="efficiency"] a', { hasText: 'SVG' }).getAttribute('href'),
    /label\.commit=c6/);

  // side by side: c5 beside c6 in every chart and the matching table
  await open('/series?system=CI&application=stencil');
  await row.waitFor();
  await row.getByRole('button', { name: 'Side by side' }).click();
  await page.waitForFunction(() => document.getElementById('view').dataset.ready?.startsWith('/compare'));
  assert.equal(new URL(page.url()).searchParams.getAll('label.commit').join(','), 'c5,c6');
  assert.match(await page.locator('#label-compare').innerText(), /commit: c5 beside c6/);
  for (const kind of ['isoefficiency', 'efficiency', 'model']) {
    await page.locator(`figure[data-kind="${kind}"][data-ready="yes"]`).waitFor();
  }
  assert.equal(await page.locator('#matching tbody tr').count(), 4);
  const head = await page.locator('#matching thead').innerText();
  assert.match(head, /CI:stencil \[commit=c5\]/);
  assert.match(head, /CI:stencil \[commit=c6\]/);
  await shot('compare-commits');

  // the history of p = 4, n = 100: seven runs, the verdicts, the band chart
  await open('/series?system=CI&application=stencil');
  await page.locator('#history-points a', { hasText: 'p = 4, n = 100' }).click();
  await page.waitForFunction(() => document.getElementById('view').dataset.ready?.startsWith('/history'));
  await page.locator('figure[data-kind="history"][data-ready="yes"]').waitFor();
  assert.equal(await page.locator('#history tbody tr').count(), 7);
  const table = await page.locator('#history').innerText();
  assert.match(table, new RegExp(`${regressionRun}\\s+2026-11-15T10:00:00Z\\s+14\\.5\\s+regression\\s+10\\s+1`));
  assert.match(table, /5\s+improvement\s+10\.5\s+1/);
  // the first five runs had no baseline: ok, and the table says why (the chart's grey rings)
  assert.equal((table.match(/ok: fewer than 5 runs before/g) || []).length, 5);
  await page.locator('figure[data-kind="scaling-history"][data-ready="yes"]').waitFor();
  assert.match(await page.locator('figure[data-kind="scaling-history"] a', { hasText: 'SVG' }).getAttribute('href'),
    /scaling-history\.svg\?.*by=commit&value=c6/);
  await shot('history');
  // across commits instead of time
  await page.locator('#history-by').selectOption('commit');
  await page.waitForFunction(() => document.getElementById('view').dataset.ready?.includes('by=commit'));
  await page.locator('figure[data-kind="history"][data-ready="yes"]').waitFor();
  assert.match(await page.locator('#history thead').innerText(), /commit/);

  // the alerts page: c5's regression, linked to its run and its history,
  // acknowledged with the token
  await page.getByRole('link', { name: 'Alerts' }).click();
  await page.waitForFunction(() => document.getElementById('view').dataset.ready === '/alerts');
  const alerts = page.locator('#alerts tbody tr', { hasText: 'CI:stencil' });
  assert.equal(await alerts.count(), 1);
  assert.match(await alerts.innerText(), /CI:stencil\s+4\s+100\s+2026-11-15T10:00:00Z\s+commit=c5\s+tau\s+14\.5\s+\+45 %/);
  assert.equal(await alerts.getByRole('link', { name: String(regressionRun) }).getAttribute('href'), `/runs/${regressionRun}`);
  await shot('alerts');
  await page.locator('#token').fill(token);
  await alerts.getByRole('button', { name: 'Acknowledge' }).click();
  await alerts.getByText(/^by /).waitFor();
  const acked = await (await fetch(`${url}/api/v1/alerts?system=CI`)).json();
  assert.equal(acked.alerts[0].acknowledged, true);
  await alerts.getByRole('link', { name: 'history' }).click();
  await page.waitForFunction(() => document.getElementById('view').dataset.ready?.startsWith('/history'));
  assert.match(await page.locator('h1').innerText(), /History of CI:stencil at p = 4, n = 100/);
});

test('the home page draws a page of 100 series at a time, and its CSV runs nothing in a spreadsheet', async () => {
  const many = [];
  for (let i = 0; i < 250; i++) many.push({ system: `many${String(i).padStart(3, '0')}`, application: 'x', p: 1, n: 1, tau: 1 });
  many.push({ system: 'zz', application: "=cmd|' /C calc'!A0", p: 1, n: 1, tau: 1 });
  await post(many);
  await open('/');
  const rows = page.locator('#series tbody tr');
  assert.equal(await rows.count(), 100);
  const total = await (await fetch(`${url}/api/v1/series`)).json();
  const n = total.series.length;
  assert.match(await page.locator('.toolbar .muted').first().innerText(), new RegExp(`^rows 1–100 of ${n}$`));
  await page.getByLabel('compare many000:x').check();
  await shot('home-paged');
  await page.getByRole('button', { name: 'next rows' }).click();
  assert.equal(await rows.count(), 100);
  assert.match(await page.locator('.toolbar .muted').first().innerText(), /^rows 101–200 of /);
  await page.getByRole('button', { name: 'previous rows' }).click();
  assert.equal(await page.getByLabel('compare many000:x').isChecked(), true, 'a page drawn again keeps the ticks');
  // filtering starts at the first page and the pager hides when one page holds all
  await page.getByPlaceholder('filter rows').fill('many24');
  assert.equal(await rows.count(), 10);
  assert.equal(await page.locator('.pager').isHidden(), true);
  await page.getByPlaceholder('filter rows').fill('zz');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  const csv = (await (await dl.createReadStream()).toArray()).join('');
  assert.match(csv.split('\n')[1], /^zz,'=cmd\|' \/C calc'!A0,,1,/);
  await page.getByPlaceholder('filter rows').fill('');
  assert.ok(await page.evaluate(() => document.getElementsByTagName('*').length) < 2000, 'a page, not 253 rows of DOM');
});

test('one selection per page: a τ-only import beside another variant, calm notes, the compare page and the default τ model', async () => {
  // an Extra-P file of p alone, τ only (what most imports give): n = 1, said in a warning
  const file = ['PARAMETER p', 'POINTS 2 4 8 16 32', 'REGION main', 'METRIC time',
    'DATA 10.1 10.0 9.9', 'DATA 5.2 5.1 5.0', 'DATA 2.7 2.6 2.65', 'DATA 1.5 1.4 1.45', 'DATA 0.9 0.85 0.88', ''].join('\n');
  const r = await fetch(`${url}/api/v1/import?format=extrap-text&system=JAC&application=jacobi`,
    { method: 'POST', body: file, headers: { Authorization: `Bearer ${token}` } });
  const b = await r.json();
  assert.equal(r.status, 201, JSON.stringify(b));
  assert.equal(b.runs, 15);
  assert.ok(b.warnings.some((w) => /n = 1/.test(w)), JSON.stringify(b.warnings));
  // another variant of the same application, which this page must not mix in
  await post([2, 4, 8, 16].map((p) => ({ system: 'JAC', application: 'jacobi', variant: 'iters50', p, n: 1,
    tau: 5 / p + 0.1 })));

  await open('/series?system=JAC&application=jacobi');
  await page.locator('figure[data-kind="scaling"][data-ready="yes"]').waitFor();
  await page.locator('#runs tbody tr').first().waitFor();
  await page.locator('figure[data-kind="model"][data-ready="yes"]').waitFor();
  // only what τ alone can show: the scaling chart and the model, no error anywhere
  assert.deepEqual(await page.locator('figure').evaluateAll((f) => f.map((x) => x.dataset.kind)), ['scaling', 'model']);
  assert.deepEqual(await page.locator('[role="alert"], .message.error').allInnerTexts(), [], 'nothing went wrong: no alert');
  const note = await page.locator('#absent[role="status"]').innerText();
  assert.match(note, /τ alone/);
  assert.match(note, /--chi-regions/, 'the way to add χ for an import');
  assert.match(note, /post "chi"/, 'and for a post');
  // the runs, history and downloads are this variant's: 15 runs, not 19
  assert.equal(await page.locator('#runs tbody tr').count(), 15);
  assert.equal(await page.locator('#history-points li').count(), 5);
  for (const href of await page.locator('#history-points a').evaluateAll((a) => a.map((x) => x.getAttribute('href')))) {
    assert.match(href, /^\/history\?system=JAC&application=jacobi&p=\d+&n=1$/);
  }
  for (const kind of ['scaling', 'model']) {
    assert.match(await page.locator(`figure[data-kind="${kind}"] a`, { hasText: 'SVG' }).getAttribute('href'),
      /[?&]variant=(&|$)/, `${kind}: the variant named to the API`);
  }
  // the other variant is a link, with its own count
  const other = page.locator('#variants a', { hasText: 'iters50' });
  assert.equal(await other.getAttribute('href'), '/series?system=JAC&application=jacobi&variant=iters50');
  assert.match(await page.locator('#variants').innerText(), /iters50 \(4 runs\)/);
  // speedup at p = 32 from the medians: 10.0 / 0.88 = 11.36
  const sc = await (await fetch(`${url}/api/v1/analysis/scaling?system=JAC&application=jacobi&variant=`)).json();
  assert.equal(sc.points.length, 5);
  assert.equal(sc.points[4].speedup, 10 / 0.88);
  // the page's τ model is the API's default, with its quality
  const api = await (await fetch(`${url}/api/v1/analysis/model?system=JAC&application=jacobi&variant=&metric=tau`)).json();
  const tauRow = page.locator('#models tbody tr').first();
  assert.match(await tauRow.innerText(), new RegExp(`^τ\\s+${api.function.replace(/[.*+^()\\/]/g, '\\$&')}`));
  if (api.quality === 'good') assert.equal(await tauRow.locator('.quality').count(), 0);
  else assert.equal(await tauRow.locator('.quality').innerText(), api.quality);
  assert.equal((await tauRow.getAttribute('class')) ?? '', api.quality === 'good' ? '' : 'not-good');
  // τ falls at every step of p: modelled as p × τ by default, and the row says so
  assert.equal(api.resource, true);
  assert.match(await tauRow.innerText(), /p × metric/);
  await shot('series-tau-only');

  // the other variant's page: its 4 runs, and a link back
  await other.click();
  await page.waitForFunction(() => document.getElementById('view').dataset.ready?.includes('variant=iters50'));
  await page.locator('#runs tbody tr').first().waitFor();
  assert.equal(await page.locator('#runs tbody tr').count(), 4);
  assert.match(await page.locator('#variants').innerText(), /\(default\) \(15 runs\)/);

  // compare: τ and speedup of both, the same default model, no error
  await open('/compare?series=JAC:jacobi&series=JAC:jacobi:iters50');
  for (const kind of ['scaling', 'model']) await page.locator(`figure[data-kind="${kind}"][data-ready="yes"]`).waitFor();
  assert.deepEqual(await page.locator('figure').evaluateAll((f) => f.map((x) => x.dataset.kind)), ['scaling', 'model']);
  assert.deepEqual(await page.locator('[role="alert"], .message.error').allInnerTexts(), []);
  assert.match(await page.locator('#absent[role="status"]').innerText(), /JAC:jacobi, JAC:jacobi:iters50 carry τ alone/);
  assert.equal(await page.locator('#matching tbody tr').count(), 4);
  assert.match(await page.locator('#matching').innerText(), /\n2\s+1\s+10\s+2\.6\n/);
  const frame = JSON.parse(await page.locator('figure[data-kind="model"]').getAttribute('data-frame'));
  assert.ok(frame.legend.some((t) => t.includes(api.function)), `the compare page's model is the API's: ${frame.legend}`);
  await shot('compare-tau-only');
});

// A call tree: solve 8/p with MPI_Allreduce 0.02 + 0.02 log2(p) and halo
// inside it, io 1 s; two repetitions at +-1 % (the means exact).
function treeRuns() {
  const runs = [];
  for (const p of [1, 2, 4, 8, 16, 32]) {
    const paths = [[['solve'], 8 / p + 0.02 + 0.02 * Math.log2(p) + 0.01 * Math.sqrt(p)],
      [['solve', 'MPI_Allreduce'], 0.02 + 0.02 * Math.log2(p)], [['solve', 'halo'], 0.01 * Math.sqrt(p)],
      [['io'], 1]];
    for (const f of [0.99, 1.01]) {
      runs.push({ system: 'TREE', application: 'cg', p, n: 1000, tau: (paths[0][1] + 1.05) * f,
        regions: paths.map(([path, v]) => ({ name: path[path.length - 1], time_s: v * f,
          ...(path.length > 1 ? { path } : {}) })) });
    }
  }
  return runs;
}

test('the call tree: every path modelled and ranked, expand, sort, keyboard, a chart and a link per path', async () => {
  await post(treeRuns());
  const api = await (await fetch(`${url}/api/v1/analysis/regions?system=TREE&application=cg&variant=`)).json();
  await open('/series?system=TREE&application=cg');
  await page.locator('#calltree tbody tr').first().waitFor();
  const paths = async () => page.locator('#calltree tbody tr').evaluateAll((t) => t.map((r) => r.dataset.path));
  // the roots in rank order; solve is open (its children are in the top ten)
  const ranked = api.paths.map((x) => x.path.join('->'));
  assert.deepEqual(await paths(), ['io', 'solve', 'solve->MPI_Allreduce', 'solve->halo'].sort((a, b) => {
    const best = (k) => Math.min(...ranked.map((r, i) => (r === k || r.startsWith(`${k}->`) ? i : Infinity)));
    return best(a.split('->')[0]) - best(b.split('->')[0]) || (a.includes('->') - b.includes('->')) ||
      ranked.indexOf(a) - ranked.indexOf(b);
  }));
  const row = (k) => page.locator(`#calltree tr[data-path="${k}"]`);
  // growth in words and a mark, never colour alone; the share that grows said
  assert.match(await row('solve->MPI_Allreduce').innerText(), /0\.02 \+ 0\.02 \* log2\(p\)\s+↗ grows as log2\(p\)/);
  assert.match(await row('solve->MPI_Allreduce').innerText(), /▲ grows/);
  assert.match(await row('io').innerText(), /→ constant/);
  // solve holds its children: 8/p and what grows under it; the page says what the API says
  const solve = api.paths.find((x) => x.path.join('->') === 'solve');
  assert.ok((await row('solve').innerText()).includes(solve.growth === 'falls' ? '↘ falls' : `↗ grows as ${solve.growth}`));
  assert.match(await page.locator('#calltree-summary').innerText(), new RegExp(`${api.count} call paths modelled`));
  assert.deepEqual(await page.locator('#calltree-warnings li').allInnerTexts(), api.warnings);
  // the button's mark can be seen: ▾ in ink on the white page (it was white on white)
  const mark = await row('solve').getByRole('button', { name: 'collapse solve' }).evaluate((b) => {
    const lum = (c) => c.match(/\d+/g).slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
    return [b.textContent, (1.05) / (lum(getComputedStyle(b).color) + 0.05)];
  });
  assert.equal(mark[0], '▾');
  assert.ok(mark[1] >= 4.5, `the toggle's mark against white: contrast ${mark[1].toFixed(2)} (4.5 at least)`);
  // collapse and expand with the mouse and with the keyboard
  await row('solve').getByRole('button', { name: 'collapse solve' }).click();
  assert.deepEqual((await paths()).sort(), ['io', 'solve']);
  await row('solve').locator('.path-name').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal((await paths()).length, 4);
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.closest('tr').dataset.path),
    (await paths())[(await paths()).indexOf('solve') + 1]);
  await page.keyboard.press('ArrowLeft');	// a child: to its parent
  assert.equal(await page.evaluate(() => document.activeElement.closest('tr').dataset.path), 'solve');
  // sortable: by the measured share, largest first, siblings under their parent
  await page.locator('#calltree thead button', { hasText: 'share at largest p' }).click();
  const order = await paths();
  assert.equal(order[0], 'io', `io takes 1 / 1.44 of tau at p = 32 (${order})`);
  // a path opens its model chart; its link reopens the page with it shown
  await row('solve->halo').locator('.path-name').click();
  await page.locator('#calltree-chart figure[data-kind="model"][data-ready="yes"]').waitFor();
  assert.equal(new URL(page.url()).searchParams.get('path'), 'solve->halo');
  const href = await row('solve->MPI_Allreduce').locator('.path-link').getAttribute('href');
  await page.locator('figure[data-kind="regions"][data-ready="yes"]').waitFor();
  const frame = JSON.parse(await page.locator('figure[data-kind="regions"]').getAttribute('data-frame'));
  assert.ok(frame.legend.some((t) => t.startsWith('solve->MPI_Allreduce: 0.02 + 0.02 * log2(p)')), frame.legend);
  await shot('series-calltree');
  await page.locator('#calltree-section button', { hasText: 'Collapse all' }).click();
  assert.deepEqual((await paths()).sort(), ['io', 'solve']);
  await open(href);
  await page.locator('#calltree tr[data-path="solve->MPI_Allreduce"][aria-selected="true"]').waitFor();
  await page.locator('#calltree-chart figure[data-kind="model"][data-ready="yes"]').waitFor();
  assert.match(await page.locator('#calltree-chart figcaption').innerText(), /scaling model of solve->MPI_Allreduce/);
  assert.deepEqual(await page.locator('[role="alert"]').allInnerTexts(), []);
});

test('a step the runs\' spread could flip says so; the others hold', async () => {
  // medians 10.3 -> 9.95 from p = 2 to 4 (C1), but 10.0 ... 10.6 and 9.8 ... 10.1 overlap: uncertain
  const runs = [];
  for (const [p, taus, chi] of [[2, [10.0, 10.6], 1.0], [4, [10.1, 9.8], 1.5], [8, [6.0, 6.1], 2.0]]) {
    for (const tau of taus) runs.push({ system: 'NOISY', application: 'a', p, n: 100, tau, chi });
  }
  await post(runs);
  await open('/series?system=NOISY&application=a');
  await page.locator('#steps tbody tr').first().waitFor();
  const steps = await page.locator('#steps tbody tr').allInnerTexts();
  assert.match(steps[0], /^100\s+2\s+4\s+C1\s+\S+\s+uncertain: the runs’ spread could flip it$/);
  assert.match(steps[1], /^100\s+4\s+8\s+C1\s+\S+\s+holds$/);
});

test('the call tree says when its paths predict more than τ, and greys an unusable growth', async () => {
  // τ 10 at every p; a = 1 + 0.5 log2(p) and b = 6: 10.5 s at p = 128, 105 % of τ's model;
  // c at p = 1 alone: unusable, nothing predicted from it
  const runs = [];
  for (const p of [1, 2, 4, 8, 16]) {
    for (const f of [0.99, 1.01]) {
      runs.push({ system: 'PARTS', application: 'over', p, n: 1, tau: 10 * f,
        regions: [{ name: 'a', time_s: (1 + 0.5 * Math.log2(p)) * f }, { name: 'b', time_s: 6 * f },
          ...(p === 1 ? [{ name: 'c', time_s: 0.5 * f }] : [])] });
    }
  }
  await post(runs);
  await open('/series?system=PARTS&application=over');
  await page.locator('#calltree tbody tr').first().waitFor();
  assert.deepEqual(await page.locator('#calltree-warnings li').allInnerTexts(),
    ["at p = 128 the first-level paths' models predict 10.5 s together, 105 % of τ's model (10 s): each is " +
     'fitted on its own, so the shares there add up to more than 100 %; measure at larger p before trusting either']);
  // a grows as log2(p) in its colour; c's growth from an unusable model is no finding
  const growth = async (k) => page.locator(`#calltree tr[data-path="${k}"] .growth`);
  assert.equal(await (await growth('a')).innerText(), '↗ grows as log2(p)');
  assert.match(await (await growth('a')).getAttribute('class'), /growth-grows/);
  assert.equal(await (await growth('c')).innerText(), '· constant, from an unusable model');
  assert.match(await (await growth('c')).getAttribute('class'), /growth-none/);
});
