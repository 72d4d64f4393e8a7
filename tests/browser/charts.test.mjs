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

async function api(method, p, body) {
  const r = await fetch(`${server.url}${p}`, { method, body: body && JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` } });
  assert.ok(r.ok, `${method} ${p}: ${r.status} ${await r.clone().text()}`);
  return r;
}

// the example data the gallery draws too: tests/data/examples.json
const ex = JSON.parse(readFileSync(path.join(root, 'tests', 'data', 'examples.json'), 'utf8'));
const MARKERS = new Set(['isoefficiency', 'efficiency', 'isoefficiency-compare', 'efficiency-compare', 'energy', 'powercap']);
const REPORTS = ex.reports.map(([name, method, p]) => [name, method, p, ex[name]]);

before(async () => {
  server = await startKarted(karted);
  mkdirSync(out, { recursive: true });
  work = mkdtempSync(path.join(tmpdir(), 'karte-charts-'));
  await api('POST', '/api/v1/runs', ex.runs);
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(`${server.url}/api/v1/health`);  // same origin: the canvases stay readable
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

// The coloured blobs of an image (a URL), found in the page: [{x, y, n}];
// its pixels stay in the page under key, for differing().
function blobsOf(src, key) {
  return page.evaluate(async ([src, key]) => {
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
    (window.kartePixels ||= {})[key] = d;
    return { key, w, h, blobs: out, cores };
  }, [src, key]);
}

function dataUrl(buf, type) {
  return `data:${type};base64,${buf.toString('base64')}`;
}

// The share of pixels whose colour differs clearly (> 96 in a channel),
// counted in the page (the pixels never cross to node).
function differing(ka, kb) {
  return page.evaluate(([ka, kb]) => {
    const a = window.kartePixels[ka], b = window.kartePixels[kb];
    let n = 0;
    for (let i = 0; i < a.length; i += 4)
      if (Math.abs(a[i] - b[i]) > 96 || Math.abs(a[i + 1] - b[i + 1]) > 96 || Math.abs(a[i + 2] - b[i + 2]) > 96) n++;
    return n / (a.length / 4);
  }, [ka, kb]);
}

// Every marker of want has a core in got within TOL px, and the images
// agree but for at most maxDiff of their pixels (text antialiasing: poppler
// hints fonts otherwise than Cairo and Chromium do).
async function compare(name, what, want, got, maxDiff) {
  assert.equal(got.w, want.w, `${name}: ${what} width`);
  assert.equal(got.h, want.h, `${name}: ${what} height`);
  const diff = await differing(want.key, got.key);
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
    const ref = await blobsOf(dataUrl(png, 'image/png'), 'png');
    const inSvg = await blobsOf(dataUrl(svg, 'image/svg+xml'), 'svg');
    const inPdf = await blobsOf(dataUrl(readFileSync(path.join(work, `${name}.png`)), 'image/png'), 'pdf');
    const ws = await compare(name, 'SVG', ref, inSvg, 0.01), wp = await compare(name, 'PDF', ref, inPdf, 0.04);
    if (MARKERS.has(name))
      assert.ok(ref.blobs.length >= 3, `${name}: the PNG shows its markers (${ref.blobs.length} found)`);
    console.log(`${name}: ${ref.blobs.length} markers; worst distance SVG ${ws.worst.toFixed(2)} px, ` +
      `PDF ${wp.worst.toFixed(2)} px; pixels differing SVG ${(ws.diff * 100).toFixed(2)} %, PDF ${(wp.diff * 100).toFixed(2)} %`);
  });
}
