// Renders media/icon.png (128x128, the extension's marketplace icon) from the SVG below with
// headless chromium: a rollout forking from the stable version into two revisions.
//   node scripts/start/make-icon.mjs
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">
  <defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ef7b4d"/><stop offset="1" stop-color="#c2410c"/></linearGradient></defs>
  <rect x="4" y="4" width="120" height="120" rx="26" fill="url(#bg)"/>
  <g fill="none" stroke="#fff" stroke-width="8" stroke-linecap="round">
    <path d="M36 64h22"/><path d="M58 64c14 0 16-26 34-26"/><path d="M58 64c14 0 16 26 34 26"/>
  </g>
  <circle cx="28" cy="64" r="11" fill="#fff"/>
  <circle cx="98" cy="38" r="9" fill="#fff"/><circle cx="98" cy="90" r="9" fill="#ffd7c2" stroke="#fff" stroke-width="4"/>
</svg>`;

const profile = mkdtempSync(join(tmpdir(), 'rollouts-icon-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 128, height: 128 },
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: join(ROOT, 'media', 'icon.png'), omitBackground: true });
  console.log('media/icon.png written');
} finally {
  await ctx.close();
  rmSync(profile, { recursive: true, force: true });
}
