// Starting code-server the same way for `npm start` (scripts/start.mjs) and the real-editor tests
// (run.mjs): a free port, our user settings, the extension as its package holds it, the server's
// switches, and the wait for /healthz. Each caller spawns and stops the process its own way.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const freePort = () =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

/** User settings for the workbench: no welcome page, no chat side bar (screenshots show our parts). */
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'workbench.tips.enabled': false,
};

/** Writes our user settings into the user-data-dir UD (code-server's or a desktop VS Code's). */
export function writeUserSettings(ud) {
  mkdirSync(join(ud, 'User'), { recursive: true });
  writeFileSync(join(ud, 'User', 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));
}

/** The extension as its package holds it (package.json and its strings, dist bundles, icons), in EXTSDIR. */
export function installedCopy(extsDir) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const dir = join(extsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  mkdirSync(dir, { recursive: true });
  for (const f of ['package.json', 'package.nls.json']) cpSync(join(ROOT, f), join(dir, f));
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') });
  for (const d of ['media']) if (existsSync(join(ROOT, d))) cpSync(join(ROOT, d), join(dir, d), { recursive: true });
  return dir;
}

/** code-server's switches: on 127.0.0.1 only, no auth, its own dirs, nothing phoning home. */
export const codeServerArgs = (port, ud, extsDir) => [
  '--bind-addr',
  `127.0.0.1:${port}`,
  '--auth',
  'none',
  '--user-data-dir',
  ud,
  '--extensions-dir',
  extsDir,
  '--disable-telemetry',
  '--disable-update-check',
  '--disable-workspace-trust',
  '--disable-getting-started-override',
];

/** Resolves true once the server on PORT answers /healthz, false if CHILD exits or WITHIN ms pass first. */
export async function untilHealthy(port, child, within = 60_000) {
  const deadline = Date.now() + within;
  for (;;) {
    if (child.exitCode !== null) return false;
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return true;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}
