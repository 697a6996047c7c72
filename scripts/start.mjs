#!/usr/bin/env node
// `npm start`: the product, working, on the embedded default. Installs what is missing, builds,
// starts the embedded local cluster with the demo rollouts and the embedded controller
// (scripts/start/demo-cluster.ts), and opens the extension in a real VS Code on a copy of demo/:
// a desktop `code` when one is on the PATH (an Extension Development Host window), otherwise
// code-server on 127.0.0.1 (its URL is printed). Ctrl-C stops everything it started.
//
//   node scripts/start.mjs [--code-server] [--exit-after-ready] [--cluster-only] [--kubeconfig PATH]
//     --code-server       use code-server even where a desktop `code` is on the PATH
//     --exit-after-ready  start everything, print where it runs, then stop it all and exit 0
//     --cluster-only      only the cluster and the controller (the F5 launch task uses this)
//     --kubeconfig PATH   write the local cluster's kubeconfig here (default: in the temp state)
// Every process it starts runs in its own process group, stopped as a group; the temp state
// (kubeconfig, workspace copy, user data) is removed on exit, so a second run starts fresh.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { codeServerArgs, freePort, installedCopy, untilHealthy, writeUserSettings } from './vscode-e2e/code-server.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const known = new Set(['--code-server', '--exit-after-ready', '--cluster-only', '--kubeconfig', '--help', '-h']);
for (const [i, a] of args.entries()) {
  if (a.startsWith('-') && !known.has(a)) {
    console.error(`npm start: unknown option "${a}" (known: ${[...known].join(' ')})`);
    process.exit(2);
  }
  if (a === '--kubeconfig' && (args[i + 1] === undefined || args[i + 1].startsWith('-'))) {
    console.error('npm start: --kubeconfig needs a file path');
    process.exit(2);
  }
}
if (flag('--help') || flag('-h')) {
  console.log(
    readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('\n')
      .slice(1, 14)
      .map((l) => l.replace(/^\/\/ ?/, ''))
      .join('\n'),
  );
  process.exit(0);
}

const t0 = Date.now();
const say = (line) => console.log(`npm start: ${line}`);
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

// ---- what we started, stopped as process groups --------------------------------------------------
/** Process groups we started (their leaders' pids), and the temp state to remove. */
const groups = new Map();
let state;
let stopping;

const alive = (pgid) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Pids whose command line holds MARKER (our own temp dir): a desktop VS Code may detach its main process. */
function pidsUsing(marker) {
  const r = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return (r.stdout ?? '')
    .split('\n')
    .filter((l) => l.includes(marker))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((pid) => pid !== process.pid && Number.isInteger(pid));
}

