/**
 * `rollouts simulate FILE`: what each Rollout in FILE does when its pod template is updated,
 * as a table per Rollout (or the planner's frames as JSON). The file is read, checked with the
 * same validation the editor uses, and every Rollout is simulated by the planner.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PodTemplateSpec, Rollout, Service, SimulateOptions, SimulationFrame, SimulationResult, WhatIfChoice } from '../../planner';
import { isCompletedPhase, simulate, stepProgress, stepText } from '../../planner';
import type { ParsedFile } from '../../schema';
import { findingRange, lineIndex, parseFile, readableDocumentValue, rolloutSpecErrors } from '../../schema';
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import { parseOptions, targetOptions, type OptionTable } from '../args';
import { readError } from '../files';
import { formatTable } from '../table';
import { cluster } from '../lazy-cluster';

const usage = `Usage: rollouts simulate FILE [options]
       rollouts simulate --from-cluster NAME [-n NS] [--promote|--promote-full|--abort] [options]

Simulates every Rollout in FILE from a steady state through an update of its pod
template to full promotion (or an abort), and prints what happens when: the step,
canary and stable ReplicaSets (desired/available pods), the traffic weight, which
ReplicaSet each Service selects, and what the rollout waits for.

With --from-cluster, the same timeline starts from a live rollout as the cluster
shows it now (its step, pods, analysis results so far, pause timers): what happens
next if you do nothing (a timed pause expires, running analysis ends), or promote,
promote fully or abort now. It only reads the cluster. TIME counts from now; it
stops at the next point that needs a person (unless --auto-promote).

Options:
  --format table|json     output (default table); json prints the frames
  --pod-ready-seconds S   seconds from a pod's creation to ready (default 10)
  --no-auto-promote       stop at the first point that needs a person to promote
  --promote-after S       seconds a person takes to promote (default 0)
  --abort-at-step N       abort once canary step N is reached (steps are numbered
                          from 0, as the STEP column's N/M and Argo number them)
  --analysis-result R     how analysis runs end: Successful (default), Failed,
                          Inconclusive or Error
  --analysis-seconds S    how long each analysis run takes, an experiment's too (default
                          30); an experiment itself lasts its duration once its pods are up
  --max-frames N          stop after N frames (default 500)

From the cluster:
  --from-cluster NAME     the live rollout NAME instead of a FILE
  --promote               what happens if you promote now
  --promote-full          ... if you promote fully now (skipping the remaining steps)
  --abort                 ... if you abort now
                          (none of the three: what happens if you do nothing)
  --auto-promote          promote at every later point that needs a person too
  -n, --namespace NS      the rollout's namespace (default: the context's)
  --context C             kubeconfig context (default: the current one)
  --kubeconfig F          kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)

Exit codes: 0 simulated; 2 the file cannot be read, is not YAML, has no Rollout,
or a Rollout is invalid (each problem is printed with its line and field); with
--from-cluster, 1 the cluster cannot be read, the rollout is not there, or the
choice cannot be made now (the reason is printed).
`;

/** `--from-cluster`: which live rollout, where, and what a person does now. */
export interface FromCluster {
  name: string;
  namespace?: string;
  context?: string;
  kubeconfig?: string;
  choice: WhatIfChoice;
}

interface SimulateArgs {
  /** Absent with --from-cluster. */
  file?: string;
  fromCluster?: FromCluster;
  format: 'table' | 'json';
  options: SimulateOptions;
}

const CHOICE_FLAGS: Record<'promote' | 'promote-full' | 'abort', WhatIfChoice> = {
  promote: 'promote',
  'promote-full': 'promoteFull',
  abort: 'abort',
};

