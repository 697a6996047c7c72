// Driving VS Code (code-server) in Debian's chromium with playwright-core: one place for the
// launch options and the workbench gestures that the real-editor tests (run.mjs) and the
// `npm start` test (test/start/start.e2e.test.ts) both use. Types: browser.d.mts.
import { CHROMIUM } from './install.mjs';

export { CHROMIUM };

/** A headless chromium with its profile in PROFILE_DIR (the caller makes and removes it). */
export async function launchChromium(profileDir) {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 850 },
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
}

/** Runs the command-palette command TITLE on PAGE. */
export async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
}

/** Opens the workspace file NAME in the workbench on PAGE through Quick Open. */
export async function quickOpen(page, name) {
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
}

/** Widens the side bar by BY pixels, dragging its right edge, so that tree rows show in full. */
export async function widenSideBar(page, by) {
  const bar = await page.locator('.part.sidebar').first().boundingBox();
  if (!bar) return;
  const x = bar.x + bar.width + 1;
  await page.mouse.move(x, bar.y + 400);
  await page.mouse.down();
  await page.mouse.move(x + by, bar.y + 400, { steps: 8 });
  await page.mouse.up();
}
