// A tiny stand-in for the API for the router tests: it serves the objects a router reads (null
// when absent; frozen, so a router that edits what it read fails loudly) and applies the writes as
// the API would (create; JSON merge patch guarded by resourceVersion).
import { strict as assert } from 'node:assert';
import { followingReads, routerObjectKey, routerWrites, trafficRoutersOf } from '../../src/planner';
import type { RouterDecision, RouterObject, RouterObjectRef, RouterWrite, Rollout, TrafficWeights } from '../../src/planner';

const keyOf = (o: RouterObject): string =>
  routerObjectKey({ apiVersion: o.apiVersion!, kind: o.kind!, plural: '', namespace: o.metadata!.namespace!, name: o.metadata!.name! });

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export class FakeCluster {
  readonly objects = new Map<string, RouterObject>();
  private version = 100;

  constructor(...objects: RouterObject[]) {
    for (const o of objects) this.put(o);
  }
  put(o: RouterObject): void {
    this.objects.set(keyOf(o), { ...o, metadata: { ...o.metadata, resourceVersion: String(this.version++) } });
  }
  get(ref: RouterObjectRef): RouterObject | undefined {
    return this.objects.get(routerObjectKey(ref));
  }
  find(kind: string, namespace: string, name: string): RouterObject | undefined {
    return [...this.objects.values()].find((o) => o.kind === kind && o.metadata?.namespace === namespace && o.metadata?.name === name);
  }
  /** What the controller reads: the routers' reads, then the objects those name (followingReads). */
  observe(rollout: Rollout): Map<string, RouterObject | null> {
    const observed = new Map<string, RouterObject | null>();
    const read = (refs: RouterObjectRef[]) =>
      refs.forEach((ref) => observed.set(routerObjectKey(ref), deepFreeze(structuredClone(this.get(ref) ?? null))));
    read(trafficRoutersOf(rollout).reads);
    read(followingReads(rollout, observed));
    return observed;
  }
  /** What a suite asserts of every write it sees (routes that are never created, say). */
  protected checkWrite(_w: RouterWrite): void {}
  apply(writes: RouterWrite[]): void {
    for (const w of writes) {
      this.checkWrite(w);
      const current = this.get(w.ref);
      if (w.action === 'delete') {
        assert.ok(current, `delete of a missing ${w.ref.name}`);
        this.objects.delete(routerObjectKey(w.ref));
      } else if (w.action === 'create') {
        assert.equal(current, undefined, `create of an existing ${w.ref.name}`);
        assert.equal(keyOf(w.object), routerObjectKey(w.ref), 'the created object is the one its ref names');
        this.put(w.object);
      } else {
        assert.ok(current, `patch of a missing ${w.ref.name}`);
        assert.equal(
          w.patch.metadata?.resourceVersion,
          current.metadata?.resourceVersion,
          'a patch carries the resourceVersion it was decided from',
        );
        this.put(mergePatch(current, w.patch) as RouterObject);
      }
    }
  }
  /** One reconcile: decide from what is served, send the writes. */
  reconcile(rollout: Rollout, weights: TrafficWeights): RouterDecision {
    const decision = routerWrites(rollout, weights, this.observe(rollout));
    if ('writes' in decision) this.apply(decision.writes);
    return decision;
  }
}

export function writesOf(decision: RouterDecision): RouterWrite[] {
  assert.ok('writes' in decision, `expected writes, got the problem: ${'problem' in decision ? decision.problem : ''}`);
  return decision.writes;
}

export function problemOf(decision: RouterDecision): string {
  assert.ok('problem' in decision, `expected a problem, got writes: ${JSON.stringify(decision)}`);
  return decision.problem;
}