function numberArg(flag: string, v: string, integer: boolean): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} must be ${integer ? 'a whole number' : 'a number'}, 0 or more, got "${v}"`);
  }
  return n;
}

const simulateOptions = {
  format: { type: 'string' },
  'pod-ready-seconds': { type: 'string' },
  'no-auto-promote': { type: 'boolean' },
  'promote-after': { type: 'string' },
  'abort-at-step': { type: 'string' },
  'analysis-result': { type: 'string' },
  'analysis-seconds': { type: 'string' },
  'max-frames': { type: 'string' },
  // What-if from the live state.
  'from-cluster': { type: 'string' },
  promote: { type: 'boolean' },
  'promote-full': { type: 'boolean' },
  abort: { type: 'boolean' },
  'auto-promote': { type: 'boolean' },
  ...targetOptions,
} as const satisfies OptionTable;

export function parseSimulateArgs(args: string[]): SimulateArgs {
  const { options: o, positionals } = parseOptions(args, simulateOptions);
  const format = o.format ?? 'table';
  if (format !== 'table' && format !== 'json') throw new UsageError(`--format must be "table" or "json", got "${format}"`);
  const options: SimulateOptions = {};
  if (o['pod-ready-seconds'] !== undefined) options.podReadySeconds = numberArg('--pod-ready-seconds', o['pod-ready-seconds'], false);
  if (o['no-auto-promote']) options.autoPromote = false;
  if (o['promote-after'] !== undefined) options.promoteAfterSeconds = numberArg('--promote-after', o['promote-after'], false);
  // Steps are numbered from 0, as the STEP column (and Argo's currentStepIndex) counts them.
  if (o['abort-at-step'] !== undefined) options.abortAtStep = numberArg('--abort-at-step', o['abort-at-step'], true);
  if (o['analysis-result'] !== undefined) {
    const v = o['analysis-result'];
    const allowed = ['Successful', 'Failed', 'Inconclusive', 'Error'] as const;
    const match = allowed.find((a) => a.toLowerCase() === v.toLowerCase());
    if (!match) throw new UsageError(`--analysis-result must be one of ${allowed.join(', ')}, got "${v}"`);
    options.analysisResult = match;
  }
  if (o['analysis-seconds'] !== undefined) options.analysisSeconds = numberArg('--analysis-seconds', o['analysis-seconds'], false);
  if (o['max-frames'] !== undefined) {
    const n = numberArg('--max-frames', o['max-frames'], true);
    if (n < 1) throw new UsageError('--max-frames must be at least 1');
    options.maxFrames = n;
  }
  const [file, second] = positionals;
  if (second !== undefined) throw new UsageError(`one FILE only, got "${file}" and "${second}"`);
  const choices = (['promote', 'promote-full', 'abort'] as const).filter((c) => o[c]);
  if (choices.length > 1) throw new UsageError('choose one of --promote, --promote-full and --abort, got two');
  if (o['auto-promote']) options.autoPromote = true;
  if (o['from-cluster'] !== undefined) {
    if (file !== undefined) throw new UsageError(`give a FILE or --from-cluster NAME, not both (got "${file}")`);
    const fromCluster: FromCluster = { name: o['from-cluster'], choice: choices[0] ? CHOICE_FLAGS[choices[0]] : 'wait' };
    if (o.namespace !== undefined) fromCluster.namespace = o.namespace;
    if (o.context !== undefined) fromCluster.context = o.context;
    if (o.kubeconfig !== undefined) fromCluster.kubeconfig = o.kubeconfig;
    return { fromCluster, format, options };
  }
  const liveOnly = [
    ...choices.map((c) => `--${c}`),
    ...(o['auto-promote'] ? ['--auto-promote'] : []),
    ...(o.namespace !== undefined ? ['-n/--namespace'] : []),
    ...(o.context !== undefined ? ['--context'] : []),
    ...(o.kubeconfig !== undefined ? ['--kubeconfig'] : []),
  ];
  if (liveOnly.length > 0) throw new UsageError(`${liveOnly[0]} goes with --from-cluster NAME`);
  if (file === undefined) throw new UsageError('FILE is missing');
  return { file, format, options };
}

interface LoadedRollout {
  rollout: Rollout;
  docIndex: number;
  /** Something the reader should know about this simulation (printed on stderr). */
  note?: string;
}

/** Rollouts and Services of a parsed file, and the problems that stop a simulation (with line:column). */
export function rolloutsInFile(
  parsed: ParsedFile,
  fileLabel: string,
): { rollouts: LoadedRollout[]; services: Service[]; problems: string[] } {
  const at = lineIndex(parsed.text);
  const where = (offset: number) => {
    const lc = at(offset);
    return `${fileLabel}:${lc.line + 1}:${lc.column + 1}`;
  };
  const problems: string[] = [];
  for (const f of parsed.syntaxErrors) {
    if (f.severity !== 'error') continue;
    problems.push(`${where(findingRange(parsed, f)[0])}: YAML error: ${f.message}`);
  }
  if (parsed.templated) problems.push(`${fileLabel}: the file holds template directives ({{ ... }}); render it first (e.g. helm template)`);
  if (problems.length > 0) return { rollouts: [], services: [], problems };

  const rollouts: LoadedRollout[] = [];
  const services: Service[] = [];
  const deployments: { metadata?: { name?: string }; spec?: { template?: PodTemplateSpec } }[] = [];
  for (const pd of parsed.docs) {
    if (pd.kind === 'Service' || pd.kind === 'Deployment') {
      const obj = readableDocumentValue(pd.doc);
      if (!obj || typeof obj !== 'object') continue;
      if (pd.kind === 'Service') services.push(obj as Service);
      else deployments.push(obj as (typeof deployments)[number]);
      continue;
    }
    if (!pd.isRollout) continue;
    // A spec Argo refuses (InvalidSpec) never runs: it is not simulated as if it did.
    const errors = rolloutSpecErrors(parsed, pd);
    if (errors.length > 0) {
      for (const e of errors)
        problems.push(
          `${fileLabel}:${e.start.line + 1}:${e.start.column + 1}: invalid Rollout: ${e.message}${e.path ? ` (${e.path})` : ''}`,
        );
      const name = (pd.doc.getIn(['metadata', 'name']) as unknown) ?? '';
      problems.push(
        `${fileLabel}: Rollout ${String(name)} is not simulated: Argo's controller would refuse it (condition InvalidSpec, phase Degraded) and do nothing with it until the spec is fixed`,
      );
      continue;
    }
    const rollout = readableDocumentValue(pd.doc);
    if (rollout && typeof rollout === 'object') rollouts.push({ rollout: rollout as Rollout, docIndex: pd.index });
  }
  for (const loaded of rollouts) {
    const ref = loaded.rollout.spec?.workloadRef;
    if (!ref) continue;
    // The pod template lives in the referenced Deployment; use it when the file has it.
    const deployment = ref.kind === 'Deployment' ? deployments.find((d) => d.metadata?.name === ref.name) : undefined;
    if (deployment?.spec?.template)
      loaded.rollout = { ...loaded.rollout, spec: { ...loaded.rollout.spec, template: deployment.spec.template } };
    else
      loaded.note = `Rollout ${loaded.rollout.metadata?.name ?? ''}: its pod template is in ${ref.kind ?? 'a workload'}/${ref.name ?? '?'} (workloadRef), which is not in this file; replica counts are simulated all the same`;
  }
  if (rollouts.length === 0 && problems.length === 0) {
    const kinds = parsed.docs.map((d) => d.kind).filter((k): k is string => !!k);
    problems.push(
      `${fileLabel}: no Rollout (apiVersion argoproj.io/v1alpha1, kind Rollout) in the file` +
        (kinds.length > 0 ? `; it has ${[...new Set(kinds)].join(', ')}` : ''),
    );
  }
  return { rollouts, services, problems };
}

