/**
 * Upstream Argo Rollouts' end-to-end DSL (test/fixtures in argo-rollouts: Given / When / Then) as
 * a small async helper of ours, so their suites read step by step the same here. A `Scenario`
 * starts a local cluster and the embedded controller against it over real HTTP (the real watch,
 * the real REST client, the product's actions), and offers upstream's verbs:
 *
 * - given: rolloutObjects(textOrFile) / rolloutTemplate / setSteps / scaleDownDelaySeconds ...
 *   (edit the objects before they are applied), healthyRollout;
 * - when: applyManifests, updateSpec, patchSpec, promote, promoteFull, abort, retry, restart,
 *   undo, setImage, scale, sleep, waitForRolloutStatus and the other waits;
 * - then: expectReplicaCounts, expectCanaryStablePodCount, expectRevisionPodCount,
 *   expectServiceSelector, expectAnalysisRunCount ... (read fresh from the API, as upstream does).
 *
 * Time: the cluster and the controller share one clock that runs `timeScale` times faster than
 * real time (both only read `now()` and set timers through it), so the manifests keep their
 * durations (pause 10s, scaleDownDelaySeconds 30) and a test takes a fraction of them. `sleep(s)`
 * sleeps `s` seconds of that clock. Timestamps are whole seconds (as Kubernetes writes them), so
 * a scaled second is the finest grain: keep timeScale so that one scaled second is >= ~25 ms real.
 * Waits are bounded in *real* time (default 30 s), never by the scaled clock.
 *
 * A file argument "@functional/x.yaml" is test/fixtures/argo-rollouts/e2e/functional/x.yaml, as
 * upstream's "@" prefix names files under test/e2e.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLocalCluster, type Clock as ClusterClock, type LocalCluster } from '../../src/localcluster';
import { connect, type Connection } from '../../src/cluster/connection';
import { createController, type Controller } from '../../src/cluster/controller';
import { watchCluster, type ClusterWatch } from '../../src/cluster/store';
import { runAction, type ActionRequest } from '../../src/cluster/actions';
import { applyObjects } from '../../src/cluster/apply';
import type { Clock as ControllerClock } from '../../src/cluster/clock';
import { ANALYSIS_RUN, DEPLOYMENT, POD, REPLICA_SET, ROLLOUT, SERVICE, kindPath, type Pod } from '../../src/cluster/kinds';
import type { Rest } from '../../src/cluster/rest';
import { k8s } from '../../src/cluster/k8s';
import { manifestObjects } from '../../src/schema';
import { clientPhase, type AnalysisRun, type ReplicaSet, type Rollout } from '../../src/planner';
import { recordingLog, until } from '../cluster/helpers';
import * as YAML from 'yaml';

export const FIXTURES_DIR = join(__dirname, '..', 'fixtures', 'argo-rollouts', 'e2e');

/** Reads "@dir/file.yaml" from the fixtures (or returns the text itself). */
export function manifestText(textOrFile: string): string {
  return textOrFile.startsWith('@') ? readFileSync(join(FIXTURES_DIR, textOrFile.slice(1)), 'utf8') : textOrFile;
}

const REVISION = 'rollout.argoproj.io/revision';
const HASH = 'rollouts-pod-template-hash';
const SCALE_DOWN_DEADLINE = 'scale-down-deadline';
const ROLLOUT_TYPE = 'rollout-type';
/** The readiness gate upstream's e2e manifests declare and MarkPodsReady sets. */
const E2E_READINESS = 'argoproj.io/e2e-readiness';

export interface ScenarioOptions {
  /** How many times faster than real time the cluster's and controller's clock runs. Default 20. */
  timeScale?: number;
  /** Real milliseconds from a pod's start until it is ready. Default 50. */
  podReadyAfterMs?: number;
  /** Images that never become ready. Default: tags starting "bad"/"fail" (src/localcluster) plus upstream's "does-not-exist"/"non-existent" tags. */
  failImagePattern?: RegExp;
  /** Pods whose container command's first word matches never become ready. Default: upstream's "/bad-command..." */
  failCommandPattern?: RegExp;
  /** Default bound, in real milliseconds, of every wait. Default 30000. */
  waitMs?: number;
}

export type RolloutStatus = 'Progressing' | 'Paused' | 'Healthy' | 'Degraded';
export type AnalysisRunKind = 'Background' | 'Step' | 'PrePromotion' | 'PostPromotion';
type Obj = Record<string, any>;

/** One clock for both sides, `scale` times faster than real time (see the header). */
export function scaledClocks(scale: number): { cluster: ClusterClock; controller: ControllerClock; now(): number } {
  const realStart = Date.now();
  const now = () => realStart + (Date.now() - realStart) * scale;
  const real = (ms: number) => Math.max(0, ms) / scale;
  return {
    now,
    cluster: {
      now,
      setTimeout(fn, ms) {
        const t = setTimeout(fn, real(ms));
        t.unref?.();
        return t;
      },
      clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    },
    controller: {
      now: () => new Date(now()),
      setTimer(fn, ms) {
        const t = setTimeout(fn, real(ms));
        return () => clearTimeout(t);
      },
    },
  };
}

/** Images that never run: ours (":bad...", ":fail...") and upstream's e2e ones ("...-argo-error", "does-not-exist"). */
const defaultFail = /:(bad|fail)[^/]*$|-argo-error$|does-not-exist|non-existent/;