/** SIGTERM to every group, SIGKILL to any still there after 5 s, then the temp state goes. */
async function stopAll() {
  stopping ??= (async () => {
    if (state) {
      for (const pid of pidsUsing(join(state, 'code-ud'))) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          /* gone meanwhile */
        }
      }
    }
    for (const [pgid] of groups) {
      try {
        process.kill(-pgid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    const deadline = Date.now() + 5000;
    while ([...groups.keys()].some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const [pgid, name] of groups) {
      if (alive(pgid)) {
        say(`${name} did not stop within 5 s; killing it`);
        try {
          process.kill(-pgid, 'SIGKILL');
        } catch {
          /* gone meanwhile */
        }
      }
    }
    groups.clear();
    if (state) rmSync(state, { recursive: true, force: true });
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.log('');
    say(`${signal}: stopping everything it started`);
    void stopAll().then(() => {
      say('stopped; nothing left running');
      process.exit(0);
    });
  });
}

/** Spawns NAME in its own process group (so helpers it spawns go with it). */
function startGroup(name, cmd, argv, opts = {}) {
  const child = spawn(cmd, argv, { detached: true, ...opts });
  groups.set(child.pid, name);
  child.on('exit', () => {
    if (!stopping && groups.has(child.pid)) {
      say(`${name} exited (${child.exitCode ?? child.signalCode}); stopping the rest`);
      void stopAll().then(() => process.exit(1));
    }
  });
  return child;
}

function runStep(what, cmd, argv, opts = {}) {
  const start = Date.now();
  say(`${what}...`);
  const r = spawnSync(cmd, argv, { stdio: 'inherit', cwd: ROOT, ...opts });
  if (r.status !== 0) {
    say(`${what} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
  say(`${what}: done in ${((Date.now() - start) / 1000).toFixed(1)} s`);
}

/** A desktop VS Code's `code` on the PATH (code-server's own `code-server` does not count). */
function desktopCode() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, 'code');
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

// ---- install and build ------------------------------------------------------------------------------
if (!existsSync(join(ROOT, 'node_modules'))) runStep('installing dependencies (npm ci)', 'npm', ['ci', '--no-audit', '--no-fund']);
runStep('building (npm run build)', 'npm', ['run', '-s', 'build']);

const clusterOnly = flag('--cluster-only');
const code = clusterOnly || flag('--code-server') ? undefined : desktopCode();
let tools;
if (!clusterOnly && !code) {
  tools = await import('./vscode-e2e/install.mjs');
  if (!existsSync(tools.csBin))
    say(
      'no desktop `code` on the PATH, so the extension opens in code-server: installing it once (node@24 and code-server from npm, about 4 minutes)',
    );
  try {
    tools.ensureTools((line) => say(line), { browser: false });
  } catch (e) {
    say(`cannot install code-server: ${e.message}`);
    process.exit(1);
  }
}

// ---- the cluster --------------------------------------------------------------------------------------
state = mkdtempSync(join(tmpdir(), 'rollouts-start-'));
const kubeconfig = resolve(option('--kubeconfig') ?? join(state, 'kubeconfig'));
mkdirSync(dirname(kubeconfig), { recursive: true });
say('starting the local cluster, applying demo/ and starting the embedded controller...');
const cluster = startGroup(
  'local cluster',
  process.execPath,
  ['--import', 'tsx', join(ROOT, 'scripts', 'start', 'demo-cluster.ts'), '--kubeconfig', kubeconfig],
  {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
const clusterLog = join(state, 'cluster.log');
const clusterErr = openSync(clusterLog, 'w');
cluster.stderr.on('data', (d) => writeFileSync(clusterErr, d));
let serverUrl;
await new Promise((res, rej) => {
  const lines = createInterface({ input: cluster.stdout });
  lines.on('line', (line) => {
    if (line.startsWith('server: ')) serverUrl = line.slice('server: '.length);
    if (line === 'ready') res();
    else say(`  ${line}`);
  });
  cluster.on('exit', () =>
    rej(new Error(`the local cluster stopped before it was ready:\n${readFileSync(clusterLog, 'utf8').split('\n').slice(-5).join('\n')}`)),
  );
}).catch(async (e) => {
  say(e.message);
  await stopAll();
  process.exit(1);
});

// ---- the editor -----------------------------------------------------------------------------------------
const ws = join(state, 'workspace');
let editorLine;
if (!clusterOnly) {
  cpSync(join(ROOT, 'demo'), ws, { recursive: true });
  // The extension finds the local cluster through its setting (and KUBECONFIG, for its terminals).
  mkdirSync(join(ws, '.vscode'), { recursive: true });
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'rollouts.kubeconfig': kubeconfig }, null, 2));
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  if (code) {
    // A user-data-dir of its own makes a separate VS Code instance that we own and stop with its group.
    writeUserSettings(join(state, 'code-ud'));
    startGroup(
      'VS Code',
      code,
      [
        '--wait',
        '--new-window',
        '--user-data-dir',
        join(state, 'code-ud'),
        '--extensions-dir',
        join(state, 'code-exts'),
        `--extensionDevelopmentPath=${ROOT}`,
        ws,
      ],
      { stdio: 'ignore', env },
    );
    editorLine = `VS Code         an Extension Development Host window (${code}) on ${ws}`;
  } else {
    const port = await freePort();
    writeUserSettings(join(state, 'cs-ud'));
    installedCopy(join(state, 'cs-exts'));
    const csLog = join(state, 'code-server.log');
    const out = openSync(csLog, 'w');
    const argv = codeServerArgs(port, join(state, 'cs-ud'), join(state, 'cs-exts'));
    const cs = startGroup('code-server', tools.csBin, argv, {
      stdio: ['ignore', out, out],
      env: { ...env, PATH: `${join(tools.nodeDir, 'bin')}${delimiter}${process.env.PATH}` },
    });
    say(`starting code-server on 127.0.0.1:${port}...`);
    // When it exits instead, its exit handler reports and stops the rest.
    if (!(await untilHealthy(port, cs)) && cs.exitCode === null) {
      say(`code-server did not answer within 60 s; its log: ${csLog}`);
      await stopAll();
      process.exit(1);
    }
    editorLine = `VS Code         http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}   <- open this in a browser (code-server ${tools.CODE_SERVER_VERSION})`;
  }
}

// ---- what runs where ---------------------------------------------------------------------------------------
console.log(`
Running (ready in ${elapsed()}):
  local cluster   ${serverUrl}   kubeconfig: ${kubeconfig}
                  namespace rollouts-demo: canary-demo (paused at a step), bluegreen-demo (waiting
                  for promotion), steady-demo (healthy), broken-demo (degraded)
  controller      the embedded controller, in the local cluster's process${editorLine ? `\n  ${editorLine}` : ''}${clusterOnly ? '' : `\n  workspace       ${ws} (a copy of demo/; demo/mistakes.yaml shows the diagnostics)`}
  process groups  ${[...groups].map(([pgid, name]) => `${name} ${pgid}`).join(', ')}

Try: kubectl --kubeconfig ${kubeconfig} get rollouts -n rollouts-demo
     node dist/cli.js get canary-demo -n rollouts-demo --kubeconfig ${kubeconfig}
Press Ctrl-C to stop everything.`);
console.log('ready');

if (flag('--exit-after-ready')) {
  await stopAll();
  say('stopped; nothing left running');
  process.exit(0);
}