function formatTime(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  if (m < 60) return `${m}m${String(s).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m${String(s).padStart(2, '0')}s`;
}

/** The STEP column: the counter as the kubectl plugin shows it (step index / steps) and the step at it. */
function stepCell(f: SimulationFrame, strategy: SimulationResult['strategy']): string {
  if (strategy === 'blueGreen') return f.paused ? `${f.phase} (${f.pauseReasons.join(', ') || 'spec.paused'})` : f.phase;
  if (f.step.count === 0) return 'no steps';
  return [stepProgress(f.step.index, f.step.count), f.step.current ? stepText(f.step.current) : ''].filter(Boolean).join(' ');
}

function servicesCell(f: SimulationFrame): string {
  return f.services
    .map((s) => {
      const rs = f.replicaSets.find((r) => r.name === s.replicaSet);
      return `${s.role}→${rs ? `rev${rs.revision}` : s.selects === null ? 'all' : '?'}`;
    })
    .join(' ');
}

function whatCell(f: SimulationFrame): string {
  const parts: string[] = [];
  if (f.action === 'promote') parts.push('PROMOTE');
  if (f.action === 'abort') parts.push('ABORT');
  if (f.action === 'needs-promote') parts.push('NEEDS PROMOTE');
  if (f.action === 'update') parts.push('UPDATE');
  // A running Experiment's pods are not in CANARY/STABLE: say how far its templates are.
  for (const ex of f.experiments ?? []) {
    if (isCompletedPhase(ex.phase) || ex.templates.length === 0) continue;
    parts.push(`experiment pods: ${ex.templates.map((t) => `${t.name} ${t.available}/${t.desired}`).join(', ')};`);
  }
  if (f.waitingFor.length > 0) parts.push(`waits: ${f.waitingFor.join('; ')}`);
  else if (f.paused) parts.push(`paused: ${f.pauseReasons.join(', ') || 'spec.paused'}`);
  else if (f.phase === 'Healthy') parts.push('healthy');
  return parts.join(' ');
}

