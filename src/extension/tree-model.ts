/**
 * The Rollouts tree as data, without `vscode` (tested in plain Node): the elements (keys, in
 * tree-elements.ts) have children and items that say label, description, codicon and context
 * value. tree.ts turns them into TreeItems; the view model is src/cluster's rolloutView.
 */
import type { ClusterStores, Experiment, ExperimentView, RolloutView } from '../cluster';
import { cluster } from './lazy-cluster';
import { l10n } from './l10n';
import { isCompletedPhase, offeredActions, stepProgress, type Rollout } from '../planner';
import { LOCAL_CONTEXT, type ReconcilerSummary, type SessionState } from './session';
import type { CommandId } from './command-specs';
import { canTerminate } from '../../webview/actions';
import { elementId, inExperiment, ofRollout, type ExperimentAt, type TreeElement } from './tree-elements';

export interface TreeItemData {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon id, with an optional theme colour id. */
  icon?: { id: string; color?: string };
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  command?: { command: CommandId; title: string; args: unknown[] };
}

/** What the tree reads; the Session provides it, tests build it by hand. */
export interface TreeSource {
  state: SessionState;
  contexts: readonly string[];
  local?: { url: string } | undefined;
  /** The embedded controller, where it runs, and the rollouts it cannot move on (`namespace/name` -> why). */
  controller?: { context: string; blocked?: ReadonlyMap<string, string> } | undefined;
  /** Who reconciles the connected context, as the session last saw it. */
  reconciler?: ReconcilerSummary | undefined;
  needsAttentionOnly: boolean;
  now: Date;
}

/** The context value of a rollout item: `rollout:promote:abort:` lists the actions the planner offers now, for the menus' `when`. */
export function rolloutContextValue(stores: ClusterStores, rollout: Rollout): string {
  const rss = cluster().relatedObjects(stores, rollout).replicaSets;
  const allowed = offeredActions(rollout, rss).map((o) => o.action);
  return `rollout:${allowed.map((a) => `${a}:`).join('')}`;
}

export function needsAttention(v: Pick<RolloutView, 'phase' | 'aborted'>): boolean {
  return v.phase === 'Paused' || v.phase === 'Degraded' || v.aborted;
}

export const PHASE_ICONS: Record<RolloutView['phase'], { id: string; color: string }> = {
  Healthy: { id: 'pass-filled', color: 'testing.iconPassed' },
  Progressing: { id: 'sync~spin', color: 'charts.blue' },
  Paused: { id: 'debug-pause', color: 'charts.yellow' },
  Degraded: { id: 'error', color: 'errorForeground' },
};

/** One line: phase, strategy, step N/M, weight, and a timed pause's countdown. */
export function rolloutDescription(v: RolloutView): string {
  const parts: string[] = [v.aborted ? 'Aborted' : v.phase, v.strategy === 'canary' ? 'canary' : 'blue-green'];
  if (v.step && v.step.count > 0) parts.push(l10n.t('step {0}', stepProgress(v.step.index, v.step.count)));
  if (v.weight) parts.push(l10n.t('weight {0}%', v.weight.actual));
  for (const p of v.pauses) {
    if (p.secondsLeft !== undefined) parts.push(l10n.t('resumes in {0}', cluster().shortDuration(p.secondsLeft)));
    else if (p.needsPromote) parts.push(l10n.t('waiting for promote'));
  }
  return parts.join(' · ');
}

/** Seconds until the soonest timed pause of this view ends (for the countdown's next tick). */
export function nextCountdown(v: RolloutView): number | undefined {
  const left = v.pauses.map((p) => p.secondsLeft).filter((s): s is number => s !== undefined && s > 0);
  return left.length ? Math.min(...left) : undefined;
}

export function viewOf(stores: ClusterStores, namespace: string, name: string, now: Date): RolloutView | undefined {
  const r = stores.rollouts.get(name, namespace);
  return r ? cluster().rolloutView(cluster().relatedObjects(stores, r), now) : undefined;
}

/** The rollouts shown under a namespace (all, or those needing attention), sorted by name. */
export function visibleRollouts(src: TreeSource, stores: ClusterStores, namespace?: string): Rollout[] {
  const all = [...stores.rollouts.list(namespace)].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  if (!src.needsAttentionOnly) return all;
  return all.filter((r) => needsAttention(cluster().rolloutView(cluster().relatedObjects(stores, r), src.now)));
}

