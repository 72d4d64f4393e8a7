// SVG, PNG and PDF of every report agree: each report is fetched from a
// real karted in all three formats; Chromium rasterises the SVG (as a
// browser shows it in the UI), pdftoppm the PDF, and karted's own PNG is
// the reference. In each raster the markers are found: the coloured pixels
// (the colour-blind-safe palette; grey and black are left out) that keep
// their 3 x 3 neighbourhood coloured (so 1-2 px lines drop out and a marker
// leaves its core), as connected blobs; every marker of the PNG must have
// one in the other raster within 1.5 px. A marker drawn off its point (as
// Cairo's stamps once were in browsers) moves its core by several px.
//
// usage: KARTED=build/karted node --test tests/browser/charts.test.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium, root, startKarted } from './karted.mjs';

const out = path.join(root, 'tests', 'out', 'charts');
const karted = path.resolve(root, process.env.KARTED || 'build/karted');
const TOL = 1.5;  // px
let server, browser, page, work;

const SP2 = [[10, 39200, 20, 0.552], [16, 39200, 16, 0.45], [24, 39200, 14, 0.334], [36, 39200, 15, 0.22],
  [10, 80000, 40, 0.62], [16, 80000, 32, 0.5], [24, 80000, 25, 0.4], [36, 80000, 28, 0.3]];