const OUTCOME_TEXT: Record<SimulationResult['outcome'], string> = {
  promoted: 'fully promoted',
  aborted: 'aborted back to stable',
  'waiting-for-promote': 'waits for a person to promote',
  stuck: 'stopped: it cannot progress',
  'max-frames': 'stopped at the frame limit',
};

/** The readable table of one simulation. */
export function formatSimulationTable(result: SimulationResult, rollout: Rollout): string {
  const replicas = rollout.spec?.replicas ?? 1;
  const steps = rollout.spec?.strategy?.canary?.steps?.length ?? 0;
  const kind = result.strategy === 'canary' ? `canary, ${steps} step${steps === 1 ? '' : 's'}` : 'blue-green';
  const newLabel = result.strategy === 'canary' ? 'CANARY' : 'PREVIEW';
  const oldLabel = result.strategy === 'canary' ? 'STABLE' : 'ACTIVE';
  // Blue-green moves traffic by switching the active Service: the SERVICES column shows it.
  const showWeight = result.strategy === 'canary';
  const header = ['TIME', showWeight ? 'STEP' : 'PHASE', newLabel, oldLabel, ...(showWeight ? ['WEIGHT'] : []), 'SERVICES', 'WHAT'];
  const rows: string[][] = [];
  for (const f of result.frames) {
    const row = [
      formatTime(f.time),
      stepCell(f, result.strategy),
      `${f.canary.desired}/${f.canary.available}`,
      `${f.stable.desired}/${f.stable.available}`,
      ...(showWeight ? [`${f.weight.canary}%`] : []),
      servicesCell(f),
      whatCell(f),
    ];
    // Frames that differ only in what the table does not show would print as repeated lines.
    const previous = rows[rows.length - 1];
    if (previous && previous.every((cell, i) => cell === row[i])) continue;
    rows.push(row);
  }
  const weightNote = result.frames.some((f) => f.weight.source === 'router')
    ? '; WEIGHT is the canary weight sent to the traffic router'
    : showWeight
      ? '; WEIGHT is the canary share of the available pods (no traffic router)'
      : '';
  return [
    `Rollout ${result.rollout} (${kind}, ${replicas} replica${replicas === 1 ? '' : 's'}): ${OUTCOME_TEXT[result.outcome]} after ${formatTime(result.duration)}`,
    `${newLabel} and ${oldLabel} are desired/available pods${weightNote}; SERVICES shows the revision each Service selects.`,
    '',
    ...formatTable(header, rows),
    '',
  ].join('\n');
}