export class Scenario {
  readonly namespace = 'default';
  /** The objects given (rolloutObjects...), applied by applyManifests(). */
  objects: Obj[] = [];
  private rolloutName: string | undefined;
  /**
   * Every Event the watch shows, added or modified, in the order it shows them: upstream's
   * StartEventWatch collects them so (a repeat the recorder counts on one Event appears again).
   */
  private readonly events: Obj[] = [];
  private stopEventWatch: (() => void) | undefined;

  private constructor(
    readonly cluster: LocalCluster,
    readonly conn: Connection,
    readonly watch: ClusterWatch,
    readonly controller: Controller,
    readonly log: ReturnType<typeof recordingLog>,
    readonly clock: ReturnType<typeof scaledClocks>,
    readonly timeScale: number,
    readonly waitMs: number,
  ) {}

  static async start(opts: ScenarioOptions = {}): Promise<Scenario> {
    const timeScale = opts.timeScale ?? 20;
    const clock = scaledClocks(timeScale);
    const cluster = await startLocalCluster({
      port: 0,
      clock: clock.cluster,
      podReadyAfterMs: (opts.podReadyAfterMs ?? 50) * timeScale,
      failImagePattern: opts.failImagePattern ?? defaultFail,
      failCommandPattern: opts.failCommandPattern ?? /^\/bad-command/,
    });
    const conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
    const log = recordingLog();
    const watch = watchCluster({ kc: conn.kc, rest: conn.rest, log, backoff: () => 100, deployments: true, analysisTemplates: true });
    await watch.synced;
    const controller = createController({
      rest: conn.rest,
      stores: watch.stores,
      clock: clock.controller,
      log,
      ...(watch.deployments ? { deployments: watch.deployments } : {}),
      ...(watch.podTemplates ? { podTemplates: watch.podTemplates } : {}),
      ...(watch.analysisTemplates ? { analysisTemplates: watch.analysisTemplates } : {}),
      ...(watch.clusterAnalysisTemplates ? { clusterAnalysisTemplates: watch.clusterAnalysisTemplates } : {}),
    });
    const scenario = new Scenario(cluster, conn, watch, controller, log, clock, timeScale, opts.waitMs ?? 30_000);
    await scenario.startEventWatch();
    controller.start();
    return scenario;
  }

  private async startEventWatch(): Promise<void> {
    const req = await new k8s.Watch(this.conn.kc).watch(
      `/api/v1/namespaces/${this.namespace}/events`,
      {},
      (type: string, obj: Obj) => {
        if (type === 'ADDED' || type === 'MODIFIED') this.events.push(obj);
      },
      () => undefined,
    );
    this.stopEventWatch = () => req.abort();
  }

  async close(): Promise<void> {
    this.stopEventWatch?.();
    await this.controller.stop();
    this.watch.dispose();
    await this.cluster.close();
  }

  get rest(): Rest {
    return this.conn.rest;
  }

  /** The name of the Rollout the scenario is about (the first one given or applied). */
  get name(): string {
    if (!this.rolloutName) throw new Error('no rollout given yet (rolloutObjects / applyManifests)');
    return this.rolloutName;
  }

  // ---------------- given ----------------

  /** The objects of a YAML text or "@dir/file.yaml"; its Rollout becomes the scenario's. */
  rolloutObjects(textOrFile: string): this {
    for (const doc of YAML.parseAllDocuments(manifestText(textOrFile))) {
      const o = doc.toJS() as Obj | null;
      if (!o || typeof o !== 'object') continue;
      if (o.kind === 'Rollout') {
        if (this.objects.some((x) => x.kind === 'Rollout')) throw new Error('multiple rollouts given');
        this.rolloutName = o.metadata.name;
      }
      this.objects.push(o);
    }
    return this;
  }

  /** rolloutObjects of a file with each key of `values` replaced by its value (upstream's RolloutTemplate). */
  rolloutTemplate(textOrFile: string, values: Record<string, string>): this {
    let text = manifestText(textOrFile);
    for (const [k, v] of Object.entries(values)) text = text.split(k).join(v);
    return this.rolloutObjects(text);
  }

  /** The given Rollout object, to edit before applying. */
  givenRollout(): Obj {
    const r = this.objects.find((o) => o.kind === 'Rollout');
    if (!r) throw new Error('no rollout given');
    return r;
  }

  private strategy(): { canary?: Obj; blueGreen?: Obj } {
    return this.givenRollout().spec.strategy;
  }

  setSteps(yamlSteps: string): this {
    this.strategy().canary!.steps = YAML.parse(yamlSteps);
    return this;
  }

  revisionHistoryLimit(limit: number): this {
    this.givenRollout().spec.revisionHistoryLimit = limit;
    return this;
  }

  scaleDownDelaySeconds(seconds: number): this {
    const s = this.strategy();
    const target = s.canary ?? s.blueGreen;
    if (!target) throw new Error('unknown strategy type');
    target.scaleDownDelaySeconds = seconds;
    return this;
  }

  autoPromotionSeconds(seconds: number): this {
    this.strategy().blueGreen!.autoPromotionSeconds = seconds;
    return this;
  }

  autoPromotionEnabled(enabled: boolean): this {
    this.strategy().blueGreen!.autoPromotionEnabled = enabled;
    return this;
  }

  setVersion(version: string): this {
    const t = this.givenRollout().spec.template;
    t.metadata = { ...(t.metadata ?? {}), annotations: { version } };
    return this;
  }

  setRollbackWindow(revisions: number): this {
    this.givenRollout().spec.rollbackWindow = { revisions };
    return this;
  }

  /** Gives the objects, applies them and waits for Healthy. */
  async healthyRollout(textOrFile: string): Promise<this> {
    this.rolloutObjects(textOrFile);
    await this.applyManifests();
    await this.waitForRolloutStatus('Healthy');
    return this;
  }

