/** What the planner says a canary step does for this manifest, as hover markdown. */
import { plannedSteps, stepText, type PlannedStep, type Rollout } from '../planner';
import { documentValue, type ParsedDoc } from '../schema';

/** The preview drives the planner reconcile by reconcile; beyond this many pods it would take too long to be a hover. */
const MAX_PREVIEW_PODS = 1000;

const plans = new WeakMap<object, PlannedStep[] | undefined>();

/** The plan of a Rollout document, computed once per parse of it (parses are immutable). */
export function planOf(pd: ParsedDoc): PlannedStep[] | undefined {
  if (plans.has(pd.doc)) return plans.get(pd.doc);
  let plan: PlannedStep[] | undefined;
  try {
    const rollout = documentValue(pd.doc) as Rollout;
    if (previewable(rollout)) plan = plannedSteps(rollout);
  } catch {
    plan = undefined; // a manifest the planner cannot read gets no preview; validation says what is wrong
  }
  plans.set(pd.doc, plan);
  return plan;
}

function previewable(rollout: Rollout): boolean {
  const spec = (rollout as { spec?: { replicas?: unknown; strategy?: { canary?: { maxSurge?: unknown } } } } | null)?.spec;
  const pods = (v: unknown) =>
    v === undefined || v === null || typeof v === 'string' || (typeof v === 'number' && v >= 0 && v <= MAX_PREVIEW_PODS);
  return pods(spec?.replicas) && pods(spec?.strategy?.canary?.maxSurge);
}

/** Markdown for step `index`: pods per ReplicaSet and traffic once the step is reached, and the plan around it. */
export function stepPreview(pd: ParsedDoc, index: number): string | undefined {
  const plan = planOf(pd);
  const step = plan?.[index];
  if (!plan || !step) return undefined;
  const routed = hasTrafficRouting(pd);
  const table = ['| step | action | canary | stable | weight |', '| --- | --- | --- | --- | --- |'];
  for (const s of plan) {
    const mark = s.index === index ? '**→** ' : '';
    table.push(
      s.invalid
        ? `| ${mark}${s.index} | ${stepText(s.description)} (not valid) | | | |`
        : `| ${mark}${s.index} | ${stepText(s.description)} | ${s.canaryReplicas} | ${s.stableReplicas} | ${s.weight}% |`,
    );
  }
  // The table first: it is what a person hovers a step for.
  if (step.invalid)
    return [`**Step ${index} cannot be planned**: ${step.invalid}. The other steps, as if it did nothing:`, '', ...table].join('\n');
  const lines = [
    `**What happens at step ${index}** (${stepText(step.description)}), in a plain update of this manifest:`,
    '',
    ...table,
    '',
    `- canary (new ReplicaSet): **${step.canaryReplicas}** pod${step.canaryReplicas === 1 ? '' : 's'}`,
    `- stable: **${step.stableReplicas}** pod${step.stableReplicas === 1 ? '' : 's'}`,
    routed
      ? `- traffic: **${step.weight}%** to the canary, ${100 - step.weight}% to the stable (set by the traffic router)`
      : `- traffic: no trafficRouting, so it follows the pods (canary weight ${step.weight}%)`,
  ];
  if (step.pause) {
    lines.push(
      step.pause.invalid
        ? '- pause: the duration is not valid'
        : step.pause.seconds === undefined
          ? '- pause: waits here until promoted'
          : `- pause: waits ${step.pause.seconds}s, then continues`,
    );
  }
  return lines.join('\n');
}

function hasTrafficRouting(pd: ParsedDoc): boolean {
  const tr = pd.doc.getIn(['spec', 'strategy', 'canary', 'trafficRouting']);
  return tr !== undefined && tr !== null;
}