export const simulateCommand: Command = {
  name: 'simulate',
  summary: 'show step by step what each Rollout in a file does when it is updated',
  usage,
  async run(args: string[], io: CommandIO): Promise<number> {
    const { file, fromCluster, format, options } = parseSimulateArgs(args);
    if (fromCluster) return simulateFromCluster(fromCluster, format, options, io);
    if (file === undefined) throw new UsageError('FILE is missing');
    let text: string;
    try {
      text = await readFile(resolve(io.cwd, file), 'utf8');
    } catch (e) {
      io.err(`rollouts simulate: cannot read ${file}: ${readError(e)}`);
      return 2;
    }
    const { rollouts, services, problems } = rolloutsInFile(parseFile(text), file);
    for (const p of problems) io.err(p);

    const results: SimulationResult[] = [];
    const tables: string[] = [];
    let failed = problems.length > 0;
    for (const { rollout, note } of rollouts) {
      if (note) io.err(`note: ${note}`);
      try {
        const result = simulate(rollout, { ...options, services });
        results.push(result);
        tables.push(formatSimulationTable(result, rollout));
      } catch (e) {
        // The planner refuses values validation lets through only in odd corners; say which rollout and why.
        io.err(`${file}: cannot simulate Rollout ${rollout.metadata?.name ?? '(unnamed)'}: ${e instanceof Error ? e.message : String(e)}`);
        failed = true;
      }
    }
    if (format === 'json') {
      if (results.length > 0 || !failed) io.out(JSON.stringify(results, null, 2));
    } else if (tables.length > 0) {
      io.out(tables.join('\n'));
    }
    return failed ? 2 : 0;
  },
};

const CHOICE_TEXT: Record<WhatIfChoice, string> = {
  wait: 'if nothing is done',
  promote: 'if it is promoted now',
  promoteFull: 'if it is promoted fully now',
  abort: 'if it is aborted now',
};

/** `--from-cluster`: the live rollout's timeline from now, read from the cluster (never written). */
async function simulateFromCluster(live: FromCluster, format: 'table' | 'json', options: SimulateOptions, io: CommandIO): Promise<number> {
  const target = {
    name: live.name,
    rest: [],
    namespaces: live.namespace !== undefined ? [live.namespace] : [],
    flags: {},
    ...(live.namespace !== undefined ? { namespace: live.namespace } : {}),
    ...(live.context !== undefined ? { context: live.context } : {}),
    ...(live.kubeconfig !== undefined ? { kubeconfig: live.kubeconfig } : {}),
  };
  const conn = await cluster().connectCheckedOrSay(target, io);
  if (!conn) return 1;
  const w = cluster().watchForCommand(conn, io, { namespaces: [conn.namespace] });
  try {
    await cluster().settledOrSay(w, io);
    const { newImage: _image, services: _services, start: _start, ...rest } = options;
    const answer = cluster().whatIfFromStores(w.stores, conn.namespace, live.name, new Date(), { ...rest, choice: live.choice });
    if (!answer.ok) {
      io.err(`rollouts simulate --from-cluster: ${answer.reason} (context "${conn.context}")`);
      return 1;
    }
    const result = answer.result;
    if (format === 'json') {
      io.out(JSON.stringify(result, null, 2));
      return 0;
    }
    const rollout = w.stores.rollouts.get(live.name, conn.namespace)!;
    io.out(
      [
        `From the cluster now (${result.frames[0]?.at ?? ''}, context "${conn.context}", namespace "${conn.namespace}"), ${CHOICE_TEXT[live.choice]}; TIME counts from now.`,
        ...(result.assumptions ?? []).map((a) => `- ${a}`),
        formatSimulationTable(result, rollout),
      ].join('\n'),
    );
    return 0;
  } finally {
    w.dispose();
  }
}