  // ---------------- when ----------------

  /** Applies `textOrFile` (or, without it, the given objects), as `kubectl apply` would. */
  async applyManifests(textOrFile?: string): Promise<this> {
    let objs: Obj[];
    if (textOrFile === undefined) {
      if (!this.objects.length) throw new Error('no objects given to apply');
      objs = this.objects;
    } else {
      objs = [];
      for (const doc of YAML.parseAllDocuments(manifestText(textOrFile))) {
        const o = doc.toJS() as Obj | null;
        if (o && typeof o === 'object') objs.push(o);
      }
    }
    // As `kubectl apply` (client side, as upstream runs it): each object carries its
    // last-applied-configuration; one that exists gets the three-way merge patch from it, so a field
    // the new manifest drops is removed even when someone else set it since.
    const fresh: Obj[] = [];
    for (const o of objs) {
      const body = withLastApplied(o);
      const path = await this.pathOf(o);
      const current = await this.rest.request<Obj>('GET', path).catch((e) => {
        if ((e as { status?: number }).status === 404) return undefined;
        throw e;
      });
      if (!current) fresh.push(body);
      else await this.rest.request('PATCH', path, { patch: 'merge', body: threeWayMergePatch(lastAppliedOf(current), body) });
    }
    if (fresh.length) {
      const parsed = manifestObjects(fresh.map((o) => YAML.stringify(o)).join('---\n'));
      if (parsed.refused || parsed.problems.length) throw new Error(`cannot apply: ${JSON.stringify(parsed.refused ?? parsed.problems)}`);
      const result = await applyObjects(this.rest, parsed.objects, this.namespace, { force: true });
      if (result.problems.length) throw new Error(`apply failed: ${result.problems.map((p) => p.message).join('; ')}`);
    }
    if (!this.rolloutName) this.rolloutName = objs.find((o) => o.kind === 'Rollout')?.metadata?.name;
    return this;
  }

  /** The API path of a manifest object (its kind's plural from discovery), in the scenario's namespace unless cluster-scoped. */
  private async pathOf(o: Obj): Promise<string> {
    const apiVersion = String(o.apiVersion);
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const list = await this.rest.request<{ resources?: { name: string; kind: string; namespaced: boolean }[] }>('GET', base);
    const r = (list.resources ?? []).find((x) => x.kind === o.kind && !x.name.includes('/'));
    if (!r) throw new Error(`the cluster serves no ${o.kind} in ${apiVersion}`);
    const ns = r.namespaced ? `/namespaces/${o.metadata?.namespace ?? this.namespace}` : '';
    return `${base}${ns}/${r.name}/${encodeURIComponent(o.metadata?.name)}`;
  }

  async deleteObject(path: string): Promise<this> {
    await this.rest.request('DELETE', path);
    return this;
  }

  async deleteRollout(): Promise<this> {
    return this.deleteObject(kindPath(ROLLOUT, this.namespace, this.name));
  }

  /** A merge patch of the rollout (YAML or JSON text); without one, a new pod-template annotation (a new revision), as upstream's UpdateSpec. */
  async updateSpec(patchYaml?: string): Promise<this> {
    const body =
      patchYaml === undefined
        ? { spec: { template: { metadata: { annotations: { update: new Date(this.clock.now()).toISOString() + Math.random() } } } } }
        : YAML.parse(patchYaml);
    await this.rest.request('PATCH', kindPath(ROLLOUT, this.namespace, this.name), { patch: 'merge', body });
    return this;
  }

  async updateVersion(version: string): Promise<this> {
    return this.updateSpec(JSON.stringify({ spec: { template: { metadata: { annotations: { version } } } } }));
  }

  /**
   * Upstream's PatchSpec: a strategic merge of the rollout, computed client side and sent as an
   * update (retried on a conflict). Lists of named objects (containers, env, volumes, ports...)
   * merge item by item on `name`, as the pod template's patch strategy does; null deletes.
   */
  async patchSpec(patchYaml: string): Promise<this> {
    const patch = YAML.parse(patchYaml);
    for (let attempt = 0; ; attempt++) {
      const current = await this.getRollout();
      try {
        await this.rest.request('PUT', kindPath(ROLLOUT, this.namespace, this.name), { body: strategicMerge(current, patch) });
        return this;
      } catch (e) {
        if (attempt < 5 && (e as { status?: number }).status === 409) continue;
        throw e;
      }
    }
  }

  /** Upstream's UpdateResource: read the object at `path`, change it, update it (retried on a conflict). */
  async updateResource(path: string, update: (obj: Obj) => void): Promise<this> {
    for (let attempt = 0; ; attempt++) {
      const obj = await this.rest.request<Obj>('GET', path);
      update(obj);
      try {
        await this.rest.request('PUT', path, { body: obj });
        return this;
      } catch (e) {
        if (attempt < 5 && (e as { status?: number }).status === 409) continue;
        throw e;
      }
    }
  }

  /** Upstream's UpdateWorkloadRef: a merge patch of the referenced Deployment (default: a new pod-template annotation). */
  async updateWorkloadRef(deploymentName: string, patchYaml?: string): Promise<this> {
    const body =
      patchYaml === undefined
        ? { spec: { template: { metadata: { annotations: { update: new Date(this.clock.now()).toISOString() + Math.random() } } } } }
        : YAML.parse(patchYaml);
    await this.rest.request('PATCH', kindPath(DEPLOYMENT, this.namespace, deploymentName), { patch: 'merge', body });
    return this;
  }

