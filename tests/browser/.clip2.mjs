import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync'] });
const pg = await b.newPage({ viewport: { width: 1300, height: 900 }, deviceScaleFactor: 2 });
await pg.goto('http://127.0.0.1:8099/series?system=Score-P&application=mm'); await pg.waitForTimeout(2500);
const t = await pg.locator('button.toggle').first();
await t.screenshot({ path: '/tmp/shots/btn.png' });
console.log(await t.evaluate(e => [e.textContent, getComputedStyle(e).fontFamily, getComputedStyle(e).fontSize, getComputedStyle(e).width]));
await b.close();
