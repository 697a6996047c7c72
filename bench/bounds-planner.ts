// The budgets of issue 27 for the simulator, the condition evaluator and lint, as figures that
// bench/bounds.ts prints with the local cluster's (npm run bench:bounds). Runnable on its own too:
//   node --import tsx bench/bounds-planner.ts [--only SUBSTRING]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type * as Analysis from '../src/cluster/analysis';
import type * as Service from '../src/server/service';
import type { Bound } from './bounds';

const root = resolve(__dirname, '..');

/**
 * `entry` bundled by esbuild as scripts/build.mjs bundles it (and loaded): the figures are those of
 * the code that ships, not of tsx's on-the-fly transform (which wraps every closure it makes).
 */
function bundled<T>(entry: string): T {
  const dir = mkdtempSync(join(tmpdir(), 'bounds-bundle-'));
  try {
    const out = join(dir, 'bundle.js');
    buildSync({ entryPoints: [join(root, entry)], outfile: out, bundle: true, platform: 'node', format: 'cjs', logLevel: 'warning' });
    // A bundle written a moment ago: only require() can load it by path into this CommonJS run.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(out) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rolloutYaml = (name: string, replicas: number, extra = '') => `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: "x:1"}]}
  strategy:
    canary:
      canaryService: c
      stableService: s
      steps: [{setWeight: 10}, {pause: {duration: 1m}}, {setWeight: 50}, {pause: {}}, {setWeight: 90}]
${extra}`;

// ---------- simulate of a billion replicas, in a process of its own (its peak RSS is the figure) ----------

interface SimulateFigures {
  ms: number;
  peakMb: number;
  outcome: string;
}

let simulated: SimulateFigures | undefined;

/** Bundles the planner (as the CLI bundles it) and simulates a billion replicas in a fresh node process. */
function simulateBillion(): SimulateFigures {
  if (simulated) return simulated;
  const dir = mkdtempSync(join(tmpdir(), 'bounds-simulate-'));
  try {
    buildSync({
      entryPoints: [join(root, 'src/planner/index.ts')],
      outfile: join(dir, 'planner.js'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      logLevel: 'warning',
    });
    const rollout = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'huge' },
      spec: {
        replicas: 1_000_000_000,
        selector: { matchLabels: { app: 'a' } },
        template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } },
        strategy: {
          canary: { steps: [{ setWeight: 10 }, { pause: { duration: '1m' } }, { setWeight: 50 }, { pause: {} }, { setWeight: 90 }] },
        },
      },
    };
    writeFileSync(join(dir, 'rollout.json'), JSON.stringify(rollout));
    writeFileSync(
      join(dir, 'child.js'),
      `const { simulate } = require('./planner.js');
const rollout = JSON.parse(require('fs').readFileSync(__dirname + '/rollout.json', 'utf8'));
const t = performance.now();
const result = simulate(rollout);
const ms = performance.now() - t;
const peak = Number(/^VmHWM:\\s+(\\d+) kB/m.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
console.log(JSON.stringify({ ms, peakMb: peak, outcome: result.outcome }));`,
    );
    const run = spawnSync(process.execPath, [join(dir, 'child.js')], { encoding: 'utf8', timeout: 120_000 });
    if (run.status !== 0) throw new Error(`the simulation process ended with ${run.status ?? run.signal}: ${run.stderr.slice(0, 300)}`);
    simulated = JSON.parse(run.stdout) as SimulateFigures;
    if (simulated.outcome !== 'promoted') throw new Error(`the simulation ended ${simulated.outcome}, not promoted`);
    return simulated;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------- the worst condition evaluations we could craft ----------

const big = Array.from({ length: 400_000 }, (_, i) => i);
/** Each stops with an answer or a budget error; the figure is the slowest. */
const CONDITIONS: [string, unknown][] = [
  ['result matches "^(a+)+$"', `${'a'.repeat(500_000)}!`],
  ['result matches "(a|aa|aaa|aaaa|b|bb|bbb|c?c?c?c?c?c?c?c?c?c?){2,}x"', 'ab'.repeat(200_000)],
  ['result matches "[[:alpha:]]{1,1000}[[:digit:]]{1,1000}z"', 'a1'.repeat(200_000)],
  ['len(map(0..100000, {0..100000})) > 0', null],
  ['any(0..99999, {any(0..99999, {# < 0})})', null],
  ['len(uniq(result)) > 0', big],
  ['len(sort(result, "desc")) > 0 && len(sortBy(result, -#)) > 0', big],
  ['result == result && result != concat(result, [1])', big],
  ['len(toJSON(result)) > 0', big],
  ['len(reduce(0..99999, #acc + "xxxxxxxxxx", "")) > 0', null],
  ['len(repeat(repeat("ab", 1000), 1000)) > 0', null],
  ['len(join(map(0..99999, {string(#)}), ",")) > 0', null],
  ['len(flatten(map(0..999, {0..999}))) > 0', null],
  ['len(groupBy(result, # % 1000)) > 0', big],
  ['len(split(replace(result, "a", "aaaaaaaaaa"), "")) > 0', 'a'.repeat(500_000)],
];

let worstCondition = '';

function worstEvaluation(): number {
  const { evaluateCondition, ExpressionError } = bundled<typeof Analysis>('src/cluster/analysis/expression.ts');
  let worst = 0;
  for (const [text, result] of CONDITIONS) {
    const t = performance.now();
    try {
      evaluateCondition(text, result);
    } catch (e) {
      if (!(e instanceof ExpressionError)) throw e;
    }
    const ms = performance.now() - t;
    if (ms > worst) {
      worst = ms;
      worstCondition = text;
    }
  }
  return worst;
}

// ---------- lint of 10 MB files of several shapes ----------

const TEN_MB = 10 * 1024 * 1024;

function fill(unit: (i: number) => string, separator: string): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < TEN_MB; i++) {
    const u = unit(i);
    parts.push(u);
    size += u.length + separator.length;
  }
  return parts.join(separator);
}

const SHAPES: Record<string, () => string> = {
  'one huge value': () => rolloutYaml('huge', 3).replace('image: "x:1"', `image: "${'x'.repeat(TEN_MB)}"`),
  'one huge bad value': () => rolloutYaml('huge', 3).replace('duration: 1m', `duration: "${'9'.repeat(TEN_MB)}x"`),
  'many Rollouts': () => fill((i) => rolloutYaml(`r${i}`, 3), '---\n'),
  'many small documents': () => fill((i) => `a: ${i}`, '\n---\n'),
  'deep nesting': () => `${rolloutYaml('deep', 3)}  extra: ${'['.repeat(TEN_MB / 2)}${']'.repeat(TEN_MB / 2)}\n`,
  'deep block nesting': () =>
    `${rolloutYaml('deep', 3)}  extra:\n${Array.from({ length: 3000 }, (_, i) => `${' '.repeat(4 + i)}k:`).join('\n')}\n`,
  'a long list': () => rolloutYaml('list', 3).replace('steps: [', `steps: [${'{setWeight: 1}, '.repeat(TEN_MB / 16)}`),
  'lone CR line endings': () => fill((i) => rolloutYaml(`r${i}`, 3), '---\n').replace(/\n/g, '\r'),
};

/** Lint as the editor does it (the same service `rollouts lint`'s rules come from): parse, validate, outline. */
let languageService: typeof Service | undefined;

function lintMs(text: string): number {
  languageService ??= bundled<typeof Service>('src/server/service.ts');
  const t = performance.now();
  const cpu = process.cpuUsage();
  const service = languageService.createLanguageService();
  const doc = TextDocument.create('file:///bench/file.yaml', 'yaml', 1, text);
  service.validate(doc);
  service.symbols(doc);
  const ms = performance.now() - t;
  // On a busy machine the time waits for a core: the CPU time (this process's, its collector's threads included) shows the work.
  const used = process.cpuUsage(cpu);
  console.log(`     (CPU time ${((used.user + used.system) / 1000).toFixed(0)} ms)`);
  return ms;
}

export const plannerBounds: Bound[] = [
  { name: 'simulate: a billion replicas, time', unit: 'ms', limit: 2000, measure: async () => simulateBillion().ms },
  { name: 'simulate: a billion replicas, peak RSS of its process', unit: 'MB', limit: 200, measure: async () => simulateBillion().peakMb },
  {
    name: 'conditions: the slowest of the crafted evaluations',
    unit: 'ms',
    limit: 100,
    measure: async () => {
      const ms = worstEvaluation();
      console.log(`     (slowest: ${worstCondition})`);
      return ms;
    },
  },
  ...Object.entries(SHAPES).map(
    ([shape, make]): Bound => ({
      name: `lint of a 10 MB file: ${shape}`,
      unit: 'ms',
      limit: 10_000,
      measure: async () => lintMs(make()),
    }),
  ),
];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
  let over = 0;
  for (const b of plannerBounds.filter((x) => !only || x.name.includes(only))) {
    try {
      const figure = await b.measure();
      const ok = figure <= b.limit;
      if (!ok) over++;
      console.log(`${ok ? 'ok  ' : 'OVER'} ${b.name}: ${figure.toFixed(1)} ${b.unit} (limit ${b.limit} ${b.unit})`);
    } catch (e) {
      over++;
      console.log(`FAIL ${b.name}: ${(e as Error).message} (limit ${b.limit} ${b.unit})`);
    }
  }
  process.exitCode = over ? 1 : 0;
}

if (require.main === module) void main();
