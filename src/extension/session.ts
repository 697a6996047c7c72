/**
 * The cluster side of the extension, without `vscode` (so it is tested in plain Node): which
 * kubeconfig files and context, the watches of the connected context, the embedded local cluster
 * and the embedded controller. It owns their lifetimes; the tree, the status bar and the
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

export class Session implements Disposable {
  private current: SessionState = { kind: 'idle' };
  private watch: ClusterWatch | undefined;
  private kc: KubeConfig | undefined;
  private localCluster: LocalCluster | undefined;
  private controllerRun: { controller: EmbeddedController; context: string } | undefined;
  private readonly changeListeners = new Set<(what: SessionChange) => void>();
  private readonly storeListeners = new Set<(kind: keyof ClusterStores, event: ChangeKind, obj: unknown) => void>();
  private storeSubs: Disposable[] = [];
  /** Each connect() bumps it; a slower earlier connect that finishes late is dropped. */
  private generation = 0;
  /** The context the user picked in this window (wins over the setting until the setting changes). */
  private picked: string | undefined;
  /** The kubeconfig files watched (so contexts added in a terminal appear), and how to stop. */
  private watchedFiles: { files: string[]; stop: () => void } | undefined;
  private reconcilerSeen: ReconcilerSummary | undefined;
  private reconcilerTimer: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(private readonly opts: SessionOptions) {}

  get state(): SessionState {
    return this.current;
  }
  get local(): LocalCluster | undefined {
    return this.localCluster;
  }
  get controller(): { controller: EmbeddedController; context: string } | undefined {
    return this.controllerRun;
  }
  /** Who reconciles the connected context, as last looked at (undefined before the first look). */
  get reconciler(): ReconcilerSummary | undefined {
    const s = this.current;
    return s.kind === 'connected' && this.reconcilerSeen?.context === s.context ? this.reconcilerSeen : undefined;
  }
  get stores(): ClusterStores | undefined {
    return this.current.kind === 'connected' ? this.current.stores : undefined;
  }
  get connection(): Connection | undefined {
    return this.current.kind === 'connected' ? this.current.conn : undefined;
  }

  onChange(listener: (what: SessionChange) => void): Disposable {
    this.changeListeners.add(listener);
    return { dispose: () => this.changeListeners.delete(listener) };
  }

  /** Every store event of the connected context; survives reconnects. */
  onStoreChange(listener: (kind: keyof ClusterStores, event: ChangeKind, obj: unknown) => void): Disposable {
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

  /** Drops the picked context so the setting (or the kubeconfig's current context) applies again. */
  forgetPickedContext(): void {
    this.picked = undefined;
  }

  /**
   * (Re)connects: loads the kubeconfig, picks the context (argument, else the one picked before,
   * else the setting, else current-context), checks it and starts the watches. Never throws:
   * a problem becomes the `failed` or `noKubeconfig` state with its sentence.
   */
  async connect(context?: string): Promise<SessionState> {
    const generation = ++this.generation;
    if (context) this.picked = context;
    this.disconnect();
    let kc: KubeConfig;
    try {
      kc = this.loadKubeconfig();
    } catch (e) {
      this.kc = undefined;
      return this.setState({ kind: 'noKubeconfig', message: e instanceof Error ? e.message : String(e) });
    }
    this.kc = kc;
    const wanted = this.picked || this.opts.context?.() || undefined;
    let conn: Connection;
    try {
      conn = cluster().connectWith(kc, { ...(wanted ? { context: wanted } : {}), env: this.opts.env ?? process.env });
    } catch (e) {
      return this.setState({
        kind: 'failed',
        ...(wanted ? { context: wanted } : {}),
        message: e instanceof cluster().KubeconfigError ? e.message : String(e),
      });
    }
    for (const w of conn.warnings) {
      this.opts.log.warn(w);
      this.opts.onWarning?.(w);
    }
    this.setState({ kind: 'connecting', context: conn.context });
    // Where the user may look: the setting, else everywhere if they may, else their namespaces.
    let scope: WatchScope;
    try {
      scope = await cluster().watchScope(conn.rest, this.opts.namespaces?.() ?? [], conn.namespace);
    } catch (e) {
      if (generation !== this.generation) return this.current;
      return this.setState({ kind: 'failed', context: conn.context, message: cluster().contextProblem(e, conn.context, conn.server) });
    }
    if (generation !== this.generation) return this.current;
    const check = await cluster().checkContext(conn.rest, conn.context, scope.namespaces?.[0]);
    if (generation !== this.generation) return this.current;
    // A refusal (403) is not the end: the watch of that kind shows it as a warning, the rest works.
    if (!check.ok && check.status !== 403) return this.setState({ kind: 'failed', context: conn.context, message: check.reason });

    const watch = cluster().watchCluster({
      kc: conn.kc,
      rest: conn.rest,
      log: this.opts.log,
      namespaces: scope.namespaces ?? [],
      events: true,
    });
    this.watch = watch;
    for (const kind of Object.keys(watch.stores) as (keyof ClusterStores)[]) {
      const store = watch.stores[kind];
      if (!store) continue;
      this.storeSubs.push(
        store.onChange((event, obj) => {
          for (const l of [...this.storeListeners]) l(kind, event, obj);
        }),
      );
    }
    // Events are extra: one that may not be watched is said once in the log, and the rest works.
    const events = watch.stores.events;
    let eventsRefusalTold = false;
    if (events)
      this.storeSubs.push(
        events.onHealthChange(() => {
          const why = events.lastError();
          if (why === undefined || eventsRefusalTold) return;
          eventsRefusalTold = true;
          this.opts.log.warn(`context "${conn.context}": rollout Events are not shown (the rest works): ${why}`);
        }),
      );
    // A watch that fails or recovers changes the context's row and the status bar.
    this.storeSubs.push(watch.onHealthChange(() => this.current.kind === 'connected' && this.emit('state')));
    await watch.settled;
    if (generation !== this.generation) return this.current;
    this.opts.log.info(
      `watching context "${conn.context}" (${conn.server}) in ${scope.namespaces ? `namespaces ${scope.namespaces.join(', ')}` : 'every namespace'}: ${scope.how}`,
    );
    const connected = this.setState({
      kind: 'connected',
      context: conn.context,
      conn,
      stores: watch.stores,
      scope,
      problems: () => watch.problems(),
    });
    this.pollReconciler();
    return connected;
  }

  /**
   * Looks now at who reconciles the connected context (and tells listeners when that changed).
   * The tree shows it; "Start Embedded Controller" asks it first.
   */
  async lookAtReconciler(): Promise<ReconcilerSummary | undefined> {
    const s = this.current;
    if (s.kind !== 'connected' || this.closing) return undefined;
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
    if (this.current !== s) return this.reconciler;
    const before = this.reconcilerSeen;
    this.reconcilerSeen = who;
    if (!before || reconcilerKey(before) !== reconcilerKey(who)) this.emit('controller');
    return who;
  }

  private pollReconciler(): void {
    clearInterval(this.reconcilerTimer);
    void this.lookAtReconciler();
    this.reconcilerTimer = setInterval(() => {
      if (this.current.kind === 'connected') void this.lookAtReconciler();
    }, this.opts.reconcilerPollMs ?? 10_000);
    this.reconcilerTimer.unref?.();
  }

  /**
   * The namespaces to offer in "Filter Namespaces", connected or not: those where the user may list
   * Rollouts (asked of the cluster of the context that is, or would be, watched), the context's,
   * and the ones chosen. `problem`: why only the known ones are offered.
   */
  async namespaceChoices(chosen: readonly string[]): Promise<{ namespaces: string[]; problem?: string }> {
    const known = (extra: string[]) => [...new Set([...extra, ...chosen])].sort();
    let conn = this.connection;
    if (!conn) {
      try {
        const wanted = this.picked || this.opts.context?.() || undefined;
        conn = cluster().connectWith(this.loadKubeconfig(), { ...(wanted ? { context: wanted } : {}), env: this.opts.env ?? process.env });
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
    return cluster().loadKubeconfig({ env: { ...(this.opts.env ?? process.env), KUBECONFIG: files.join(delimiter) } });
  }

  /**
   * Watches the kubeconfig files by polling their stat: kubectl rewrites them in place or by
   * rename, and a file that does not exist yet must be noticed when it appears, which fs.watch
   * does not do. A change reloads the contexts without touching the connection; with no
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
    if (this.current.kind === 'noKubeconfig') {
      void this.connect();
      return;
    }
    try {
      this.kc = cluster().loadKubeconfig({
        env: { ...(this.opts.env ?? process.env), KUBECONFIG: this.kubeconfigSources().join(delimiter) },
      });
      this.opts.log.info('the kubeconfig changed; contexts reloaded');
    } catch (e) {
      // A half-written file: the next write brings another change; keep the contexts we had.
      this.opts.log.warn(`the kubeconfig changed but cannot be read: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    this.emit('state');
  }

  private setState(state: SessionState): SessionState {
    this.current = state;
    if (state.kind === 'failed' || state.kind === 'noKubeconfig') this.opts.log.warn(state.message);
    this.emit('state');
    return state;
  }

  private disconnect(): void {
    clearInterval(this.reconcilerTimer);
    this.reconcilerTimer = undefined;
    this.storeSubs.forEach((s) => s.dispose());
    this.storeSubs = [];
    this.watch?.dispose();
    this.watch = undefined;
    if (this.current.kind !== 'idle') this.current = { kind: 'idle' };
  }

  /** Starts the local cluster with the demo rollouts, connects to it, and (by the setting) starts the embedded controller on it. */
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
    await this.connect(LOCAL_CONTEXT);
    if (settings.startController && this.current.kind === 'connected') await this.startController();
    return this.localCluster;
  }

  async stopLocalCluster(): Promise<void> {
    const local = this.localCluster;
    if (!local) return;
    if (this.controllerRun?.context === LOCAL_CONTEXT) await this.stopController();
    const wasConnected = this.current.kind !== 'idle' && 'context' in this.current && this.current.context === LOCAL_CONTEXT;
    if (wasConnected) this.disconnect();
    this.localCluster = undefined;
    if (this.picked === LOCAL_CONTEXT) this.picked = undefined;
    await closeLocal(local);
    this.opts.log.info('local cluster stopped');
    this.emit('local');
    await this.connect();
  }

  /**
   * Starts the embedded controller on the connected context; refuses (ControllerRefused) where Argo's
   * controller runs, or where that cannot be checked unless `force`. `takeOverIn`: the namespace of
   * the Lease another process's embedded controller holds, taken from it (it stops at its next renewal).
   */
  async startController(opts: { force?: boolean; takeOverIn?: string } = {}): Promise<EmbeddedController> {
    if (this.controllerRun) return this.controllerRun.controller;
    const conn = this.connection;
    if (!conn) throw new (cluster().ControllerRefused)('connect to a cluster context first');
    // Where the tree watches (a namespace-scoped user's namespaces, or the setting's), it reconciles; the Lease is kept in the first.
    const watched = this.current.kind === 'connected' ? this.current.scope.namespaces : undefined;
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
      void this.lookAtReconciler();
    });
    this.emit('controller');
    void this.lookAtReconciler();
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
    if (this.reconcilerSeen?.kind === 'embedded' && this.reconcilerSeen.here) this.reconcilerSeen = undefined;
    this.emit('controller');
  }

  /** Stops everything it started. */
  async close(): Promise<void> {
    this.closing = true;
    this.generation++;
    this.watchedFiles?.stop();
    this.watchedFiles = undefined;
    await this.stopController();
    this.disconnect();
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
