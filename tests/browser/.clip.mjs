import { chromium } from 'playwright-core';
const [,, url, y, h, out] = process.argv;
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync'] });
const pg = await b.newPage({ viewport: { width: 1300, height: 900 } });
await pg.goto('http://127.0.0.1:8099' + url); await pg.waitForTimeout(2500);
await pg.screenshot({ path: out, fullPage: true, clip: { x: 0, y: +y, width: 1300, height: +h } });
await b.close();