async function api(method, p, body) {
  const r = await fetch(`${server.url}${p}`, { method, body: body && JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` } });
  assert.ok(r.ok, `${method} ${p}: ${r.status} ${await r.clone().text()}`);
  return r;
}

// Kimura-like runs: two regions, p = 1..8 at the standard frequency, p = 1
// at two lower ones, and optimised runs where each region has its own f.
function kimura() {
  const runs = [];
  for (const p of [1, 2, 4, 8]) {
    runs.push({ system: 'K', application: 'mg', p, n: 1, tau: 10 / p + 1, frequency_mhz: 3000,
      regions: [{ name: 'calc', time_s: 8 / p, power_w: 120 }, { name: 'comm', time_s: 2 / p + 1, power_w: 90 }] });
    runs.push({ system: 'K', application: 'mg', p, n: 1, tau: 11 / p + 1,
      regions: [{ name: 'calc', time_s: 8.5 / p, power_w: 110, frequency_mhz: 2400 },
        { name: 'comm', time_s: 2 / p + 1, power_w: 60, frequency_mhz: 1200 }] });
  }
  for (const f of [2400, 1800, 1200]) {
    runs.push({ system: 'K', application: 'mg', p: 1, n: 1, tau: 10 * 3000 / f, frequency_mhz: f,
      regions: [{ name: 'calc', time_s: 8 * 3000 / f, power_w: 120 * f / 3000 },
        { name: 'comm', time_s: 3, power_w: 90 * f / 3000 }] });
  }
  return runs;
}

const POWERCAP = { f_max: 3000, f_min: 1200, t0: 100,
  r: { f: [1200, 1500, 1800, 2100, 2400, 2700, 3000], r: [2.2, 1.85, 1.6, 1.4, 1.22, 1.1, 1.0] },
  modules: [{ p_max: 110, p_min: 45 }, { p_max: 100, p_min: 40 }, { p_max: 95, p_min: 42 }, { p_max: 120, p_min: 50 }],
  budgets: [220, 260, 300, 340, 380, 420] };

function traceBody() {
  const inst = [], ref = [];
  for (let i = 0; i <= 60; i++) ref.push({ t: i * 0.025, p: 100 + 40 * Math.sin(i / 5) });
  for (let i = 0; i <= 60; i++) inst.push({ t: i * 0.04, p: 130 + 40 * Math.sin(i / 5) });
  return { instrumented: inst, reference: ref,
    segments: [{ start: 0.2, end: 1.2, ref_start: 0.1, ref_end: 0.75 }, { start: 1.2, end: 2.2, ref_start: 0.75, ref_end: 1.4 }] };
}

const MARKERS = new Set(['isoefficiency', 'efficiency', 'isoefficiency-compare', 'energy', 'powercap']);
const REPORTS = [
  ['isoefficiency', 'GET', '/api/v1/reports/isoefficiency.{fmt}?system=SP2&application=md'],
  ['efficiency', 'GET', '/api/v1/reports/efficiency.{fmt}?system=SP2&application=md'],
  ['isoefficiency-compare', 'GET', '/api/v1/reports/isoefficiency.{fmt}?series=SP2:md&series=T3E:md'],
  ['energy', 'GET', '/api/v1/reports/energy.{fmt}?system=K&application=mg&f_std=3000'],
  ['energy-shares', 'GET', '/api/v1/reports/energy-shares.{fmt}?system=K&application=mg&f_std=3000'],
  ['powercap', 'POST', '/api/v1/reports/powercap.{fmt}', POWERCAP],
  ['trace', 'POST', '/api/v1/reports/trace.{fmt}', traceBody()],
];

before(async () => {
  server = await startKarted(karted);
  mkdirSync(out, { recursive: true });
  work = mkdtempSync(path.join(tmpdir(), 'karte-charts-'));
  await api('POST', '/api/v1/runs', SP2.map(([p, n, tau, e]) => ({ system: 'SP2', application: 'md', p, n, tau, chi: (1 - e) * tau })));
  await api('POST', '/api/v1/runs', SP2.map(([p, n, tau, e]) => ({ system: 'T3E', application: 'md', p, n, tau: tau * 0.6,
    chi: (1 - Math.min(e + 0.1, 0.95)) * tau * 0.6 })));
  await api('POST', '/api/v1/runs', kimura());
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(`${server.url}/api/v1/health`);  // same origin: the canvases stay readable
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

// The coloured blobs of an image (a URL), found in the page: [{x, y, n}].
function blobsOf(src) {
  return page.evaluate(async (src) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    const w = img.naturalWidth, h = img.naturalHeight;
    const c = new OffscreenCanvas(w, h), g = c.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, w, h);
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, w, h).data, on = new Uint8Array(w * h), out = [], cores = [];
    for (let i = 0; i < w * h; i++) {
      const r = d[4 * i], gr = d[4 * i + 1], b = d[4 * i + 2];
      on[i] = Math.max(r, gr, b) - Math.min(r, gr, b) > 70 ? 1 : 0;
    }
    const core = new Uint8Array(w * h), stack = [];
    for (let y = 1; y < h - 1; y++)
      for (let x = 1; x < w - 1; x++) {
        let all = 1;
        for (let dy = -1; dy <= 1 && all; dy++)
          for (let dx = -1; dx <= 1 && all; dx++) all = on[(y + dy) * w + x + dx];
        core[y * w + x] = all;
      }
    on.set(core);
    for (let s = 0; s < w * h; s++) {
      if (!on[s]) continue;
      let n = 0, sx = 0, sy = 0, x0 = w, x1 = 0, y0 = h, y1 = 0;
      on[s] = 0;
      stack.push(s);
      while (stack.length) {
        const i = stack.pop(), x = i % w, y = (i - x) / w;
        n++; sx += x; sy += y;
        x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
        for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1])
          if (j >= 0 && on[j]) { on[j] = 0; stack.push(j); }
      }
      // a marker's core is compact and small; pieces of thick or
      // overlapping lines are long or tiny
      const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
      if (n >= 6 && bw <= 9 && bh <= 9 && Math.min(bw, bh) / Math.max(bw, bh) >= 0.5)
        out.push({ x: sx / n, y: sy / n, n });
      cores.push({ x: sx / n, y: sy / n, n });
    }
    return { w, h, blobs: out, cores, pixels: Array.from(d) };
  }, src);
}

function dataUrl(buf, type) {
  return `data:${type};base64,${buf.toString('base64')}`;
}

// The share of pixels whose colour differs clearly (> 96 in a channel).
function differing(a, b) {
  let n = 0;
  for (let i = 0; i < a.length; i += 4)
    if (Math.abs(a[i] - b[i]) > 96 || Math.abs(a[i + 1] - b[i + 1]) > 96 || Math.abs(a[i + 2] - b[i + 2]) > 96) n++;
  return n / (a.length / 4);
}

// Every marker of want has a core in got within TOL px, and the images
// agree but for at most maxDiff of their pixels (text antialiasing: poppler
// hints fonts otherwise than Cairo and Chromium do).
function compare(name, what, want, got, maxDiff) {
  assert.equal(got.w, want.w, `${name}: ${what} width`);
  assert.equal(got.h, want.h, `${name}: ${what} height`);
  const diff = differing(want.pixels, got.pixels);
  assert.ok(diff < maxDiff, `${name}: ${(diff * 100).toFixed(2)} % of the ${what}'s pixels differ from the PNG's`);
  let worst = 0;
  for (const b of want.blobs) {
    let best = Infinity;
    for (const o of got.cores) best = Math.min(best, Math.hypot(o.x - b.x, o.y - b.y));
    assert.ok(best <= TOL, `${name}: ${what}: the marker at (${b.x.toFixed(1)}, ${b.y.toFixed(1)}) ` +
      `in the PNG is ${best.toFixed(1)} px from its nearest in the ${what}`);
    worst = Math.max(worst, best);
  }
  return { worst, diff };
}

for (const [name, method, p, body] of REPORTS) {
  test(`${name}: SVG in Chromium and the PDF put every marker where the PNG does`, async () => {
    const get = async (fmt) => Buffer.from(await (await api(method, p.replace('{fmt}', fmt), body)).arrayBuffer());
    const png = await get('png'), svg = await get('svg'), pdf = await get('pdf');
    writeFileSync(path.join(out, `${name}.png`), png);
    writeFileSync(path.join(out, `${name}.svg`), svg);
    assert.match(svg.toString('utf8', 0, 400), /<svg[^>]* width="\d+px" height="\d+px"/, 'the SVG gives its size in px');
    writeFileSync(path.join(work, `${name}.pdf`), pdf);
    execFileSync('pdftoppm', ['-png', '-r', '72', '-singlefile', path.join(work, `${name}.pdf`),
      path.join(work, name)]);
    const ref = await blobsOf(dataUrl(png, 'image/png'));
    const inSvg = await blobsOf(dataUrl(svg, 'image/svg+xml'));
    const inPdf = await blobsOf(dataUrl(readFileSync(path.join(work, `${name}.png`)), 'image/png'));
    const ws = compare(name, 'SVG', ref, inSvg, 0.01), wp = compare(name, 'PDF', ref, inPdf, 0.04);
    if (MARKERS.has(name))
      assert.ok(ref.blobs.length >= 3, `${name}: the PNG shows its markers (${ref.blobs.length} found)`);
    console.log(`${name}: ${ref.blobs.length} markers; worst distance SVG ${ws.worst.toFixed(2)} px, ` +
      `PDF ${wp.worst.toFixed(2)} px; pixels differing SVG ${(ws.diff * 100).toFixed(2)} %, PDF ${(wp.diff * 100).toFixed(2)} %`);
  });
}
