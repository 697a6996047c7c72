/** Warnings for settings that do nothing or do something other than they seem to. */
import { experimentEndsByItself } from '../../planner';
import type { DocFinding } from '../findings';
import { BLUE_GREEN, CANARY, arr, has, hasTrafficRouting, info, int, obj, warning, type Rule } from './rule';

export const autoPromotionSecondsIgnored: Rule = {
  code: 'auto-promotion-seconds-ignored',
  severity: 'warning',
  help: '`autoPromotionSeconds` only counts when `autoPromotionEnabled` is true; with it false the rollout waits for a manual promote. Remove one of the two (the quick fix removes the seconds).',
  summary: 'autoPromotionSeconds does nothing when autoPromotionEnabled is false',
  check({ blueGreen }) {
    if (!blueGreen || blueGreen.autoPromotionEnabled !== false || !has(blueGreen, 'autoPromotionSeconds')) return [];
    return [
      warning(
        this.code,
        [...BLUE_GREEN, 'autoPromotionSeconds'],
        'autoPromotionSeconds is ignored because autoPromotionEnabled is false: the rollout waits for a manual promote',
        'key',
      ),
    ];
  },
};

export const scaleDownDelayZero: Rule = {
  code: 'scale-down-delay-zero',
  severity: 'warning',
  help: '`scaleDownDelaySeconds: 0` does not scale the old ReplicaSet down at once: Argo keeps it running. Use a small delay such as 1 instead.',
  summary: 'scaleDownDelaySeconds: 0 keeps the old ReplicaSet instead of scaling it down at once',
  check({ canary, blueGreen }) {
    const out: DocFinding[] = [];
    for (const [strategy, base] of [
      [canary, CANARY],
      [blueGreen, BLUE_GREEN],
    ] as const) {
      if (int(strategy?.scaleDownDelaySeconds) !== 0) continue;
      out.push(
        warning(
          this.code,
          [...base, 'scaleDownDelaySeconds'],
          'scaleDownDelaySeconds: 0 does not scale the old ReplicaSet down immediately: Argo then keeps it running (only ReplicaSets beyond scaleDownDelayRevisionLimit are scaled down). Use a small delay such as 1 instead (upstream issue #1992)',
        ),
      );
    }
    return out;
  },
};

export const noEffectWithoutTrafficRouting: Rule = {
  code: 'no-effect-without-traffic-routing',
  severity: 'warning',
  help: '`abortScaleDownDelaySeconds`, `minPodsPerReplicaSet` and `pingPong` only act on a canary with `trafficRouting`. Remove the field (the quick fix does) or configure traffic routing.',
  summary: 'abortScaleDownDelaySeconds, minPodsPerReplicaSet and pingPong do nothing on a canary without trafficRouting',
  check({ canary }) {
    if (!canary || hasTrafficRouting(canary)) return [];
    return (['abortScaleDownDelaySeconds', 'minPodsPerReplicaSet', 'pingPong'] as const)
      .filter((f) => has(canary, f))
      .map((f) => warning(this.code, [...CANARY, f], `${f} has no effect on a canary without trafficRouting`, 'key'));
  },
};

export const experimentNeverEnds: Rule = {
  code: 'experiment-never-ends',
  severity: 'info',
  help: 'An experiment without `duration` and without an analysis marked `requiredForCompletion` runs until it is terminated or an analysis fails, and the rollout waits at its step meanwhile. Give it a duration if it should end by itself.',
  summary: 'an experiment step without duration and without a requiredForCompletion analysis runs until terminated (or an analysis fails)',
  check({ canary }) {
    const out: DocFinding[] = [];
    arr(canary?.steps).forEach((s, i) => {
      const experiment = obj(obj(s)?.experiment);
      if (!experiment || experimentEndsByItself(experiment)) return;
      // A preview stack that runs until someone terminates it is a pattern of its own (upstream's canary-preview
      // example), so this is information, not a warning.
      out.push(
        info(
          this.code,
          [...CANARY, 'steps', i, 'experiment'],
          'this experiment has no duration and no analysis with requiredForCompletion: true: it runs, and the rollout waits at this step, until it is terminated (`rollouts terminate experiment NAME`), the rollout is promoted past the step, or an analysis fails. For an experiment that ends by itself, give it a duration or mark the analysis that decides it requiredForCompletion',
          'key',
        ),
      );
    });
    return out;
  },
};
