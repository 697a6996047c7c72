/**
 * What a canary step is, as data, and the one way it is written as text. The tree, the rollout
 * panel, the simulator (its view and `rollouts simulate`), the hovers and `rollouts get` all show
 * steps through `describeStep` + `stepText`, and the step counter through `stepProgress`, so a
 * step reads the same everywhere and nothing parses the text back.
 *
 * Steps are numbered as Argo numbers them: by their index in spec.strategy.canary.steps, counted
 * from 0, which is what status.currentStepIndex, the step-index label of a step's AnalysisRuns and
 * Experiments, and the YAML path `steps[N]` say. The counter "N/M" is currentStepIndex over the
 * number of steps, as the kubectl plugin's "Step:" line and STEP column show it: the steps done so
 * far, so "0/5" is at step 0 and "5/5" is every step done.
 */
import { pauseDurationSeconds } from './duration';
import type { CanaryStep } from './types';

export type StepDescription =
  /** `weight` absent: the setWeight is not a number (validation says so). */
  | { kind: 'setWeight'; weight?: number }
  /**
   * `duration` absent: until promoted. `duration` is Argo's form ("30s", "1h30m"); `seconds` its
   * length, absent when it does not parse (`invalid`).
   */
  | { kind: 'pause'; duration?: string; seconds?: number; invalid?: true }
  | { kind: 'setCanaryScale'; replicas?: number; weight?: number; matchTrafficWeight?: true }
  | { kind: 'analysis'; templates: string[] }
  | { kind: 'experiment'; templates: string[]; duration?: string }
  | { kind: 'setHeaderRoute'; name?: string }
  | { kind: 'setMirrorRoute'; name?: string }
  | { kind: 'plugin'; name?: string }
  /** A step with none of the actions Argo knows (validation says what is wrong). */
  | { kind: 'unknown' };

export type StepKind = StepDescription['kind'];

const WHOLE_SECONDS = /^[0-9]+$/;
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const names = (list: unknown, key: string): string[] =>
  (Array.isArray(list) ? list : [])
    .map((t: unknown) => (t && typeof t === 'object' ? (t as Record<string, unknown>)[key] : undefined))
    .filter((n): n is string => typeof n === 'string' && n !== '');
const named = (v: unknown): { name?: string } => {
  const name = v && typeof v === 'object' ? (v as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? { name } : {};
};

/** The step as data. Reads the manifest as it is (a value of the wrong type is left out, never thrown on). */
export function describeStep(step: CanaryStep): StepDescription {
  if (step.setWeight != null) return isNumber(step.setWeight) ? { kind: 'setWeight', weight: step.setWeight } : { kind: 'setWeight' };
  if (step.setCanaryScale != null) {
    const s = step.setCanaryScale;
    if (isNumber(s.replicas)) return { kind: 'setCanaryScale', replicas: s.replicas };
    if (isNumber(s.weight)) return { kind: 'setCanaryScale', weight: s.weight };
    return { kind: 'setCanaryScale', matchTrafficWeight: true };
  }
  if (step.pause != null) {
    const written = (step.pause as { duration?: unknown }).duration;
    if (written == null || written === '') return { kind: 'pause' };
    const seconds = pauseDurationSeconds(step.pause);
    const duration = typeof written === 'number' || WHOLE_SECONDS.test(String(written)) ? `${String(written)}s` : String(written);
    return seconds === undefined || seconds < 0 ? { kind: 'pause', duration, invalid: true } : { kind: 'pause', duration, seconds };
  }
  if (step.analysis != null) return { kind: 'analysis', templates: names(step.analysis.templates, 'templateName') };
  if (step.experiment != null) {
    const d = step.experiment.duration as unknown;
    return {
      kind: 'experiment',
      templates: names(step.experiment.templates, 'name'),
      ...(typeof d === 'string' || isNumber(d) ? { duration: isNumber(d) || WHOLE_SECONDS.test(d) ? `${d}s` : d } : {}),
    };
  }
  if (step.setHeaderRoute != null) return { kind: 'setHeaderRoute', ...named(step.setHeaderRoute) };
  if (step.setMirrorRoute != null) return { kind: 'setMirrorRoute', ...named(step.setMirrorRoute) };
  if (step.plugin != null) return { kind: 'plugin', ...named(step.plugin) };
  return { kind: 'unknown' };
}

/** The kind of a step (the action it does). */
export const stepKind = (step: CanaryStep): StepKind => describeStep(step).kind;

/** The one text of a step: "setWeight 20%", "pause 30s", "pause until promoted", "analysis success-rate", ... */
export function stepText(d: StepDescription): string {
  switch (d.kind) {
    case 'setWeight':
      return d.weight === undefined ? 'setWeight (not a number)' : `setWeight ${d.weight}%`;
    case 'pause':
      if (d.duration === undefined) return 'pause until promoted';
      return d.invalid ? `pause (invalid duration "${d.duration}")` : `pause ${d.duration}`;
    case 'setCanaryScale':
      return `setCanaryScale ${d.replicas !== undefined ? `${d.replicas} replica${d.replicas === 1 ? '' : 's'}` : d.weight !== undefined ? `${d.weight}%` : 'matchTrafficWeight'}`;
    case 'analysis':
      return d.templates.length > 0 ? `analysis ${d.templates.join(', ')}` : 'analysis';
    case 'experiment':
      return [`experiment`, d.templates.join(', '), d.duration ? `for ${d.duration}` : ''].filter(Boolean).join(' ');
    case 'setHeaderRoute':
    case 'setMirrorRoute':
    case 'plugin':
      return d.name ? `${d.kind} ${d.name}` : d.kind;
    case 'unknown':
      return 'step without an action';
  }
}

/** The step counter as the kubectl plugin shows it: "2/5" (the steps done: at step 2, or 5/5 when all are). */
export function stepProgress(currentStepIndex: number, count: number): string {
  return `${Math.max(0, Math.min(currentStepIndex, count))}/${count}`;
}