  /** Upstream's ScaleRolloutWithWorkloadRef: a JSON patch of spec.replicas only. */
  async scaleRolloutWithWorkloadRef(replicas: number): Promise<this> {
    await this.rest.request('PATCH', kindPath(ROLLOUT, this.namespace, this.name), {
      patch: 'json',
      body: [{ op: 'replace', path: '/spec/replicas', value: replicas }],
    });
    return this;
  }

  /**
   * Upstream's MarkPodsReady: sets the `argoproj.io/e2e-readiness` readiness gate condition True
   * on `count` pods of the revision that do not have it yet, waiting for pods to exist.
   */
  async markPodsReady(revision: string | number, count: number, withinMs = this.waitMs): Promise<this> {
    const deadline = Date.now() + withinMs;
    let left = count;
    for (;;) {
      const pods = await this.revisionPods(revision).catch(() => [] as Pod[]);
      for (const pod of pods) {
        if (left <= 0) break;
        if ((pod.status?.conditions ?? []).some((c) => c.type === E2E_READINESS)) continue;
        await this.updateResource(kindPath(POD, this.namespace, pod.metadata!.name!) + '/status', (p) => {
          p.status = { ...(p.status ?? {}), conditions: [...(p.status?.conditions ?? []), { type: E2E_READINESS, status: 'True' }] };
        });
        left--;
      }
      if (left <= 0) return this;
      if (Date.now() > deadline) throw new Error(`timed out marking ${count} pods of revision ${revision} ready (${count - left} marked)`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async act(request: ActionRequest): Promise<this> {
    const outcome = await runAction(this.rest, { namespace: this.namespace, name: this.name }, request);
    if (!outcome.ok) throw new Error(`${request.kind} refused: ${outcome.reason}`);
    return this;
  }

  /** Waits, as upstream does before promoting, for the controller to have seen the spec and set its pause conditions. */
  private async waitForPauseConditionsSet(): Promise<void> {
    await this.waitForRolloutCondition(
      (r) =>
        String(r.status?.observedGeneration) === String(r.metadata?.generation) &&
        !(r.status?.controllerPause && !(r.status?.pauseConditions ?? []).length),
      'observedGeneration to match and pause conditions set',
    );
  }

  async promote(): Promise<this> {
    await this.waitForPauseConditionsSet();
    return this.act({ kind: 'promote' });
  }

  async promoteFull(): Promise<this> {
    await this.waitForPauseConditionsSet();
    return this.act({ kind: 'promoteFull' });
  }

  abort = () => this.act({ kind: 'abort' });
  retry = () => this.act({ kind: 'retry' });
  pause = () => this.act({ kind: 'pause' });
  resume = () => this.act({ kind: 'resume' });
  undo = (toRevision?: number) => this.act({ kind: 'undo', ...(toRevision ? { toRevision } : {}) });
  /** Restarts now (by the scenario's clock, as the controller reads it). */
  restart = () => this.act({ kind: 'restart', at: new Date(this.clock.now()) });
  setImage = (container: string, image: string) => this.act({ kind: 'setImage', container, image });

  async scale(replicas: number): Promise<this> {
    return this.updateSpec(JSON.stringify({ spec: { replicas } }));
  }

  /**
   * Sleeps `seconds` of the scenario's clock, then lets the controller catch up (settle): upstream's
   * real sleeps always include the real controller's latency, which a scaled sleep would not.
   */
  async sleep(seconds: number): Promise<this> {
    await new Promise((r) => setTimeout(r, (seconds * 1000) / this.timeScale));
    await this.settle();
    return this;
  }

  /** Resolves once the controller has no work and the watch has shown nothing new for `quietMs` real ms (bounded by 2 s). */
  async settle(quietMs = 20): Promise<this> {
    const deadline = Date.now() + 2000;
    let changed = true;
    const subs = Object.values(this.watch.stores).map((st) => st.onChange(() => (changed = true)));
    try {
      while (changed && Date.now() < deadline) {
        changed = false;
        await this.controller.idle();
        await new Promise((r) => setTimeout(r, quietMs));
      }
    } finally {
      subs.forEach((x) => x.dispose());
    }
    return this;
  }

  /**
   * Waits until `test` holds of the rollout: as the API shows it now, or as the watch shows it
   * later (never an older version than the one read now, so a wait right after a write does not
   * pass on the state from before it).
   */
  async waitForRolloutCondition(test: (r: Rollout) => boolean, what: string, withinMs = this.waitMs): Promise<Rollout> {
    const fresh = await this.getRollout();
    if (test(fresh)) return fresh;
    const minVersion = Number(fresh.metadata?.resourceVersion ?? 0);
    try {
      return await until(
        this.watch.stores,
        () => {
          const r = this.watch.stores.rollouts.get(this.name, this.namespace);
          return r && Number(r.metadata?.resourceVersion ?? 0) >= minVersion && test(r) ? r : undefined;
        },
        `rollout ${this.name}: ${what}`,
        withinMs,
      );
    } catch (e) {
      const r = this.watch.stores.rollouts.get(this.name, this.namespace);
      const p = r && clientPhase(r);
      throw new Error(
        `${(e as Error).message}; it is ${r ? `${p!.phase} (${p!.message}), step ${r.status?.currentStepIndex}, replicas ${JSON.stringify(counts(r))}` : 'missing'}`,
      );
    }
  }

  /** Upstream's WaitForRolloutConditionToNotExist: fails if `test` holds of any version the watch shows within `seconds` (scenario time). */
  async waitForRolloutConditionToNotExist(test: (r: Rollout) => boolean, what: string, seconds: number): Promise<this> {
    let seen: Rollout | undefined;
    const check = () => {
      const r = this.watch.stores.rollouts.get(this.name, this.namespace);
      if (r && test(r)) seen ??= structuredClone(r);
    };
    const sub = this.watch.stores.rollouts.onChange(check);
    check();
    await this.sleep(seconds);
    sub.dispose();
    if (seen) throw new Error(`condition '${what}' appeared: ${JSON.stringify(seen.status)}`);
    return this;
  }

  /** As `kubectl argo rollouts status`: the phase of GetRolloutPhase (ours: clientPhase). */
  async waitForRolloutStatus(status: RolloutStatus, withinMs?: number): Promise<this> {
    await this.waitForRolloutCondition((r) => clientPhase(r).phase === status, `status=${status}`, withinMs);
    return this;
  }

  async waitForRolloutMessage(message: string, withinMs?: number): Promise<this> {
    await this.waitForRolloutCondition((r) => clientPhase(r).message === message, `message=${message}`, withinMs);
    return this;
  }

  /** Upstream's WaitForRolloutCanaryStepIndex: at a pause step, also waits for Paused. */
  async waitForRolloutCanaryStepIndex(index: number, withinMs?: number): Promise<this> {
    await this.waitForRolloutCondition(
      (r) => {
        if (r.status?.currentStepIndex !== index) return false;
        const step = r.spec?.strategy?.canary?.steps?.[index];
        return step?.pause ? clientPhase(r).phase === 'Paused' : true;
      },
      `status.currentStepIndex=${index}`,
      withinMs,
    );
    return this;
  }

  async waitForRolloutAvailableReplicas(count: number, withinMs?: number): Promise<this> {
    await this.waitForRolloutCondition((r) => (r.status?.availableReplicas ?? 0) === count, `status.availableReplicas=${count}`, withinMs);
    return this;
  }

  async waitForRolloutReplicas(count: number, withinMs?: number): Promise<this> {
    await this.waitForRolloutCondition((r) => (r.status?.replicas ?? 0) === count, `status.replicas=${count}`, withinMs);
    return this;
  }

  async waitForActiveRevision(revision: string | number, withinMs?: number): Promise<this> {
    const hash = hashOf(await this.replicaSetByRevision(revision));
    await this.waitForRolloutCondition((r) => r.status?.blueGreen?.activeSelector === hash, `active revision=${revision}`, withinMs);
    return this;
  }

  async waitForPreviewRevision(revision: string | number, withinMs?: number): Promise<this> {
    const hash = hashOf(await this.replicaSetByRevision(revision));
    await this.waitForRolloutCondition((r) => r.status?.blueGreen?.previewSelector === hash, `preview revision=${revision}`, withinMs);
    return this;
  }

  /** Waits until the revision's ReplicaSet owns `count` pods not being deleted. */
  async waitForRevisionPodCount(revision: string | number, count: number, withinMs = this.waitMs): Promise<this> {
    await until(
      this.watch.stores,
      () => {
        const rs = this.watch.stores.replicaSets
          .list(this.namespace)
          .find((x) => this.ownedByRollout(x) && x.metadata?.annotations?.[REVISION] === String(revision));
        if (!rs) return false;
        const n = this.watch.stores.pods
          .list(this.namespace)
          .filter(
            (p) => !p.metadata?.deletionTimestamp && (p.metadata?.ownerReferences ?? []).some((o) => o.name === rs.metadata?.name),
          ).length;
        return n === count;
      },
      `rev=${revision} podcount=${count}`,
      withinMs,
    );
    return this;
  }

  /** Waits until the rollout's AnalysisRun of this kind (the newest) is in `phase`. */
  async waitForAnalysisRunPhase(kind: AnalysisRunKind, phase: string, withinMs = this.waitMs): Promise<this> {
    await until(
      this.watch.stores,
      () => {
        const run = this.newestRun(this.watch.stores.analysisRuns.list(this.namespace), kind);
        return run?.status?.phase === phase;
      },
      `${kind} AnalysisRun phase=${phase}`,
      withinMs,
    ).catch((e) => {
      const run = this.newestRun(this.watch.stores.analysisRuns.list(this.namespace), kind);
      throw new Error(`${(e as Error).message}; it is ${run ? `${run.status?.phase} (${run.status?.message ?? ''})` : 'missing'}`);
    });
    return this;
  }
  waitForBackgroundAnalysisRunPhase = (phase: string) => this.waitForAnalysisRunPhase('Background', phase);
  waitForInlineAnalysisRunPhase = (phase: string) => this.waitForAnalysisRunPhase('Step', phase);
  waitForPrePromotionAnalysisRunPhase = (phase: string) => this.waitForAnalysisRunPhase('PrePromotion', phase);
  waitForPostPromotionAnalysisRunPhase = (phase: string) => this.waitForAnalysisRunPhase('PostPromotion', phase);

  /** Resolves when the controller has nothing queued or running. */
  idle(): Promise<void> {
    return this.controller.idle();
  }

  // ---------------- then (read fresh from the API) ----------------

  async getRollout(): Promise<Rollout> {
    return this.rest.request<Rollout>('GET', kindPath(ROLLOUT, this.namespace, this.name));
  }

  async expectRollout(expectation: string, test: (r: Rollout) => boolean): Promise<this> {
    const r = await this.getRollout();
    if (!test(r)) throw new Error(`rollout expectation '${expectation}' failed: status ${JSON.stringify(r.status)}`);
    return this;
  }

  async expectRolloutStatus(status: RolloutStatus): Promise<this> {
    const r = await this.getRollout();
    const p = clientPhase(r);
    if (p.phase !== status) throw new Error(`expected rollout status ${status}, it is ${p.phase} (${p.message})`);
    return this;
  }

  async expectRolloutMessage(message: string): Promise<this> {
    const p = clientPhase(await this.getRollout());
    if (p.message !== message) throw new Error(`expected rollout message '${message}', it is '${p.message}'`);
    return this;
  }

  /** As upstream's ExpectReplicaCounts: spec.replicas (default 1), status.replicas, updatedReplicas, readyReplicas, availableReplicas; null skips one. */
  async expectReplicaCounts(
    desired: number | null,
    current: number | null,
    updated: number | null,
    ready: number | null,
    available: number | null,
  ): Promise<this> {
    const r = await this.getRollout();
    const actual = counts(r);
    const want = { desired, current, updated, ready, available };
    for (const k of Object.keys(want) as (keyof typeof want)[]) {
      if (want[k] !== null && want[k] !== actual[k])
        throw new Error(`expected ${k} replicas ${want[k]}, actual ${actual[k]} (all: ${JSON.stringify(actual)})`);
    }
    return this;
  }

  /** The ReplicaSets the rollout owns (fresh). */
  async replicaSets(): Promise<ReplicaSet[]> {
    const r = await this.getRollout();
    const list = await this.rest.request<{ items: ReplicaSet[] }>('GET', kindPath(REPLICA_SET, this.namespace));
    return list.items.filter((rs) => (rs.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Rollout' && o.uid === r.metadata?.uid));
  }

  /** Upstream's GetReplicaSetByRevision (a few tries: it may be about to appear). */
  async replicaSetByRevision(revision: string | number): Promise<ReplicaSet> {
    for (let i = 0; ; i++) {
      const found = (await this.replicaSets()).filter((rs) => rs.metadata?.annotations?.[REVISION] === String(revision));
      if (found.length > 1) throw new Error(`several ReplicaSets of revision ${revision}`);
      if (found[0]) return found[0];
      if (i >= 10) throw new Error(`no ReplicaSet of revision ${revision}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The pods of the rollout's selector (fresh). */
  async pods(): Promise<Pod[]> {
    const r = await this.getRollout();
    const selector = Object.entries(r.spec?.selector?.matchLabels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const list = await this.rest.request<{ items: Pod[] }>('GET', kindPath(POD, this.namespace), { query: { labelSelector: selector } });
    return list.items;
  }

  async revisionPods(revision: string | number): Promise<Pod[]> {
    const rs = await this.replicaSetByRevision(revision);
    const list = await this.rest.request<{ items: Pod[] }>('GET', kindPath(POD, this.namespace));
    return list.items.filter((p) => (p.metadata?.ownerReferences ?? []).some((o) => o.uid === rs.metadata?.uid));
  }

  async expectPods(expectation: string, test: (pods: Pod[]) => boolean): Promise<this> {
    const pods = await this.pods();
    if (!test(pods)) throw new Error(`pod expectation '${expectation}' failed (${pods.length} pods)`);
    return this;
  }

  async expectRevisionPods(expectation: string, revision: string | number, test: (pods: Pod[]) => boolean): Promise<this> {
    const pods = await this.revisionPods(revision);
    if (!test(pods)) throw new Error(`pod expectation '${expectation}' of revision ${revision} failed (${pods.length} pods)`);
    return this;
  }

  private async expectPodCountByHash(description: string, hash: string | undefined, expected: number): Promise<void> {
    const pods = await this.pods();
    const n = pods.filter((p) => !p.metadata?.deletionTimestamp && p.metadata?.labels?.[HASH] === hash).length;
    if (n !== expected) throw new Error(`expected ${description} (hash ${hash}) pod count ${expected}, saw ${n}`);
  }

  /** Pods (not being deleted) of status.currentPodHash and of status.stableRS. */
  async expectCanaryStablePodCount(canary: number, stable: number): Promise<this> {
    const r = await this.getRollout();
    await this.expectPodCountByHash('canary', r.status?.currentPodHash, canary);
    await this.expectPodCountByHash('stable', r.status?.stableRS, stable);
    return this;
  }

  async expectRevisionPodCount(revision: string | number, expected: number): Promise<this> {
    await this.expectPodCountByHash(`revision:${revision}`, hashOf(await this.replicaSetByRevision(revision)), expected);
    return this;
  }

  /** Whether the revision's ReplicaSet carries a scale-down deadline annotation. */
  async expectRevisionScaleDown(revision: string | number, scaleDown: boolean): Promise<this> {
    const rs = await this.replicaSetByRevision(revision);
    const has = rs.metadata?.annotations?.[SCALE_DOWN_DEADLINE] !== undefined;
    if (has !== scaleDown) throw new Error(`expected revision ${revision} ${scaleDown ? '' : 'not '}to have a scale-down deadline`);
    return this;
  }

  async expectReplicaSets(expectation: string, test: (rss: ReplicaSet[]) => boolean): Promise<this> {
    const rss = await this.replicaSets();
    if (!test(rss))
      throw new Error(
        `replicaset expectation '${expectation}' failed: ${JSON.stringify(rss.map((rs) => ({ name: rs.metadata?.name, rev: rs.metadata?.annotations?.[REVISION], replicas: rs.spec?.replicas, ann: rs.metadata?.annotations })))}`,
      );
    return this;
  }

  async expectStableRevision(revision: string | number): Promise<this> {
    const r = await this.getRollout();
    const hash = hashOf(await this.replicaSetByRevision(revision));
    if (r.status?.stableRS !== hash) throw new Error(`expected stable ${r.status?.stableRS} to be revision ${revision} (${hash})`);
    return this;
  }

  expectActiveRevision = (revision: string | number) => this.verifyBlueGreenSelectorRevision('active', revision);
  expectPreviewRevision = (revision: string | number) => this.verifyBlueGreenSelectorRevision('preview', revision);

  /** As upstream: the status selector, the Service's selector and the revision's hash agree (tried for 3 s: the Service lags the status). */
  private async verifyBlueGreenSelectorRevision(which: 'active' | 'preview', revision: string | number): Promise<this> {
    const deadline = Date.now() + 3000;
    for (;;) {
      const r = await this.getRollout();
      const bg = r.spec?.strategy?.blueGreen;
      const serviceName = which === 'active' ? bg?.activeService : bg?.previewService;
      const selector = which === 'active' ? r.status?.blueGreen?.activeSelector : r.status?.blueGreen?.previewSelector;
      const svc = await this.rest.request<Obj>('GET', kindPath(SERVICE, this.namespace, serviceName));
      const hash = hashOf(await this.replicaSetByRevision(revision));
      const problem =
        selector !== svc.spec?.selector?.[HASH]
          ? `${which} selector ${selector} != service selector ${svc.spec?.selector?.[HASH]}`
          : selector !== hash
            ? `${which} selector ${selector} != revision ${revision} hash ${hash}`
            : undefined;
      if (!problem) return this;
      if (Date.now() > deadline) throw new Error(`expectation failed: ${problem}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  /** The Service's selector is exactly `selector` (plus the current pod hash when `withPodTemplateHash`). */
  async expectServiceSelector(service: string, selector: Record<string, string>, withPodTemplateHash: boolean): Promise<this> {
    const svc = await this.rest.request<Obj>('GET', kindPath(SERVICE, this.namespace, service));
    const want = { ...selector };
    if (withPodTemplateHash) want[HASH] = (await this.getRollout()).status?.currentPodHash ?? '';
    const got = svc.spec?.selector ?? {};
    if (JSON.stringify(sortKeys(got)) !== JSON.stringify(sortKeys(want)))
      throw new Error(`expected ${service} selector ${JSON.stringify(want)}, actual ${JSON.stringify(got)}`);
    return this;
  }

  /** Upstream's GetServices: the canary (or preview) and stable (or active) Services, when the rollout names them. */
  async services(): Promise<{ desired?: Obj; stable?: Obj }> {
    const r = await this.getRollout();
    const bg = r.spec?.strategy?.blueGreen;
    const c = r.spec?.strategy?.canary;
    const desiredName = bg ? bg.previewService : c?.canaryService;
    const stableName = bg ? bg.activeService : c?.stableService;
    const get = (n: string | undefined) =>
      n ? this.rest.request<Obj>('GET', kindPath(SERVICE, this.namespace, n)) : Promise.resolve(undefined);
    const [desired, stable] = await Promise.all([get(desiredName), get(stableName)]);
    return { ...(desired ? { desired } : {}), ...(stable ? { stable } : {}) };
  }

  /** The reasons of the Events about the rollout as the event watch saw them, in its order (upstream's GetRolloutEventReasons). */
  async rolloutEventReasons(): Promise<string[]> {
    const r = await this.getRollout();
    return this.events.filter((e) => e.involvedObject?.uid === r.metadata?.uid).map((e) => String(e.reason));
  }

  async expectRolloutEvents(reasons: string[]): Promise<this> {
    const got = await this.rolloutEventReasons();
    if (JSON.stringify(got) !== JSON.stringify(reasons))
      throw new Error(`expected rollout events ${JSON.stringify(reasons)}, got ${JSON.stringify(got)}`);
    return this;
  }

  async expectRolloutEventsContains(reasons: string[]): Promise<this> {
    const got = await this.rolloutEventReasons();
    const missing = reasons.filter((r) => !got.includes(r));
    if (missing.length) throw new Error(`rollout events lack ${JSON.stringify(missing)}; got ${JSON.stringify(got)}`);
    return this;
  }

  /** Upstream's ExpectDeploymentReplicasCount: spec.replicas of the Deployment becomes `expected` (polled, as upstream polls for a minute). */
  async expectDeploymentReplicasCount(expectation: string, name: string, expected: number, withinMs = this.waitMs): Promise<this> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const d = await this.rest.request<Obj>('GET', kindPath(DEPLOYMENT, this.namespace, name));
      if (d.spec?.replicas === expected) return this;
      if (Date.now() > deadline)
        throw new Error(`deployment replicas expectation '${expectation}' failed: expected ${expected}, actual ${d.spec?.replicas}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The AnalysisRuns the rollout controls (fresh). */
  async analysisRuns(): Promise<AnalysisRun[]> {
    const list = await this.rest.request<{ items: AnalysisRun[] }>('GET', kindPath(ANALYSIS_RUN, this.namespace));
    return list.items.filter((ar) => (ar.metadata?.ownerReferences ?? []).some((o) => o.controller && o.name === this.name));
  }

  async expectAnalysisRuns(expectation: string, test: (runs: AnalysisRun[]) => boolean): Promise<this> {
    const runs = await this.analysisRuns();
    if (!test(runs))
      throw new Error(
        `analysisrun expectation '${expectation}' failed: ${JSON.stringify(runs.map((r) => ({ name: r.metadata?.name, phase: r.status?.phase })))}`,
      );
    return this;
  }

  async expectAnalysisRunCount(expected: number): Promise<this> {
    const n = (await this.analysisRuns()).length;
    if (n !== expected) throw new Error(`expected ${expected} AnalysisRuns, saw ${n}`);
    return this;
  }

  private newestRun(runs: readonly AnalysisRun[], kind: AnalysisRunKind): AnalysisRun | undefined {
    const label = kind; // upstream's rollout-type label values: Background, Step, PrePromotion, PostPromotion
    const mine = runs.filter(
      (ar) => (ar.metadata?.ownerReferences ?? []).some((o) => o.name === this.name) && ar.metadata?.labels?.[ROLLOUT_TYPE] === label,
    );
    return mine
      .sort(
        (a, b) =>
          (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '') ||
          (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
      )
      .at(-1);
  }

  /** The rollout's AnalysisRun of this kind (the newest, as upstream expects one). */
  async analysisRun(kind: AnalysisRunKind): Promise<AnalysisRun> {
    const run = this.newestRun(await this.analysisRuns(), kind);
    if (!run) throw new Error(`no ${kind} AnalysisRun`);
    return run;
  }

  async expectAnalysisRunPhase(kind: AnalysisRunKind, phase: string): Promise<this> {
    const run = await this.analysisRun(kind);
    if (run.status?.phase !== phase)
      throw new Error(
        `expected ${kind} AnalysisRun ${run.metadata?.name} ${phase}, it is ${run.status?.phase} (${run.status?.message ?? ''})`,
      );
    return this;
  }
  expectBackgroundAnalysisRunPhase = (phase: string) => this.expectAnalysisRunPhase('Background', phase);
  expectInlineAnalysisRunPhase = (phase: string) => this.expectAnalysisRunPhase('Step', phase);

  private ownedByRollout(rs: ReplicaSet): boolean {
    const r = this.watch.stores.rollouts.get(this.name, this.namespace);
    return (rs.metadata?.ownerReferences ?? []).some(
      (o) => o.kind === 'Rollout' && (r?.metadata?.uid ? o.uid === r.metadata.uid : o.name === this.name),
    );
  }
}

/** What upstream's ExpectReplicaCounts compares. */
export function counts(r: Rollout): { desired: number; current: number; updated: number; ready: number; available: number } {
  return {
    desired: r.spec?.replicas ?? 1,
    current: r.status?.replicas ?? 0,
    updated: r.status?.updatedReplicas ?? 0,
    ready: r.status?.readyReplicas ?? 0,
    available: r.status?.availableReplicas ?? 0,
  };
}

export const hashOf = (rs: ReplicaSet): string | undefined => rs.metadata?.labels?.[HASH];

function sortKeys(o: Record<string, string>): [string, string][] {
  return Object.entries(o).sort(([a], [b]) => a.localeCompare(b));
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The object with its own JSON as its last-applied-configuration annotation, as `kubectl apply` sends it. */
function withLastApplied(o: Obj): Obj {
  const copy = structuredClone(o);
  const { [LAST_APPLIED]: _, ...annotations } = copy.metadata?.annotations ?? {};
  const applied = { ...copy, metadata: { ...copy.metadata, ...(Object.keys(annotations).length ? { annotations } : {}) } };
  if (!Object.keys(annotations).length) delete applied.metadata.annotations;
  return { ...applied, metadata: { ...applied.metadata, annotations: { ...annotations, [LAST_APPLIED]: JSON.stringify(applied) } } };
}

function lastAppliedOf(o: Obj): Obj {
  const text = o.metadata?.annotations?.[LAST_APPLIED];
  return typeof text === 'string' ? (JSON.parse(text) as Obj) : {};
}

/** kubectl's three-way JSON merge patch: `modified` as a patch, with null for what `original` had and `modified` drops. */
export function threeWayMergePatch(original: Obj, modified: Obj): Obj {
  const patch: Obj = {};
  for (const k of Object.keys(original)) if (!(k in modified)) patch[k] = null;
  for (const [k, v] of Object.entries(modified)) {
    const was = original[k];
    const isMap = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x);
    patch[k] = isMap(v) && isMap(was) ? threeWayMergePatch(was as Obj, v as Obj) : v;
  }
  return patch;
}

/** Upstream's newService (analysis_test.go): a Service on port 80 selecting `app: label`. */
export function newService(name: string, label: string): string {
  return `
kind: Service
apiVersion: v1
metadata:
  name: ${name}
spec:
  ports:
  - port: 80
    targetPort: 80
  selector:
    app: ${label}
`;
}

/**
 * A strategic merge patch as kubectl computes it for the pod template: maps merge, null deletes,
 * lists whose items all have a `name` merge item by item on it, other lists are replaced.
 */
export function strategicMerge(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object') return patch;
  if (Array.isArray(patch)) {
    const named = (l: unknown[]) =>
      l.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && typeof (x as Obj).name === 'string');
    if (!Array.isArray(target) || !named(patch) || !named(target)) return patch;
    const out = [...target] as Obj[];
    for (const item of patch as Obj[]) {
      const i = out.findIndex((x) => x.name === item.name);
      if (i >= 0) out[i] = strategicMerge(out[i], item) as Obj;
      else out.push(item);
    }
    return out;
  }
  const out: Obj = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Obj) } : {};
  for (const [k, v] of Object.entries(patch as Obj)) {
    if (v === null) delete out[k];
    else out[k] = strategicMerge(out[k], v);
  }
  return out;
}

/** Runs `body` with a fresh Scenario and always closes it (one cluster and controller per test). */
export async function scenario(body: (s: Scenario) => Promise<void>, opts: ScenarioOptions = {}): Promise<void> {
  const s = await Scenario.start(opts);
  try {
    await body(s);
  } finally {
    await s.close();
  }
}