/** An Experiment no rollout owns (created on its own); a rollout's step's Experiments show under its revision instead. */
export const isStandaloneExperiment = (ex: Experiment): boolean => !(ex.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Rollout');

/**
 * A standalone Experiment needs attention when it ended without success (Failed, Error,
 * Inconclusive), as a Degraded rollout does; Pending and Running are its normal course.
 */
export function experimentNeedsAttention(v: Pick<ExperimentView, 'phase'>): boolean {
  return v.phase === 'Failed' || v.phase === 'Error' || v.phase === 'Inconclusive';
}

/** The standalone Experiments shown under a namespace (all, or those needing attention), sorted by name. */
export function visibleStandaloneExperiments(
  src: Pick<TreeSource, 'needsAttentionOnly' | 'now'>,
  stores: ClusterStores,
  namespace?: string,
): Experiment[] {
  const all = stores.experiments
    .list(namespace)
    .filter(isStandaloneExperiment)
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  if (!src.needsAttentionOnly) return all;
  return all.filter((ex) => {
    const v = cluster().experimentViewFromStores(stores, ex.metadata?.namespace ?? '', ex.metadata?.name ?? '', src.now);
    return v !== undefined && experimentNeedsAttention(v);
  });
}

export function children(src: TreeSource, e: TreeElement | undefined): TreeElement[] {
  const stores = src.state.kind === 'connected' ? src.state.stores : undefined;
  if (!e) {
    // Nothing to show at all: the view's welcome content offers the local cluster instead.
    if (src.state.kind === 'noKubeconfig' && !src.local) return [];
    const names = [...src.contexts];
    const active = 'context' in src.state ? src.state.context : undefined;
    if (active && !names.includes(active)) names.unshift(active);
    return [{ kind: 'local' }, ...names.map((context): TreeElement => ({ kind: 'context', context }))];
  }
  switch (e.kind) {
    case 'local':
      return src.local ? [{ kind: 'controller' }] : [];
    case 'context': {
      if (!('context' in src.state) || src.state.context !== e.context) return [];
      if (src.state.kind === 'failed') return [{ kind: 'message', context: e.context, text: src.state.message }];
      if (src.state.kind === 'connecting') return [{ kind: 'message', context: e.context, text: l10n.t('connecting…') }];
      if (!stores) return [];
      const problems =
        src.state.kind === 'connected'
          ? src.state
              .problems()
              .map((p): TreeElement => ({ kind: 'watchProblem', context: e.context, resource: p.resource, text: p.message }))
          : [];
      const namespaces = [
        ...new Set([
          ...visibleRollouts(src, stores).map((r) => r.metadata?.namespace ?? ''),
          ...visibleStandaloneExperiments(src, stores).map((x) => x.metadata?.namespace ?? ''),
        ]),
      ].sort();
      if (namespaces.length === 0) {
        return [
          ...problems,
          {
            kind: 'message',
            context: e.context,
            text: src.needsAttentionOnly ? l10n.t('no rollout needs attention') : l10n.t('no rollouts in the watched namespaces'),
          },
        ];
      }
      return [...problems, ...namespaces.map((namespace): TreeElement => ({ kind: 'namespace', context: e.context, namespace }))];
    }
    case 'namespace':
      if (!stores || !isActive(src, e.context)) return [];
      // The rollouts, then the Experiments no rollout owns.
      return [
        ...visibleRollouts(src, stores, e.namespace).map(
          (r): TreeElement => ({ kind: 'rollout', context: e.context, namespace: e.namespace, name: r.metadata?.name ?? '' }),
        ),
        ...visibleStandaloneExperiments(src, stores, e.namespace).map(
          (x): TreeElement => ({ kind: 'experiment', context: e.context, namespace: e.namespace, experiment: x.metadata?.name ?? '' }),
        ),
      ];
    case 'rollout': {
      const v = stores && isActive(src, e.context) ? viewOf(stores, e.namespace, e.name, src.now) : undefined;
      return (v?.revisions ?? []).map((r) => ({
        kind: 'revision',
        context: e.context,
        namespace: e.namespace,
        rollout: e.name,
        revision: r.revision,
      }));
    }
    case 'revision': {
      const v = stores && isActive(src, e.context) ? viewOf(stores, e.namespace, e.rollout, src.now) : undefined;
      const rev = v?.revisions.find((r) => r.revision === e.revision);
      if (!rev) return [];
      // Upstream's order: the ReplicaSets (here their pods), the Experiments, the runs.
      return [
        ...rev.replicaSets.flatMap((rs) =>
          rs.pods.map((p): TreeElement => ({ kind: 'pod', ...ofRollout(e), revision: e.revision, pod: p.name })),
        ),
        ...rev.experiments.map((x): TreeElement => ({ kind: 'experiment', ...ofRollout(e), revision: e.revision, experiment: x.name })),
        ...rev.analysisRuns.map((a): TreeElement => ({ kind: 'analysisRun', ...ofRollout(e), revision: e.revision, run: a.name })),
      ];
    }
    case 'experiment': {
      const ex = stores && isActive(src, e.context) ? experimentAt(stores, e, src.now) : undefined;
      if (!ex) return [];
      const at = inExperiment(e);
      return [
        ...ex.replicaSets.map((rs): TreeElement => ({ kind: 'replicaSet', ...at, replicaSet: rs.name })),
        ...ex.analysisRuns.map((a): TreeElement => ({ kind: 'analysisRun', ...at, run: a.name })),
      ];
    }
    case 'replicaSet': {
      const ex = stores && isActive(src, e.context) ? experimentAt(stores, e, src.now) : undefined;
      const rs = ex?.replicaSets.find((r) => r.name === e.replicaSet);
      return (rs?.pods ?? []).map((p) => ({ kind: 'pod', ...inExperiment(e), replicaSet: e.replicaSet, pod: p.name }));
    }
    default:
      return [];
  }
}

/** Experiment NAME of revision REVISION in a rollout's view. */
const experimentOf = (v: RolloutView | undefined, revision: number, name: string): ExperimentView | undefined =>
  v?.revisions.find((r) => r.revision === revision)?.experiments.find((x) => x.name === name);
/** The view of the Experiment a row is in: from its rollout's revision, or for a standalone one, from the stores by name. */
function experimentAt(stores: ClusterStores, e: ExperimentAt, now: Date): ExperimentView | undefined {
  if (e.rollout !== undefined) return experimentOf(viewOf(stores, e.namespace, e.rollout, now), e.revision, e.experiment);
  const ex = cluster().experimentViewFromStores(stores, e.namespace, e.experiment, now);
  // A standalone row names no rollout: an Experiment a rollout owns is shown under that rollout, not here.
  return ex && isStandaloneExperiment(stores.experiments.get(e.experiment, e.namespace)!) ? ex : undefined;
}
/** An Experiment row's description: phase, the step that started it (if any), its template count. */
export const experimentDescription = (ex: ExperimentView): string =>
  [
    ex.phase,
    ex.stepIndex !== undefined ? l10n.t('step {0}', ex.stepIndex) : '',
    ex.replicaSets.length === 1 ? l10n.t('1 template') : l10n.t('{0} templates', ex.replicaSets.length),
  ]
    .filter(Boolean)
    .join(' · ');
/** An Experiment's phase as a codicon, with a colour when it has ended. */
function experimentIcon(phase: string): { id: string; color?: string } {
  if (phase === 'Successful') return { id: 'beaker', color: 'testing.iconPassed' };
  if (phase === 'Failed' || phase === 'Error') return { id: 'beaker', color: 'errorForeground' };
  if (phase === 'Inconclusive') return { id: 'beaker', color: 'charts.yellow' };
  return { id: 'beaker', color: 'charts.blue' };
}
const isActive = (src: TreeSource, context: string) => src.state.kind === 'connected' && src.state.context === context;

/** Connected to a local cluster this window did not start (`npm start`, `rollouts cluster`): it runs, elsewhere. */
export const localClusterElsewhere = (src: Pick<TreeSource, 'state' | 'local'>): boolean =>
  !src.local && src.state.kind === 'connected' && src.state.context === LOCAL_CONTEXT;

/**
 * Who reconciles a connected context, for its row: `short` for the description, `long` for the
 * tooltip. This window's running controller counts before the first look at the cluster.
 */
export function reconcilerText(
  src: Pick<TreeSource, 'reconciler' | 'controller'>,
  context: string,
): { short: string; long: string } | undefined {
  const r = src.reconciler?.context === context ? src.reconciler : undefined;
  if (!r)
    return src.controller?.context === context
      ? { short: l10n.t('embedded controller here'), long: l10n.t('Reconciled by the embedded controller of this window.') }
      : undefined;
  switch (r.kind) {
    case 'argo':
      return { short: l10n.t('Argo controller'), long: l10n.t('Reconciled by the Argo Rollouts controller: {0}.', r.how) };
    case 'embedded':
      return r.here
        ? {
            short: l10n.t('embedded controller here'),
            long: l10n.t(
              'Reconciled by the embedded controller of this window (Lease {0}/{1}, holder {2}).',
              r.namespace,
              cluster().DEFAULT_LEASE_NAME,
              r.holder,
            ),
          }
        : {
            short: l10n.t('embedded, other process'),
            long: r.renewTime
              ? l10n.t(
                  'Reconciled by an embedded controller in another process (npm start, `rollouts controller` or another window): Lease {0}/{1} is held by {2}, renewed at {3}.',
                  r.namespace,
                  cluster().DEFAULT_LEASE_NAME,
                  r.holder,
                  r.renewTime,
                )
              : l10n.t(
                  'Reconciled by an embedded controller in another process (npm start, `rollouts controller` or another window): Lease {0}/{1} is held by {2}.',
                  r.namespace,
                  cluster().DEFAULT_LEASE_NAME,
                  r.holder,
                ),
          };
    case 'none':
      return r.unchecked.length
        ? {
            short: l10n.t('no controller seen'),
            long: l10n.t('No controller seen, but some places could not be looked at: {0}.', r.unchecked.join(', ')),
          }
        : {
            short: l10n.t('no controller'),
            long: l10n.t('No controller reconciles these Rollouts: start the embedded controller to run them.'),
          };
    case 'unknown':
      return { short: '', long: l10n.t('Who reconciles is unknown: {0}', r.why) };
  }
}

export function item(src: TreeSource, e: TreeElement): TreeItemData {
  const id = elementId(e);
  const stores = src.state.kind === 'connected' && 'context' in e && isActive(src, e.context) ? src.state.stores : undefined;
  switch (e.kind) {
    case 'local':
      // Descriptions short enough for the default side bar; the address is in the tooltip.
      if (src.local)
        return {
          id,
          label: l10n.t('Local cluster'),
          description: l10n.t('running'),
          tooltip: l10n.t('The local cluster runs in this window at {0}.', src.local.url),
          icon: { id: 'vm-running', color: 'charts.green' },
          contextValue: 'localCluster:running',
          collapsible: 'expanded',
        };
      if (localClusterElsewhere(src) && src.state.kind === 'connected') {
        return {
          id,
          label: l10n.t('Local cluster'),
          description: l10n.t('running elsewhere'),
          icon: { id: 'vm-running', color: 'charts.green' },
          contextValue: 'localCluster:external',
          collapsible: 'none',
          tooltip: l10n.t(
            'Runs in another process at {0}, started outside this window (npm start or `rollouts cluster`): stop it where it was started.',
            src.state.conn.server,
          ),
        };
      }
      return {
        id,
        label: l10n.t('Local cluster'),
        description: l10n.t('stopped'),
        tooltip: l10n.t('Click to start it, with the demo rollouts and the embedded controller.'),
        icon: { id: 'vm-outline' },
        contextValue: 'localCluster:stopped',
        collapsible: 'none',
        command: { command: 'rollouts.startLocalCluster', title: l10n.t('Start Local Cluster'), args: [] },
      };
    case 'controller':
      return src.controller
        ? {
            id,
            label: l10n.t('Embedded controller'),
            description: l10n.t('running'),
            tooltip: l10n.t('Reconciles the Rollouts of context "{0}".', src.controller.context),
            icon: { id: 'run-all', color: 'charts.green' },
            contextValue: 'controller:running',
            collapsible: 'none',
          }
        : {
            id,
            label: l10n.t('Embedded controller'),
            description: l10n.t('stopped'),
            icon: { id: 'circle-slash' },
            contextValue: 'controller:stopped',
            collapsible: 'none',
          };
    case 'context': {
      const active = 'context' in src.state && src.state.context === e.context ? src.state : undefined;
      if (!active) {
        return {
          id,
          label: e.context,
          description: l10n.t('not connected'),
          icon: { id: 'plug' },
          contextValue: 'context:inactive',
          collapsible: 'none',
          command: { command: 'rollouts.selectContext', title: l10n.t('Connect'), args: [e.context] },
        };
      }
      const failing = active.kind === 'connected' ? active.problems().length : 0;
      // Short enough for the default side bar: who reconciles, and what fails; the server is in the tooltip.
      const who = active.kind === 'connected' ? reconcilerText(src, e.context) : undefined;
      const description =
        active.kind === 'connected'
          ? [who?.short, failing ? (failing === 1 ? l10n.t('1 watch failing') : l10n.t('{0} watches failing', failing)) : '']
              .filter(Boolean)
              .join(' · ')
          : active.kind === 'failed'
            ? l10n.t('cannot connect')
            : l10n.t('connecting…');
      const tooltip =
        active.kind === 'connected' ? [`${e.context}: ${active.conn.server}`, who?.long].filter(Boolean).join('\n') : undefined;
      const icon =
        active.kind === 'failed'
          ? { id: 'debug-disconnect', color: 'errorForeground' }
          : failing
            ? { id: 'warning', color: 'problemsWarningIcon.foreground' }
            : { id: 'cloud', color: 'charts.green' };
      return {
        id,
        label: e.context,
        description,
        ...(tooltip ? { tooltip } : {}),
        icon,
        contextValue: `context:${active.kind}`,
        collapsible: 'expanded',
      };
    }
    case 'message':
      return { id, label: e.text, icon: { id: 'info' }, contextValue: 'message', collapsible: 'none', tooltip: e.text };
    case 'watchProblem':
      return {
        id,
        label: l10n.t('cannot watch {0}', e.resource),
        description: e.text,
        icon: { id: 'warning', color: 'problemsWarningIcon.foreground' },
        contextValue: 'watchProblem',
        collapsible: 'none',
        tooltip: `${e.resource}: ${e.text}\n${l10n.t('The watch retries by itself; the rest of the view works.')}`,
      };
    case 'namespace': {
      const count = stores ? visibleRollouts(src, stores, e.namespace).length : 0;
      const experiments = stores ? visibleStandaloneExperiments(src, stores, e.namespace).length : 0;
      const description = `${count} rollout${count === 1 ? '' : 's'}${experiments ? ` · ${experiments} experiment${experiments === 1 ? '' : 's'}` : ''}`;
      return { id, label: e.namespace, description, icon: { id: 'symbol-namespace' }, contextValue: 'namespace', collapsible: 'expanded' };
    }
    case 'rollout': {
      const rollout = stores?.rollouts.get(e.name, e.namespace);
      if (!stores || !rollout) return { id, label: e.name, description: l10n.t('gone'), contextValue: 'rollout:gone', collapsible: 'none' };
      const v = cluster().rolloutView(cluster().relatedObjects(stores, rollout), src.now);
      // The embedded controller of this context holds it (a traffic router it cannot drive): said where it is seen.
      const blocked = src.controller?.context === e.context ? src.controller.blocked?.get(`${e.namespace}/${e.name}`) : undefined;
      const tooltip = `${e.namespace}/${e.name}: ${v.phase}${v.message ? ` (${v.message})` : ''}\n${v.images.map((i) => `${i.image} (${i.tags.join(', ')})`).join('\n')}`;
      return {
        id,
        label: e.name,
        description: blocked ? `${rolloutDescription(v)} · held by the embedded controller` : rolloutDescription(v),
        tooltip: blocked ? `${tooltip}\nThe embedded controller holds it: ${blocked}` : tooltip,
        icon: blocked ? { id: 'warning', color: 'list.warningForeground' } : PHASE_ICONS[v.phase],
        contextValue: rolloutContextValue(stores, rollout),
        collapsible: 'collapsed',
        command: {
          command: 'rollouts.openRollout',
          title: l10n.t('Open Rollout'),
          args: [{ context: e.context, namespace: e.namespace, name: e.name }],
        },
      };
    }
    case 'revision': {
      const rev = stores ? viewOf(stores, e.namespace, e.rollout, src.now)?.revisions.find((r) => r.revision === e.revision) : undefined;
      const rs = rev?.replicaSets[0];
      const tags = [...new Set(rev?.replicaSets.flatMap((r) => r.tags) ?? [])];
      const description = rs
        ? [tags.join(', '), `${rs.available}/${rs.desired} available`, rs.images.join(', ')].filter(Boolean).join(' · ')
        : '';
      return {
        id,
        label: l10n.t('revision {0}', e.revision),
        description,
        tooltip: rev?.replicaSets.map((r) => r.name).join('\n'),
        icon: { id: 'versions' },
        contextValue: 'revision',
        collapsible: 'collapsed',
      };
    }
    case 'experiment': {
      const ex = stores ? experimentAt(stores, e, src.now) : undefined;
      const description = ex ? experimentDescription(ex) : l10n.t('gone');
      return {
        id,
        label: e.experiment,
        description,
        tooltip: ex
          ? ex.message
            ? l10n.t('Experiment {0}: {1} ({2})', ex.name, ex.phase, ex.message)
            : l10n.t('Experiment {0}: {1}', ex.name, ex.phase)
          : undefined,
        icon: experimentIcon(ex?.phase ?? ''),
        contextValue: experimentContextValue(ex),
        collapsible: ex && ex.replicaSets.length + ex.analysisRuns.length > 0 ? 'collapsed' : 'none',
      };
    }
    case 'replicaSet': {
      const rs = stores ? experimentAt(stores, e, src.now)?.replicaSets.find((r) => r.name === e.replicaSet) : undefined;
      const description = rs
        ? [
            rs.template ? l10n.t('template {0}', rs.template) : '',
            rs.status,
            l10n.t('{0}/{1} available', rs.available, rs.desired),
            rs.images.join(', '),
          ]
            .filter(Boolean)
            .join(' · ')
        : l10n.t('gone');
      return {
        id,
        label: e.replicaSet,
        description,
        icon: { id: 'layers' },
        contextValue: 'replicaSet',
        collapsible: rs && rs.pods.length > 0 ? 'collapsed' : 'none',
      };
    }
    case 'pod': {
      const replicaSets = !stores
        ? []
        : e.experiment !== undefined
          ? (experimentAt(stores, e, src.now)?.replicaSets.filter((r) => r.name === e.replicaSet) ?? [])
          : (viewOf(stores, e.namespace, e.rollout, src.now)?.revisions.find((r) => r.revision === e.revision)?.replicaSets ?? []);
      const pod = replicaSets.flatMap((r) => r.pods).find((p) => p.name === e.pod);
      const ready = pod ? pod.ready.split('/')[0] === pod.ready.split('/')[1] && pod.status === 'Running' : false;
      return {
        id,
        label: e.pod,
        description: pod
          ? [pod.status, l10n.t('ready {0}', pod.ready), pod.restarts ? l10n.t('{0} restarts', pod.restarts) : '']
              .filter(Boolean)
              .join(' · ')
          : l10n.t('gone'),
        icon: ready ? { id: 'circle-filled', color: 'testing.iconPassed' } : { id: 'circle-outline', color: 'charts.yellow' },
        contextValue: 'pod',
        collapsible: 'none',
      };
    }
    case 'analysisRun': {
      const runs = !stores
        ? []
        : e.experiment !== undefined
          ? (experimentAt(stores, e, src.now)?.analysisRuns ?? [])
          : (viewOf(stores, e.namespace, e.rollout, src.now)?.revisions.find((r) => r.revision === e.revision)?.analysisRuns ?? []);
      const run = runs.find((a) => a.name === e.run);
      const counts = run?.counts ? ` · ✔ ${run.counts.successful} ✖ ${run.counts.failed}` : '';
      const failed = run?.phase === 'Failed' || run?.phase === 'Error';
      return {
        id,
        label: e.run,
        description: run ? `${run.phase}${counts}` : l10n.t('gone'),
        tooltip: run?.message,
        icon: failed ? { id: 'graph', color: 'errorForeground' } : { id: 'graph' },
        contextValue: analysisRunContextValue(run),
        collapsible: 'none',
      };
    }
  }
}

/** `analysisRun:running` for a run that can still be terminated (the menus' `when` reads it), else `analysisRun:ended`. */
export function analysisRunContextValue(run: { phase: string } | undefined): string {
  return run && canTerminate(run) ? 'analysisRun:running' : 'analysisRun:ended';
}

/** `experiment:running` for an Experiment that has not ended (Terminate Experiment's menus read it), else `experiment:ended`. */
export function experimentContextValue(ex: { phase: string } | undefined): string {
  return ex && !isCompletedPhase(ex.phase) ? 'experiment:running' : 'experiment:ended';
}

/**
 * Which elements a store event changes. A rollout's own change re-renders it (its namespace too
 * when it appears, disappears, or the attention filter may move it); a ReplicaSet, Pod,
 * AnalysisRun or Experiment re-renders the rollout that owns it, directly or through an Experiment.
 * A standalone Experiment is like a rollout: its own change re-renders its row (its context when
 * it appears or disappears, its namespace under the attention filter), its objects' re-render its row.
 */
export function affectedElements(
  context: string,
  stores: ClusterStores,
  kind: keyof ClusterStores,
  event: 'add' | 'update' | 'delete',
  obj: unknown,
  needsAttentionOnly: boolean,
): TreeElement[] {
  type Owners = { ownerReferences?: { kind?: string; name?: string }[] } | undefined;
  const meta = (obj as { metadata?: { name?: string; namespace?: string } & Owners }).metadata ?? {};
  const namespace = meta.namespace ?? '';
  const rolloutEl = (name: string): TreeElement => ({ kind: 'rollout', context, namespace, name });
  const ownerName = (m: Owners, kind: string) => (m?.ownerReferences ?? []).find((o) => o.kind === kind)?.name;
  /** The row showing an object: the rollout owning it, itself or through its Experiment, or the standalone Experiment owning it. */
  const owningRow = (m: Owners): TreeElement[] => {
    const rollout = ownerName(m, 'Rollout');
    if (rollout) return [rolloutEl(rollout)];
    const experiment = ownerName(m, 'Experiment');
    const ex = experiment ? stores.experiments.get(experiment, namespace) : undefined;
    if (!experiment || !ex) return [];
    const exRollout = ownerName(ex.metadata, 'Rollout');
    return [exRollout ? rolloutEl(exRollout) : { kind: 'experiment', context, namespace, experiment }];
  };
  switch (kind) {
    case 'rollouts':
      if (event !== 'update') return [{ kind: 'context', context }];
      return needsAttentionOnly ? [{ kind: 'namespace', context, namespace }] : [rolloutEl(meta.name ?? '')];
    case 'experiments':
      if (ownerName(meta, 'Rollout')) return owningRow(meta);
      if (event !== 'update') return [{ kind: 'context', context }];
      return needsAttentionOnly
        ? [{ kind: 'namespace', context, namespace }]
        : [{ kind: 'experiment', context, namespace, experiment: meta.name ?? '' }];
    case 'replicaSets':
    case 'analysisRuns':
      return owningRow(meta);
    case 'pods': {
      const rsName = ownerName(meta, 'ReplicaSet');
      return owningRow(rsName ? stores.replicaSets.get(rsName, namespace)?.metadata : undefined);
    }
    case 'services':
      return [];
  }
}

/** The status bar's and the view badge's counts over every watched rollout (`attention`: those the filter keeps). */
export function attentionCounts(stores: ClusterStores, now: Date): { total: number; paused: number; degraded: number; attention: number } {
  let paused = 0;
  let degraded = 0;
  let attention = 0;
  const all = stores.rollouts.list();
  for (const r of all) {
    const v = cluster().rolloutView(cluster().relatedObjects(stores, r), now);
    if (v.phase === 'Paused') paused++;
    else if (v.phase === 'Degraded') degraded++;
    if (needsAttention(v)) attention++;
  }
  return { total: all.length, paused, degraded, attention };
}
