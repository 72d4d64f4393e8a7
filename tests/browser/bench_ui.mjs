// make bench: how soon the UI shows a series' first chart in headless
// Chromium, for a series of 10^5 runs and one of 10^4, against the 8 runs
// of Orii's SP2 example in the same browser and karted (the baseline).
// First chart: from the navigation's start to the moment the tau-chi
// picture is on the page (the figure's data-first-drawn). Each page is
// opened after the one before has finished its requests; median of 5.
// Also: an SVG and a PNG of 10^4 markers put on a blank page, the reason
// the UI asks for a PNG beyond 5000 runs.
//
// usage: KARTED=build/karted node tests/browser/bench_ui.mjs
import path from 'node:path';
import { launchChromium, root, startKarted } from './karted.mjs';

const karted = path.resolve(root, process.env.KARTED || 'build/karted');
const ROUNDS = 5;

function grid(system, np, nn, growth) {
  const out = [];
  for (let i = 0; i < nn; i++) {
    for (let j = 1; j <= np; j++) {
      const n = 1e4 * growth ** i, chi = 0.02 * Math.sqrt(j) * (1 + 0.05 * ((i * 7 + j * 13) % 10) / 10);
      out.push({ system, application: 'md', p: j, n, tau: n * 1e-5 / j + chi, chi });
    }
  }
  return out;
}

async function post(url, token, runs) {
  for (let i = 0; i < runs.length; i += 20000) {
    const body = runs.slice(i, i + 20000).map((r) => JSON.stringify(r)).join('\n') + '\n';
    const r = await fetch(`${url}/api/v1/runs`, { method: 'POST', body,
      headers: { 'Content-Type': 'application/x-ndjson', Authorization: `Bearer ${token}` } });
    if (r.status !== 201) throw new Error(`posting: ${r.status} ${await r.text()}`);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await startKarted(karted);
const browser = await launchChromium();
try {
  const { url, token } = server;
  const SP2 = [[10, 39200, 20, 0.552], [16, 39200, 16, 0.45], [24, 39200, 14, 0.334], [36, 39200, 15, 0.22],
    [10, 80000, 40, 0.62], [16, 80000, 32, 0.5], [24, 80000, 25, 0.4], [36, 80000, 28, 0.3]];
  await post(url, token, SP2.map(([p, n, tau, e]) => ({ system: 'SP2', application: 'md', p, n, tau, chi: (1 - e) * tau })));
  await post(url, token, grid('runs1e4', 100, 100, 1.08));
  await post(url, token, grid('runs1e5', 317, 316, 1.02).slice(0, 100000));
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const first = async (system) => {
    await page.goto(`${url}/series?system=${system}&application=md`);
    await page.waitForSelector('figure[data-kind="isoefficiency"]:is([data-first-drawn], [data-ready="error"])',
      { timeout: 60000 });
    // a chart that failed to load or to draw is not a time: the bench stops
    const t = await page.evaluate(() => {
      const fig = document.querySelector('figure[data-kind="isoefficiency"]'), img = fig.querySelector('img');
      if (!fig.dataset.firstDrawn || !img || !img.naturalWidth) throw new Error(`the chart was not drawn: ${fig.innerText}`);
      return Number(fig.dataset.firstDrawn);
    });
    await page.waitForSelector('#runs', { timeout: 120000 });	// the rest done before the next page
    await page.waitForFunction(() => !document.body.innerText.includes('Analysing…'), null, { timeout: 120000 });
    return t;
  };
  const times = { SP2: [], runs1e4: [], runs1e5: [] };
  await first('SP2');	// warm-up: fonts, caches
  for (let k = 0; k < ROUNDS; k++) for (const s of Object.keys(times)) times[s].push(await first(s));
  const base = median(times.SP2);
  console.log(`UI first chart, SP2 (8 runs, baseline): ${base} ms`);
  for (const [s, label] of [['runs1e4', '10^4 runs'], ['runs1e5', '10^5 runs']]) {
    const m = median(times[s]);
    console.log(`UI first chart, ${label}: ${m} ms (${(m / base).toFixed(2)}x the baseline; goal < 1000 ms for 10^5)`);
  }
  // The list pages at 10^4 series holding 10^6 runs (a karted of its own):
  // from the navigation's start to the table drawn and painted.
  const big = await startKarted(karted);
  try {
    const runs = [];
    for (let s = 0; s < 10000; s++) {
      for (let j = 0; j < 100; j++) {
        runs.push({ system: `sys${String(s % 100).padStart(2, '0')}`, application: `app${Math.floor(s / 100)}`,
          p: 1 << (j % 8), n: 1000 * (1 + Math.floor(j / 8)), tau: 10 / (1 << (j % 8)) + 0.01 * j, chi: 0.001 * j });
      }
      if (runs.length >= 100000) await post(big.url, big.token, runs.splice(0));
    }
    await post(big.url, big.token, runs);
    const paint = async (p, ready) => {
      await page.goto(`${big.url}${p}`);
      await page.waitForFunction((want) => document.getElementById('view').dataset.ready === want, ready,
        { timeout: 60000 });
      return page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(
        () => ok(Math.round(performance.now()))))));
    };
    for (const [p, what] of [['/', 'home page (10^4 series, 10^6 runs)'],
      ['/series?system=sys07&application=app42', 'a series page (100 of the 10^6 runs)'],
      ['/alerts', 'alerts page']]) {
      await paint(p, p);	// warm-up
      const ts = [];
      for (let k = 0; k < ROUNDS; k++) ts.push(await paint(p, p));
      const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
      console.log(`UI first paint, ${what}: ${median(ts)} ms (min ${Math.min(...ts)}, max ${Math.max(...ts)}; ` +
        `${nodes} DOM nodes; goal < 1000 ms)`);
    }
  } finally {
    await big.stop();
  }
  await page.goto(`${url}/api/v1/series`);
  for (const fmt of ['svg', 'png']) {
    const ts = [];
    for (let k = 0; k < ROUNDS; k++) {
      ts.push(await page.evaluate(async (f) => {
        const t0 = performance.now(), img = new Image();
        img.src = `/api/v1/reports/isoefficiency.${f}?system=runs1e4&application=md&width=1100&height=700&k=${Math.random()}`;
        await img.decode();	// rejects when the image fails to load or decode
        if (!img.naturalWidth) throw new Error(`${f}: nothing drawn`);
        document.body.append(img);
        await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
        img.remove();
        return Math.round(performance.now() - t0);
      }, fmt));
    }
    console.log(`tau-chi chart of 10^4 runs as ${fmt.toUpperCase()} on a page: ${median(ts)} ms`);
  }
} finally {
  await browser.close();
  await server.stop();
}
