import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync'] });
const pg = await b.newPage({ viewport: { width: 1300, height: 900 } });
const base = 'http://127.0.0.1:8099';
const pages = [['sp2', '/series?system=SP2&application=md'], ['cmp', '/compare?series=SP2:md&series=T3E:md'],
  ['kmg', '/series?system=K&application=mg'], ['stencil', '/series?system=Stencil&application=jacobi'],
  ['scorep', '/series?system=Score-P&application=mm'], ['methods', '/methods'], ['home', '/']];
for (const [n, u] of pages) {
  await pg.goto(base + u); await pg.waitForTimeout(2500);
  await pg.screenshot({ path: `/tmp/shots/${n}.png`, fullPage: true });
}
await b.close();
