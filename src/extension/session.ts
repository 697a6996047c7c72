/**
 * The cluster side of the extension, without `vscode` (so it is tested in plain Node): which
 * kubeconfig files and contexts, the connection and watches of each watched context (several at
 * once, each failing on its own), the embedded local cluster and the embedded controller. It owns their lifetimes; the tree, the status bar and the
 * commands read it and listen to `onChange`.
 */
import { mkdirSync, rmSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { delimiter, dirname } from 'node:path';
import type {
  ChangeKind,
  ClusterStores,
  ClusterWatch,
  Connection,
  Disposable,
  EmbeddedController,
  KubeConfig,
  Log,
  Reconciler,
  WatchProblem,
  WatchScope,
} from '../cluster';
import type { LocalCluster } from '../localcluster';
import { argoCrdSchemas } from '../schema';
import { cluster } from './lazy-cluster';

/** The local cluster's context name (as src/localcluster writes it into its kubeconfig). */
export const LOCAL_CONTEXT = 'rollouts-local';

export type SessionState =
  | { kind: 'idle' }
  /** No kubeconfig at all: the welcome view offers the local cluster. */
  | { kind: 'noKubeconfig'; message: string }
  | { kind: 'connecting'; context: string }
  /**
   * `scope`: where it watches and why; `problems`: the kinds whose watch fails now (a kind the
   * user may not list), each shown as a warning under the context; the rest works.
   */
  | { kind: 'connected'; context: string; conn: Connection; stores: ClusterStores; scope: WatchScope; problems: () => WatchProblem[] }
  | { kind: 'failed'; context?: string; message: string };

export type SessionChange = 'state' | 'local' | 'controller';

/**
 * Who reconciles the connected context's Rollouts, as last looked at: Argo's own controller, an
 * embedded one (`here`: this window's; else another process's, `npm start` or the CLI), none seen,
 * or `unknown` when the cluster could not be asked.
 */
export type ReconcilerSummary = { context: string } & (
  | { kind: 'argo'; how: string }
  | { kind: 'embedded'; here: boolean; holder: string; namespace: string; renewTime?: string }
  | { kind: 'none'; unchecked: string[] }
  | { kind: 'unknown'; why: string }
);

export interface SessionOptions {
  log: Log;
  /** The user's kubeconfig setting: files merged as $KUBECONFIG is (empty: kubectl's default files). */
  kubeconfig?: () => readonly string[];
  /** The context setting (empty: the kubeconfig's current context). */
  context?: () => string;
  /**
   * The contexts to watch at once, as chosen (the view's "Select Contexts…", else the `rollouts.contexts`
   * setting); empty: the `context` option applies.
   */
  contexts?: () => readonly string[];
  namespaces?: () => readonly string[];
  env?: NodeJS.ProcessEnv;
  local?: () => { podReadyAfterMs: number; startController: boolean };
  /**
   * Where the local cluster's kubeconfig goes (the extension's storage folder, so that a killed
   * editor leaves nothing in /tmp); a temporary folder when absent.
   */
  localKubeconfigPath?: () => string;
  /** A warning about a connection the user should see (insecure-skip-tls-verify); it is logged too. */
  onWarning?: (message: string) => void;
  /** How often the kubeconfig files are looked at (default 1000 ms). */
  kubeconfigPollMs?: number;
  /** How often, while connected, it looks at who reconciles (Argo's controller, the embedded one's Lease); default 10 s. */
  reconcilerPollMs?: number;
}

/** At most this many contexts are watched at once: each costs a connection and a watch per kind, and a row of the tree. */
export const MAX_CONTEXTS = 5;

/** One watched context: its own connection (credentials, exec plugin runs, 401 retry), watches, state and look at who reconciles. */
interface ContextRun {
  readonly context: string;
  state: SessionState;
  watch?: ClusterWatch;
  subs: Disposable[];
  reconcilerSeen?: ReconcilerSummary;
  reconcilerTimer?: NodeJS.Timeout;
  /** Set when it is no longer watched: a connect still under way then changes nothing. */
  stopped: boolean;
}

export class Session implements Disposable {
  /** The state when no context is watched: idle, no kubeconfig, or a kubeconfig that names no context. */
  private overall: SessionState = { kind: 'idle' };
  /** The watched contexts, in the order chosen; the first is the primary (`state`, the palette's). */
  private runs: ContextRun[] = [];
  /** Chosen beyond MAX_CONTEXTS: listed, not watched. */
  private notWatched: string[] = [];
  private kc: KubeConfig | undefined;
  private localCluster: LocalCluster | undefined;
  private controllerRun: { controller: EmbeddedController; context: string } | undefined;
  private readonly changeListeners = new Set<(what: SessionChange) => void>();
  private readonly storeListeners = new Set<(kind: keyof ClusterStores, event: ChangeKind, obj: unknown, context: string) => void>();
  /** The contexts the user picked in this window (win over the options until the settings change). */
  private picked: string[] | undefined;
  /** The kubeconfig files watched (so contexts added in a terminal appear), and how to stop. */
  private watchedFiles: { files: string[]; stop: () => void } | undefined;
  private closing = false;

  constructor(private readonly opts: SessionOptions) {}

  /** The primary context's state (the first watched), or the overall one when none is watched. */
  get state(): SessionState {
    return this.runs[0]?.state ?? this.overall;
  }
  /** Every watched context's state, in the order chosen (the overall state when none is watched). */
  get states(): SessionState[] {
    return this.runs.length ? this.runs.map((r) => r.state) : [this.overall];
  }
  /** The state of one context: `idle` when it is not watched. */
  stateOf(context: string): SessionState {
    return this.run(context)?.state ?? { kind: 'idle' };
  }
  /** The contexts watched now, in the order chosen. */
  get watched(): string[] {
    return this.runs.map((r) => r.context);
  }
  /** The contexts chosen beyond MAX_CONTEXTS, not watched. */
  get skipped(): readonly string[] {
    return this.notWatched;
  }
  get local(): LocalCluster | undefined {
    return this.localCluster;
  }
  get controller(): { controller: EmbeddedController; context: string } | undefined {
    return this.controllerRun;
  }
  /** Who reconciles the primary context, as last looked at (undefined before the first look). */
  get reconciler(): ReconcilerSummary | undefined {
    return this.runs[0] && this.reconcilerOf(this.runs[0].context);
  }
  /** Who reconciles each connected context, as last looked at. */
  get reconcilers(): ReconcilerSummary[] {
    return this.runs.flatMap((r) => this.reconcilerOf(r.context) ?? []);
  }
  reconcilerOf(context: string): ReconcilerSummary | undefined {
    const r = this.run(context);
    return r?.state.kind === 'connected' ? r.reconcilerSeen : undefined;
  }
  /** The primary context's stores and connection, when it is connected. */
  get stores(): ClusterStores | undefined {
    return this.state.kind === 'connected' ? this.state.stores : undefined;
  }
  get connection(): Connection | undefined {
    return this.state.kind === 'connected' ? this.state.conn : undefined;
  }

  private run(context: string): ContextRun | undefined {
    return this.runs.find((r) => r.context === context);
  }

  onChange(listener: (what: SessionChange) => void): Disposable {
    this.changeListeners.add(listener);
    return { dispose: () => this.changeListeners.delete(listener) };
  }

  /** Every store event of every watched context, with that context's name; survives reconnects. */
  onStoreChange(listener: (kind: keyof ClusterStores, event: ChangeKind, obj: unknown, context: string) => void): Disposable {
    this.storeListeners.add(listener);
    return { dispose: () => this.storeListeners.delete(listener) };
  }

  private emit(what: SessionChange): void {
    for (const l of [...this.changeListeners]) {
      try {
        l(what);
      } catch (e) {
        this.opts.log.warn(`a session listener failed on ${what}`, e);
      }
    }
  }

  /** The kubeconfig files read: the user's, plus the local cluster's while it runs (it comes first so its context is found). */
  kubeconfigSources(): string[] {
    const user = cluster().kubeconfigFiles({ kubeconfigPaths: this.opts.kubeconfig?.() ?? [], env: this.opts.env ?? process.env });
    return this.localCluster ? [this.localCluster.kubeconfigPath, ...user] : user;
  }

  /** Context names of the kubeconfig, current first (empty when there is none). */
  contexts(): string[] {
    return this.kc ? cluster().contextNames(this.kc) : [];
  }

  /** Drops the picked contexts so the settings (or the kubeconfig's current context) apply again. */
  forgetPickedContext(): void {
    this.picked = undefined;
  }

  /** The contexts to watch: picked in this window, else the options (view choice or settings), else current-context. */
  private wantedContexts(kc: KubeConfig): string[] {
    const chosen = this.picked ?? this.opts.contexts?.() ?? [];
    const one = this.opts.context?.() || kc.currentContext;
    const list = chosen.length ? chosen : one ? [one] : [];
    return [...new Set(list.filter((c) => c !== ''))];
  }

  /**
   * (Re)connects: loads the kubeconfig and watches each context to watch (argument: these from now
   * on, else the ones picked before, else the options, else current-context), each on its own: one
   * that fails (unreachable, 401, 403, an exec plugin missing) says why in its own state and holds
   * back none of the others. With no argument every context reconnects; with one, a context already
   * watched and not failed is kept as it is. Never throws; resolves when every context has connected
   * or failed, with the primary's state.
   */
  async connect(context?: string | readonly string[]): Promise<SessionState> {
    if (context !== undefined) {
      const list = (typeof context === 'string' ? [context] : [...context]).filter((c) => c !== '');
      this.picked = list.length ? list : undefined;
    }
    let kc: KubeConfig;
    try {
      kc = this.loadKubeconfig();
    } catch (e) {
      this.kc = undefined;
      this.stopRuns([]);
      return this.setOverall({ kind: 'noKubeconfig', message: e instanceof Error ? e.message : String(e) });
    }
    this.kc = kc;
    const wanted = this.wantedContexts(kc);
    if (wanted.length === 0) {
      this.stopRuns([]);
      try {
        cluster().connectWith(kc, { env: this.opts.env ?? process.env });
      } catch (e) {
        return this.setOverall({ kind: 'failed', message: e instanceof cluster().KubeconfigError ? e.message : String(e) });
      }
    }
    this.notWatched = wanted.slice(MAX_CONTEXTS);
    if (this.notWatched.length) {
      const m = `at most ${MAX_CONTEXTS} contexts are watched at once; not watching ${this.notWatched.map((c) => `"${c}"`).join(', ')}: choose fewer with "Select Contexts…"`;
      this.opts.log.warn(m);
      this.opts.onWarning?.(m);
    }
    const keep = context !== undefined ? this.runs.filter((r) => r.state.kind !== 'failed') : [];
    const next = wanted
      .slice(0, MAX_CONTEXTS)
      .map(
        (name): ContextRun =>
          keep.find((r) => r.context === name) ?? { context: name, state: { kind: 'connecting', context: name }, subs: [], stopped: false },
      );
    const fresh = next.filter((r) => !keep.includes(r));
    this.stopRuns(next);
    this.runs = next;
    this.overall = { kind: 'idle' };
    this.emit('state');
    await Promise.all(fresh.map((r) => this.startRun(r, kc)));
    return this.state;
  }

  /** Connects one context and starts its watches; its failures become its own `failed` state. */
  private async startRun(run: ContextRun, kc: KubeConfig): Promise<void> {
    const env = this.opts.env ?? process.env;
    let conn: Connection;
    try {
      conn = cluster().connectWith(kc, { context: run.context, env });
    } catch (e) {
      this.setRunState(run, {
        kind: 'failed',
        context: run.context,
        message: e instanceof cluster().KubeconfigError ? e.message : String(e),
      });
      return;
    }
    for (const w of conn.warnings) {
      this.opts.log.warn(w);
      this.opts.onWarning?.(w);
    }
    this.setRunState(run, { kind: 'connecting', context: conn.context });
    // Where the user may look: the setting, else everywhere if they may, else their namespaces.
    let scope: WatchScope;
    try {
      scope = await cluster().watchScope(conn.rest, this.opts.namespaces?.() ?? [], conn.namespace);
    } catch (e) {
      this.setRunState(run, { kind: 'failed', context: conn.context, message: cluster().contextProblem(e, conn.context, conn.server) });
      return;
    }
    if (run.stopped) return;
    const check = await cluster().checkContext(conn.rest, conn.context, scope.namespaces?.[0]);
    if (run.stopped) return;
    // A refusal (403) is not the end: the watch of that kind shows it as a warning, the rest works.
    if (!check.ok && check.status !== 403) {
      this.setRunState(run, { kind: 'failed', context: conn.context, message: check.reason });
      return;
    }
    const watch = cluster().watchCluster({
      kc: conn.kc,
      rest: conn.rest,
      log: this.opts.log,
      namespaces: scope.namespaces ?? [],
      events: true,
    });
    run.watch = watch;
    for (const kind of Object.keys(watch.stores) as (keyof ClusterStores)[]) {
      const store = watch.stores[kind];
      if (!store) continue;
      run.subs.push(
        store.onChange((event, obj) => {
          for (const l of [...this.storeListeners]) l(kind, event, obj, run.context);
        }),
      );
    }
    // Events are extra: one that may not be watched is said once in the log, and the rest works.
    const events = watch.stores.events;
    let eventsRefusalTold = false;
    if (events)
      run.subs.push(
        events.onHealthChange(() => {
          const why = events.lastError();
          if (why === undefined || eventsRefusalTold) return;
          eventsRefusalTold = true;
          this.opts.log.warn(`context "${conn.context}": rollout Events are not shown (the rest works): ${why}`);
        }),
      );
    // A watch that fails or recovers changes the context's row and the status bar.
    run.subs.push(watch.onHealthChange(() => run.state.kind === 'connected' && !run.stopped && this.emit('state')));
    await watch.settled;
    if (run.stopped) return;
    this.opts.log.info(
      `watching context "${conn.context}" (${conn.server}) in ${scope.namespaces ? `namespaces ${scope.namespaces.join(', ')}` : 'every namespace'}: ${scope.how}`,
    );
    this.setRunState(run, {
      kind: 'connected',
      context: conn.context,
      conn,
      stores: watch.stores,
      scope,
      problems: () => watch.problems(),
    });
    this.pollReconciler(run);
  }

  private setRunState(run: ContextRun, state: SessionState): void {
    if (run.stopped) return;
    run.state = state;
    if (state.kind === 'failed') this.opts.log.warn(state.message);
    this.emit('state');
  }

  /** Stops every run not in `keep`. */
  private stopRuns(keep: readonly ContextRun[]): void {
    for (const r of this.runs) {
      if (keep.includes(r)) continue;
      r.stopped = true;
      clearInterval(r.reconcilerTimer);
      r.subs.forEach((s) => s.dispose());
      r.subs = [];
      r.watch?.dispose();
      r.watch = undefined;
    }
    this.runs = this.runs.filter((r) => keep.includes(r));
  }

  /**
   * Looks now at who reconciles a connected context (default: the primary) and tells listeners when
   * that changed. The tree shows it; "Start Embedded Controller" asks it first.
   */
  async lookAtReconciler(context?: string): Promise<ReconcilerSummary | undefined> {
    const run = context === undefined ? this.runs[0] : this.run(context);
    const s = run?.state;
    if (!run || s?.kind !== 'connected' || this.closing) return undefined;
    let who: ReconcilerSummary;
    try {
      who = summarize(
        s.context,
        await cluster().whoReconciles(s.conn.rest, new Date(), s.scope.namespaces ?? [s.conn.namespace]),
        this.controllerRun,
      );
    } catch (e) {
      who = { context: s.context, kind: 'unknown', why: e instanceof Error ? e.message : String(e) };
    }
    if (run.state !== s || run.stopped) return this.reconcilerOf(run.context);
    const before = run.reconcilerSeen;
    run.reconcilerSeen = who;
    if (!before || reconcilerKey(before) !== reconcilerKey(who)) this.emit('controller');
    return who;
  }

  private pollReconciler(run: ContextRun): void {
    clearInterval(run.reconcilerTimer);
    void this.lookAtReconciler(run.context);
    run.reconcilerTimer = setInterval(() => {
      if (run.state.kind === 'connected' && !run.stopped) void this.lookAtReconciler(run.context);
    }, this.opts.reconcilerPollMs ?? 10_000);
    run.reconcilerTimer.unref?.();
  }

  /**
   * The namespaces to offer in "Filter Namespaces", connected or not: those where the user may list
   * Rollouts (asked of the cluster of the primary context, watched or to be), the context's,
   * and the ones chosen. `problem`: why only the known ones are offered.
   */
  async namespaceChoices(chosen: readonly string[]): Promise<{ namespaces: string[]; problem?: string }> {
    const known = (extra: string[]) => [...new Set([...extra, ...chosen])].sort();
    let conn = this.connection;
    if (!conn) {
      try {
        const kc = this.loadKubeconfig();
        const wanted = this.wantedContexts(kc)[0];
        conn = cluster().connectWith(kc, { ...(wanted ? { context: wanted } : {}), env: this.opts.env ?? process.env });
      } catch (e) {
        return { namespaces: known([]), problem: e instanceof Error ? e.message : String(e) };
      }
    }
    try {
      return { namespaces: await cluster().namespaceChoices(conn.rest, conn.namespace, chosen) };
    } catch (e) {
      return { namespaces: known([conn.namespace]), problem: cluster().contextProblem(e, conn.context, conn.server) };
    }
  }

  private loadKubeconfig(): KubeConfig {
    const files = this.kubeconfigSources();
    this.watchKubeconfigFiles(files);
    // A context named in two files is kept twice (the later as `NAME (FILE)`): both can be watched.
    return cluster().loadKubeconfig({ env: { ...(this.opts.env ?? process.env), KUBECONFIG: files.join(delimiter) }, keepShadowed: true });
  }

  /**
   * Watches the kubeconfig files by polling their stat: kubectl rewrites them in place or by
   * rename, and a file that does not exist yet must be noticed when it appears, which fs.watch
   * does not do. A change reloads the contexts without touching the connections; with no
   * kubeconfig before, it connects.
   */
  private watchKubeconfigFiles(files: string[]): void {
    if (this.watchedFiles && this.watchedFiles.files.join(delimiter) === files.join(delimiter)) return;
    this.watchedFiles?.stop();
    const onChange = (now: Stats, before: Stats) => {
      if (now.mtimeMs !== before.mtimeMs || now.size !== before.size || now.ino !== before.ino) this.kubeconfigChanged();
    };
    const interval = this.opts.kubeconfigPollMs ?? 1000;
    for (const f of files) watchFile(f, { interval, persistent: false }, onChange);
    this.watchedFiles = { files, stop: () => files.forEach((f) => unwatchFile(f, onChange)) };
  }

  private kubeconfigChanged(): void {
    if (this.runs.length === 0 && this.overall.kind === 'noKubeconfig') {
      void this.connect();
      return;
    }
    try {
      this.kc = cluster().loadKubeconfig({
        env: { ...(this.opts.env ?? process.env), KUBECONFIG: this.kubeconfigSources().join(delimiter) },
        keepShadowed: true,
      });
      this.opts.log.info('the kubeconfig changed; contexts reloaded');
    } catch (e) {
      // A half-written file: the next write brings another change; keep the contexts we had.
      this.opts.log.warn(`the kubeconfig changed but cannot be read: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    this.emit('state');
  }

  private setOverall(state: SessionState): SessionState {
    this.overall = state;
    if (state.kind === 'failed' || state.kind === 'noKubeconfig') this.opts.log.warn(state.message);
    this.emit('state');
    return this.state;
  }

  /** Starts the local cluster with the demo rollouts, watches it (first, beside the contexts watched), and (by the setting) starts the embedded controller on it. */
  async startLocalCluster(): Promise<LocalCluster> {
    if (this.localCluster) return this.localCluster;
    const settings = this.opts.local?.() ?? { podReadyAfterMs: 2000, startController: true };
    const kubeconfigPath = this.opts.localKubeconfigPath?.();
    if (kubeconfigPath) mkdirSync(dirname(kubeconfigPath), { recursive: true });
    this.localCluster = await cluster().startLocalCluster({
      ...(kubeconfigPath ? { kubeconfigPath } : {}),
      demo: true,
      crdSchemas: argoCrdSchemas(),
      podReadyAfterMs: settings.podReadyAfterMs,
      onError: (m) => this.opts.log.warn(`local cluster: ${m}`),
    });
    this.opts.log.info(
      `local cluster listening on ${this.localCluster.url} (kubeconfig ${this.localCluster.kubeconfigPath}, demo namespace ${cluster().demoNamespace})`,
    );
    this.emit('local');
    const others = this.runs.filter((r) => r.state.kind !== 'failed' && r.context !== LOCAL_CONTEXT).map((r) => r.context);
    await this.connect([LOCAL_CONTEXT, ...others]);
    if (settings.startController && this.stateOf(LOCAL_CONTEXT).kind === 'connected' && !this.controllerRun)
      await this.startController({ context: LOCAL_CONTEXT });
    return this.localCluster;
  }

  async stopLocalCluster(): Promise<void> {
    const local = this.localCluster;
    if (!local) return;
    if (this.controllerRun?.context === LOCAL_CONTEXT) await this.stopController();
    const rest = (this.picked ?? this.watched).filter((c) => c !== LOCAL_CONTEXT);
    this.stopRuns(this.runs.filter((r) => r.context !== LOCAL_CONTEXT));
    this.localCluster = undefined;
    this.picked = this.picked && rest.length ? rest : undefined;
    await closeLocal(local);
    this.opts.log.info('local cluster stopped');
    this.emit('local');
    if (this.picked) await this.connect(this.picked);
    else await this.connect();
  }

  /**
   * Starts the embedded controller on a connected context (default: the primary); refuses (ControllerRefused)
   * where Argo's controller runs, or where that cannot be checked unless `force`. `takeOverIn`: the namespace of
   * the Lease another process's embedded controller holds, taken from it (it stops at its next renewal).
   * One embedded controller runs at a time, on one context.
   */
  async startController(opts: { force?: boolean; takeOverIn?: string; context?: string } = {}): Promise<EmbeddedController> {
    if (this.controllerRun) return this.controllerRun.controller;
    const state = opts.context === undefined ? this.state : this.stateOf(opts.context);
    if (state.kind !== 'connected')
      throw new (cluster().ControllerRefused)(
        opts.context === undefined ? 'connect to a cluster context first' : `context "${opts.context}" is not connected`,
      );
    const conn = state.conn;
    // Where the tree watches (a namespace-scoped user's namespaces, or the setting's), it reconciles; the Lease is kept in the first.
    const watched = state.scope.namespaces;
    const namespaces = watched?.includes(conn.namespace) ? [conn.namespace, ...watched.filter((n) => n !== conn.namespace)] : watched;
    const controller = await cluster().startEmbeddedController({
      conn,
      log: this.opts.log,
      identity: controllerIdentity(),
      ...(namespaces?.length ? { namespaces } : {}),
      ...(opts.force ? { force: true } : {}),
      ...(opts.takeOverIn ? { takeOverIn: opts.takeOverIn } : {}),
    });
    const run = { controller, context: conn.context };
    this.controllerRun = run;
    // A rollout it cannot move on (or can again) changes what the tree says of it. (A stopped controller changes nothing more.)
    controller.controller.onBlockedChange(() => {
      if (this.controllerRun === run) this.emit('controller');
    });
    void controller.lost.then(() => {
      if (this.controllerRun !== run) return;
      this.controllerRun = undefined;
      this.opts.log.warn(
        `the embedded controller stopped in context "${run.context}": ${controller.stoppedBecause() ?? 'it lost its Lease'}`,
      );
      this.emit('controller');
      void this.lookAtReconciler(run.context);
    });
    this.emit('controller');
    void this.lookAtReconciler(run.context);
    return controller;
  }

  async stopController(): Promise<void> {
    const run = this.controllerRun;
    if (!run) return;
    this.controllerRun = undefined;
    await run.controller.stop(true);
    this.opts.log.info(`embedded controller stopped in context "${run.context}"`);
    // Not "this window" any more; the next look (the poll) says who reconciles now. No request here:
    // stopping often comes just before the cluster closes (Stop Local Cluster, deactivate).
    const ctxRun = this.run(run.context);
    if (ctxRun?.reconcilerSeen?.kind === 'embedded' && ctxRun.reconcilerSeen.here) ctxRun.reconcilerSeen = undefined;
    this.emit('controller');
  }

  /** Stops everything it started. */
  async close(): Promise<void> {
    this.closing = true;
    this.watchedFiles?.stop();
    this.watchedFiles = undefined;
    await this.stopController();
    this.stopRuns([]);
    this.overall = { kind: 'idle' };
    const local = this.localCluster;
    this.localCluster = undefined;
    if (local) await closeLocal(local);
  }

  dispose(): void {
    void this.close();
  }
}

/** This window's name in the embedded controller's Lease: another window or process shows it as the holder. */
const controllerIdentity = (): string => `vscode-${hostname()}-pid${process.pid}-${randomBytes(3).toString('hex')}`;

function summarize(
  context: string,
  who: Reconciler,
  mine: { controller: EmbeddedController; context: string } | undefined,
): ReconcilerSummary {
  if (who.kind !== 'embedded') return { context, ...who };
  // Ours first: this window's controller is the one to show when it holds a Lease.
  const own = who.holders.find((h) => mine?.context === context && h.holder === mine.controller.identity);
  const h = own ?? who.holders[0]!;
  return {
    context,
    kind: 'embedded',
    here: own !== undefined,
    holder: h.holder,
    namespace: h.namespace,
    ...(h.renewTime ? { renewTime: h.renewTime } : {}),
  };
}

/** What the tree shows of a summary (a renewal alone changes nothing shown). */
const reconcilerKey = (r: ReconcilerSummary): string =>
  r.kind === 'embedded'
    ? `embedded:${r.here}:${r.holder}:${r.namespace}`
    : r.kind === 'none'
      ? `none:${r.unchecked.join(',')}`
      : r.kind === 'argo'
        ? `argo:${r.how}`
        : `unknown:${r.why}`;

/** Closes the local cluster and removes its kubeconfig (a given path is not removed by close()). */
async function closeLocal(local: LocalCluster): Promise<void> {
  await local.close();
  rmSync(local.kubeconfigPath, { force: true });
}
