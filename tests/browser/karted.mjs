// Shared by the browser tests: a real karted on a free loopback port with a
// temporary database (removed when it stops), and Debian's Chromium as the
// brief asks to start it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// { proc, url, token, stop() }: stop() ends karted and removes its folder.
export function startKarted(binary) {
  const dir = mkdtempSync(path.join(tmpdir(), 'karte-ui-'));
  const proc = spawn(binary, ['serve', '--listen', '127.0.0.1:0', '--db', path.join(dir, 'k.db'),
    '--static', path.join(root, 'static')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => new Promise((resolve) => {
    const done = () => { rmSync(dir, { recursive: true, force: true }); resolve(); };
    if (proc.exitCode !== null) return done();
    proc.on('exit', done);
    proc.kill('SIGTERM');
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('karted did not start')), 10000);
    proc.stdout.on('data', (d) => {
      buf += d;
      const t = buf.match(/stored hashed\): (\S+)/);
      const u = buf.match(/serving (http:\/\/\S+)\/ /);
      if (t && u) { clearTimeout(timer); resolve({ proc, url: u[1], token: t[1], stop }); }
    });
    proc.on('exit', (c) => { if (c) reject(new Error(`karted exited ${c}`)); });
  });
}

export function launchChromium() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-quic'] });
}
