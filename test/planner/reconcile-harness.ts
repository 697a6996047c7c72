/**
 * A small world for reconcile tests: a Rollout, its Services, and a pod model that is either
 * "every pod ready at once" or driven by hand. Each step is one real `reconcile` followed by
 * `applyEffects`, so tests read as what the controller does, reconcile by reconcile.
 */
import type { CanaryStrategy, ReconcileResult, ReplicaSet, Rollout, RolloutStrategy, Service, World } from '../../src/planner';
import { applyEffects, reconcile, LABEL_POD_TEMPLATE_HASH } from '../../src/planner';

export const T0 = new Date('2026-01-01T00:00:00Z');

export function rolloutWith(strategy: RolloutStrategy, opts: { replicas?: number; name?: string; image?: string } = {}): Rollout {
  const name = opts.name ?? 'demo';
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      replicas: opts.replicas ?? 10,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: opts.image ?? 'app:1' }] } },
      strategy,
    },
  };
}

export function canary(strategy: CanaryStrategy, opts: { replicas?: number; name?: string } = {}): Rollout {
  return rolloutWith({ canary: { stableService: 'demo-stable', canaryService: 'demo-canary', ...strategy } }, opts);
}

export function service(name: string, app = 'demo'): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { selector: { app } } };
}

export interface Harness {
  world: World;
  now: Date;
  /** When true, every pod is ready and available as soon as its ReplicaSet asks for it. */
  podsReadyAtOnce: boolean;
  /** Every reconcile result so far. */
  results: ReconcileResult[];
}

export function harness(rollout: Rollout, services: Service[] = [service('demo-stable'), service('demo-canary')]): Harness {
  return {
    world: { rollout, replicaSets: [], services, analysisRuns: [], experiments: [] },
    now: new Date(T0),
    podsReadyAtOnce: true,
    results: [],
  };
}

/** Pods catch up with every ReplicaSet's spec (all ready and available). */
export function podsReady(h: Harness): void {
  h.world = {
    ...h.world,
    replicaSets: h.world.replicaSets.map((rs) => {
      const n = rs.spec?.replicas ?? 0;
      return { ...rs, status: { replicas: n, readyReplicas: n, availableReplicas: n } };
    }),
  };
}

/** Sets the pods of one ReplicaSet by hand: `created` exist, `available` of them are available. */
export function setPods(h: Harness, rs: ReplicaSet | undefined, created: number, available = created): void {
  if (!rs) throw new Error('no such ReplicaSet');
  h.world = {
    ...h.world,
    replicaSets: h.world.replicaSets.map((r) =>
      r.metadata?.name === rs.metadata?.name
        ? { ...r, status: { replicas: created, readyReplicas: available, availableReplicas: available } }
        : r,
    ),
  };
}

/** One reconcile, its effects applied (and pods made ready when the harness does that). */
export function step(h: Harness): ReconcileResult {
  const w = h.world;
  const result = reconcile(w.rollout, w.replicaSets, w.services, w.analysisRuns, h.now, w.experiments);
  h.world = applyEffects(w, result.effects);
  if (h.podsReadyAtOnce) podsReady(h);
  h.results.push(result);
  return result;
}

/** Reconciles until a reconcile has nothing to do (at most `max` times); returns the results. */
export function settle(h: Harness, max = 60): ReconcileResult[] {
  const out: ReconcileResult[] = [];
  for (let i = 0; i < max; i++) {
    const r = step(h);
    out.push(r);
    if (r.effects.length === 0) return out;
  }
  throw new Error(
    `did not settle within ${max} reconciles; last effects: ${JSON.stringify(out[out.length - 1]?.effects.map((e) => e.kind))}`,
  );
}

export function advance(h: Harness, seconds: number): void {
  h.now = new Date(h.now.getTime() + seconds * 1000);
}

/** A harness whose rollout is deployed and at rest at revision 1. */
export function deployed(rollout: Rollout, services?: Service[]): Harness {
  const h = harness(rollout, services);
  settle(h);
  return h;
}

/** Changes the pod template (a new image), as `kubectl set image` would. */
export function updateImage(h: Harness, image = 'app:2'): void {
  const r = h.world.rollout;
  h.world = {
    ...h.world,
    rollout: {
      ...r,
      spec: { ...r.spec, template: { ...r.spec!.template, spec: { containers: [{ name: 'app', image }] } } },
    },
  };
}

/** Applies a status patch as a person would (promote, abort, ...). */
export function patchStatus(h: Harness, patch: Record<string, unknown>): void {
  const status: Record<string, unknown> = { ...(h.world.rollout.status ?? {}) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete status[k];
    else status[k] = v;
  }
  h.world = { ...h.world, rollout: { ...h.world.rollout, status } };
}

export function replicaSetByRevision(h: Harness, revision: number): ReplicaSet | undefined {
  return h.world.replicaSets.find((rs) => rs.metadata?.annotations?.['rollout.argoproj.io/revision'] === String(revision));
}

export function replicas(h: Harness, revision: number): number | undefined {
  return replicaSetByRevision(h, revision)?.spec?.replicas;
}

export function hashOf(rs: ReplicaSet | undefined): string | undefined {
  return rs?.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH];
}

export function selectorOf(h: Harness, serviceName: string): string | undefined {
  return h.world.services.find((s) => s.metadata?.name === serviceName)?.spec?.selector?.[LABEL_POD_TEMPLATE_HASH];
}

/** Names the effect kinds of a result, in order (short assertions). */
export function kinds(result: ReconcileResult): string[] {
  return result.effects.map((e) => e.kind);
}
