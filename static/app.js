// karte's browser UI: plain ES modules, no build step. Every view is a URL
// (/, /series?..., /compare?..., /runs/ID, /upload, /methods, /history,
// /alerts) that karted answers with index.html; this module routes to the
// page's module (js/pages/), which draws the view from the API. What
// every page shares is in js/lib.js, the charts in js/chart.js.

import { el, go, message, onNavigate, view } from './js/lib.js';
import { alertsPage } from './js/pages/alerts.js';
import { comparePage } from './js/pages/compare.js';
import { historyPage } from './js/pages/history.js';
import { homePage } from './js/pages/home.js';
import { methodsPage } from './js/pages/methods.js';
import { runPage } from './js/pages/run.js';
import { seriesPage } from './js/pages/series.js';
import { uploadPage } from './js/pages/upload.js';

async function route() {
  const url = new URL(location.href);
  let parts;
  view.replaceChildren(el('p', { class: 'muted' }, 'Loading…'));
  try {
    if (url.pathname === '/' || url.pathname === '/index.html') parts = await homePage();
    else if (url.pathname === '/series') parts = await seriesPage(url.searchParams);
    else if (url.pathname === '/compare') parts = await comparePage(url.searchParams);
    else if (url.pathname.startsWith('/runs/')) parts = await runPage(url.pathname.slice(6));
    else if (url.pathname === '/upload') parts = await uploadPage();
    else if (url.pathname === '/methods') parts = await methodsPage();
    else if (url.pathname === '/history') parts = await historyPage(url.searchParams);
    else if (url.pathname === '/alerts') parts = await alertsPage(url.searchParams);
    else parts = [el('h1', {}, 'Not found'), message('error', `There is no page ${url.pathname}.`)];
  } catch (e) {
    parts = [message('error', `Cannot load this page: ${e.message}`)];
  }
  view.replaceChildren(...parts);
  view.dataset.ready = url.pathname + url.search;
}

document.addEventListener('click', (ev) => {
  const a = ev.target.closest('a');
  if (!a || a.target || a.hasAttribute('download') || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
  ev.preventDefault();
  go(url.pathname + url.search);
});
onNavigate(route);
window.addEventListener('popstate', route);
route();
