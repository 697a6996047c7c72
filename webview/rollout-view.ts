/**
 * The live view of one rollout, rendered from the host's RolloutView: header and actions, the
 * pause with its countdown, the canary steps, traffic and replica bars, images, revisions with
 * their ReplicaSets and pods, the Experiments started for them (template ReplicaSets, pods, runs),
 * and analysis runs with their metrics (analysis-view.ts). A pure function of its inputs to a DOM tree.
 */
import { ACTIONS } from '../src/cluster/action-catalog';
import { canTerminate } from './actions';
import { bar, h, icon, table, type Child } from './dom';
import { analysisRun, terminateButton, type TerminateControl } from './analysis-view';
import { clock, phaseIcon, plural, runIcon } from './format';
import type { ActionArgs, ActionName, ActionOffer, RolloutView, StepDescription } from './protocol';
import { stepProgress, stepText } from '../src/planner/step-description';
import { humanDuration } from '../src/kube';

type ReplicaSetView = RolloutView['revisions'][number]['replicaSets'][number];
type ExperimentView = RolloutView['revisions'][number]['experiments'][number];
type PauseView = RolloutView['pauses'][number];
type EventView = NonNullable<RolloutView['events']>[number];

export interface RolloutRenderContext {
  context?: string;
  /** The actions the planner offers now (the host sends them); the primary one is the prominent button. */
  actions: readonly ActionOffer[];
  /** When the view arrived (ms, the page clock): countdowns run from here. */
  receivedAt: number;
  /** Actions sent and not yet answered: their buttons show as busy. */
  pending: ReadonlySet<ActionName>;
  /** The answer to the last action, shown under the toolbar. */
  notice?: { ok: boolean; text: string };
  /** Why the embedded controller cannot move this rollout on (a traffic router it cannot drive). */
  heldBy?: string;
  onAction(action: ActionName, args?: ActionArgs): void;
  /** Stopping a running analysis run or Experiment (absent: no Terminate buttons). */
  terminate?: TerminateControl;
  /** Following a pod's logs in a terminal (absent: no Logs buttons). */
  onShowLogs?(pod: string): void;
  /** Revisions the user opened or closed: kept across re-renders. */
  openRevisions: ReadonlyMap<number, boolean>;
  onToggleRevision(revision: number, open: boolean): void;
}

/** A span the page's ticker counts down to `deadline` (ms). */
export function countdown(deadline: number, now: number, cls = ''): HTMLElement {
  return h('span', { class: `countdown${cls ? ` ${cls}` : ''}`, data: { deadline } }, clock((deadline - now) / 1000));
}

function section(title: string, id: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'section', data: { section: id } }, h('h2', null, title), ...children);
}

function tag(name: string): HTMLElement {
  return h('vscode-badge', { class: `tag tag-${name}`, attrs: { variant: 'default' } }, name);
}

function actionButton(offer: ActionOffer, ctx: RolloutRenderContext, args?: ActionArgs, label?: string): HTMLElement {
  const { action } = offer;
  const info = ACTIONS[action];
  const busy = ctx.pending.has(action);
  return h(
    'vscode-button',
    {
      class: `action${offer.primary ? ' primary' : ''}${offer.caution ? ' caution' : ''}`,
      title: offer.caution ? `${info.description}. Asks first: ${offer.caution}` : info.description,
      data: { action, ...(offer.primary ? { primary: 'true' } : {}) },
      attrs: { icon: busy ? 'loading' : info.icon, secondary: !offer.primary, disabled: busy, 'icon-spin': busy },
      on: { click: () => ctx.onAction(action, args) },
    },
    label ?? info.title,
  );
}

function header(view: RolloutView, ctx: RolloutRenderContext): HTMLElement {
  const p = phaseIcon(view.phase);
  const where = [view.namespace, ctx.context].filter(Boolean).join(' · ');
  return h(
    'header',
    { class: 'rollout-header' },
    h(
      'div',
      { class: 'title-line' },
      icon(p.icon, `phase-icon ${p.cls}`),
      h('h1', { class: 'rollout-name' }, view.name),
      h('span', { class: 'where' }, where),
      h(
        'span',
        { class: `phase phase-${view.phase.toLowerCase()}`, data: { phase: view.phase } },
        view.aborted ? `${view.phase} (aborted)` : view.phase,
      ),
      h('span', { class: 'strategy' }, view.strategy === 'canary' ? 'Canary' : 'Blue-green'),
      // Steps are numbered from 0 everywhere, as Argo's status.currentStepIndex and `kubectl argo rollouts get` count them.
      view.step ? h('span', { class: 'step-count' }, `Step ${stepProgress(view.step.index, view.step.count)}`) : null,
    ),
    view.message ? h('p', { class: 'message' }, view.message) : null,
  );
}

function toolbar(ctx: RolloutRenderContext): HTMLElement {
  return h(
    'div',
    { class: 'toolbar', attrs: { role: 'toolbar', 'aria-label': 'Rollout actions' } },
    // The action the state calls for first, then the others in catalog order.
    ...[...ctx.actions].sort((a, b) => Number(b.primary) - Number(a.primary)).map((a) => actionButton(a, ctx)),
  );
}

function pauseBanner(pause: PauseView, view: RolloutView, ctx: RolloutRenderContext): HTMLElement {
  const why: Record<string, string> = {
    Manual: 'Paused by a person',
    CanaryPauseStep: view.step ? `Paused at step ${view.step.index}${pausedStep(view)}` : 'Paused at a pause step',
    BlueGreenPause: 'The preview is up; the active Service still points at the stable version',
    InconclusiveAnalysisRun: 'An analysis was inconclusive',
    InconclusiveExperiment: 'An experiment was inconclusive',
  };
  const parts: Child[] = [
    icon(pause.needsPromote ? 'person' : 'watch'),
    h('span', { class: 'pause-why' }, why[pause.reason] ?? pause.reason),
  ];
  if (pause.secondsLeft !== undefined) {
    parts.push(
      h(
        'span',
        { class: 'pause-left' },
        view.strategy === 'blueGreen' ? ' · promotes itself in ' : ' · resumes in ',
        countdown(ctx.receivedAt + pause.secondsLeft * 1000, ctx.receivedAt),
      ),
    );
  } else if (pause.needsPromote) {
    parts.push(h('span', { class: 'pause-left' }, ' · waits for a promote'));
  } else if (pause.reason === 'Manual') {
    parts.push(h('span', { class: 'pause-left' }, ' · waits for resume'));
  }
  return h('div', { class: `banner ${pause.needsPromote ? 'banner-person' : 'banner-timed'}`, data: { pause: pause.reason } }, ...parts);
}

/** The setWeight in force at each step (the last setWeight at or before it). */
export function stepWeights(steps: readonly { description: StepDescription }[]): (number | undefined)[] {
  let weight: number | undefined;
  return steps.map(({ description: d }) => {
    if (d.kind === 'setWeight' && d.weight !== undefined) weight = d.weight;
    return weight;
  });
}

/** " (pause 30s)": the pause step the rollout waits at, as every view writes it. */
function pausedStep(view: RolloutView): string {
  const current = view.step?.steps[view.step.index];
  return current ? ` (${stepText(current.description)})` : '';
}

function steps(view: RolloutView): HTMLElement | null {
  if (!view.step) return null;
  if (view.step.count === 0) return section('Steps', 'steps', h('p', { class: 'muted' }, 'No steps: an update goes straight to 100%.'));
  const weights = stepWeights(view.step.steps);
  const done = view.step.index >= view.step.count;
  const list = h(
    'ol',
    { class: 'steps' },
    ...view.step.steps.map((s, i) =>
      h(
        'li',
        {
          class: `step step-${s.state}`,
          data: { state: s.state, kind: s.description.kind },
          attrs: { 'aria-current': s.state === 'current' ? 'step' : undefined },
        },
        icon(
          s.state === 'done'
            ? 'pass-filled'
            : s.state === 'current'
              ? view.aborted
                ? 'circle-slash'
                : view.pauses.length
                  ? 'debug-pause'
                  : 'arrow-right'
              : 'circle-large-outline',
          'step-marker',
        ),
        h('span', { class: 'step-number' }, `${i}`),
        h('span', { class: 'step-text' }, stepText(s.description)),
        weights[i] !== undefined
          ? h('span', { class: 'step-weight', title: 'canary weight in force at this step' }, `${weights[i]}%`)
          : null,
      ),
    ),
  );
  return section('Steps', 'steps', list, done ? h('p', { class: 'muted' }, 'All steps done.') : null);
}

function replicaBar(rs: ReplicaSetView, max: number, role: string): HTMLElement {
  const scale = max > 0 ? 100 / max : 0;
  return h(
    'div',
    { class: 'replica-row', data: { rs: rs.name } },
    h('span', { class: 'replica-label' }, role),
    bar(
      [
        { share: rs.available * scale, class: `role-${role}`, label: `${rs.available} available` },
        {
          share: Math.max(0, rs.desired - rs.available) * scale,
          class: `role-${role} pending`,
          label: `${Math.max(0, rs.desired - rs.available)} not yet available`,
        },
      ],
      `${role}: ${rs.available} of ${rs.desired} available`,
    ),
    h('span', { class: 'replica-count' }, `${rs.available}/${rs.desired}`),
  );
}

function traffic(view: RolloutView): HTMLElement {
  const rss = view.revisions.flatMap((r) => r.replicaSets);
  const withTag = (t: string) => rss.find((rs) => rs.tags.includes(t as ReplicaSetView['tags'][number]));
  const rows: Child[] = [];
  if (view.strategy === 'canary') {
    // Once fully promoted the new version is the stable: all of the traffic is the stable's.
    const promoted = !withTag('canary') && withTag('stable') !== undefined;
    const canaryWeight = promoted ? 0 : (view.weight?.actual ?? 0);
    rows.push(
      h(
        'div',
        { class: 'traffic-row' },
        h('span', { class: 'replica-label' }, 'traffic'),
        bar(
          [
            { share: 100 - canaryWeight, class: 'role-stable', label: `stable ${100 - canaryWeight}%` },
            { share: canaryWeight, class: 'role-canary', label: `canary ${canaryWeight}%` },
          ],
          `stable ${100 - canaryWeight}%, canary ${canaryWeight}%`,
        ),
        h('span', { class: 'traffic-split', data: { weight: canaryWeight } }, promoted ? '100% stable' : `${canaryWeight}% canary`),
      ),
    );
    if (!promoted && view.weight && view.weight.set !== view.weight.actual)
      rows.push(h('p', { class: 'muted' }, `setWeight ${view.weight.set}% in force; traffic is at ${view.weight.actual}%.`));
  } else {
    const active = withTag('active');
    const preview = withTag('preview');
    rows.push(
      h(
        'p',
        { class: 'services' },
        icon('arrow-right'),
        ' active Service → ',
        h('b', null, active ? `revision ${active.revision}` : 'none'),
        preview ? h('span', null, '   ', icon('eye'), ' preview Service → ', h('b', null, `revision ${preview.revision}`)) : null,
      ),
    );
  }
  const tagged: [string, ReplicaSetView | undefined][] =
    view.strategy === 'canary'
      ? [
          ['stable', withTag('stable')],
          ['canary', withTag('canary')],
        ]
      : [
          ['active', withTag('active')],
          ['preview', withTag('preview')],
        ];
  const shown = tagged.filter((t): t is [string, ReplicaSetView] => t[1] !== undefined);
  const max = Math.max(1, view.replicas.desired, ...shown.map(([, rs]) => Math.max(rs.desired, rs.available)));
  rows.push(...shown.map(([role, rs]) => replicaBar(rs, max, role)));
  const r = view.replicas;
  rows.push(
    h(
      'p',
      { class: 'muted replica-summary' },
      `Desired ${r.desired} · current ${r.current} · updated ${r.updated} · ready ${r.ready} · available ${r.available}`,
    ),
  );
  return section(view.strategy === 'canary' ? 'Traffic and replicas' : 'Services and replicas', 'traffic', ...rows);
}

function images(view: RolloutView): HTMLElement | null {
  if (view.images.length === 0) return null;
  return section(
    'Images',
    'images',
    h('ul', { class: 'images' }, ...view.images.map((img) => h('li', null, h('code', null, img.image), ' ', ...img.tags.map(tag)))),
  );
}

function pods(rs: ReplicaSetView, onShowLogs?: (pod: string) => void): HTMLElement | null {
  if (rs.pods.length === 0) return null;
  return table(
    'pods',
    ['Pod', 'Status', 'Ready', 'Restarts', ...(onShowLogs ? [''] : [])],
    rs.pods.map((p) =>
      h(
        'tr',
        { data: { pod: p.name } },
        h('td', null, h('code', null, p.name)),
        h('td', { class: p.status === 'Running' ? 'ok' : /Terminating|Pending|not ready/.test(p.status) ? 'paused' : 'bad' }, p.status),
        h('td', null, p.ready),
        h('td', { class: p.restarts > 0 ? 'paused' : '' }, String(p.restarts)),
        onShowLogs
          ? h(
              'td',
              null,
              h(
                'vscode-button',
                {
                  class: 'show-logs',
                  title: `Follow the logs of ${p.name} in a terminal`,
                  data: { logs: p.name },
                  attrs: { icon: 'list-flat', secondary: true },
                  on: { click: () => onShowLogs(p.name) },
                },
                'Logs',
              ),
            )
          : null,
      ),
    ),
  );
}

function replicaSet(rs: ReplicaSetView, ctx: RolloutRenderContext): HTMLElement {
  return h(
    'div',
    { class: 'replica-set', data: { rs: rs.name } },
    h(
      'div',
      { class: 'rs-line' },
      icon('layers'),
      h('code', { class: 'rs-name' }, rs.name),
      rs.template ? h('span', { class: 'rs-template muted', title: 'experiment template' }, `template ${rs.template}`) : null,
      ...rs.tags.map(tag),
      h('span', { class: 'rs-status' }, rs.status),
      h('span', { class: 'rs-counts', title: 'available / desired' }, `${rs.available}/${rs.desired} available`),
      rs.secondsToScaleDown !== undefined
        ? h('span', { class: 'muted' }, ' · scales down in ', countdown(ctx.receivedAt + rs.secondsToScaleDown * 1000, ctx.receivedAt))
        : null,
    ),
    rs.images.length ? h('div', { class: 'rs-images' }, ...rs.images.map((i) => h('code', null, i))) : null,
    pods(rs, ctx.onShowLogs),
  );
}

/** An Experiment of the revision: its phase (and Terminate while it runs), then its template ReplicaSets (with pods) and its runs. */
function experiment(ex: ExperimentView, ctx: RolloutRenderContext): HTMLElement {
  const p = runIcon(ex.phase);
  return h(
    'div',
    { class: 'experiment', data: { experiment: ex.name, phase: ex.phase } },
    h(
      'div',
      { class: 'experiment-line' },
      icon('beaker'),
      h('code', { class: 'experiment-name' }, ex.name),
      h('span', { class: `experiment-phase ${p.cls}` }, ex.phase),
      h('span', { class: 'experiment-kind muted' }, ex.stepIndex !== undefined ? `experiment of step ${ex.stepIndex}` : 'experiment'),
      ctx.terminate && canTerminate(ex) ? terminateButton('experiment', ex.name, ctx.terminate) : null,
    ),
    ex.message ? h('div', { class: 'run-message' }, ex.message) : null,
    h(
      'div',
      { class: 'experiment-body' },
      ...ex.replicaSets.map((rs) => replicaSet(rs, ctx)),
      ...ex.analysisRuns.map((run) => analysisRun(run, false, ctx.terminate)),
    ),
  );
}

function revisions(view: RolloutView, ctx: RolloutRenderContext): HTMLElement | null {
  if (view.revisions.length === 0) return null;
  const undo = ctx.actions.find((a) => a.action === 'undo');
  const newest = Math.max(...view.revisions.map((r) => r.revision));
  return section(
    'Revisions',
    'revisions',
    ...view.revisions.map((rev) => {
      const tags = [...new Set(rev.replicaSets.flatMap((rs) => rs.tags))];
      const live = tags.length > 0 || rev.revision === newest;
      const body = h(
        'div',
        { class: 'revision-body' },
        ...rev.replicaSets.map((rs) => replicaSet(rs, ctx)),
        ...rev.experiments.map((ex) => experiment(ex, ctx)),
        ...rev.analysisRuns.map((run) => analysisRun(run, false)),
        undo && !live && rev.replicaSets.length > 0
          ? actionButton({ ...undo, primary: false }, ctx, { toRevision: rev.revision }, `Roll back to revision ${rev.revision}`)
          : null,
      );
      const pods = rev.replicaSets.reduce((n, rs) => n + rs.pods.length, 0);
      const description = [plural(pods, 'pod'), rev.experiments.length ? plural(rev.experiments.length, 'experiment') : '']
        .filter(Boolean)
        .join(' · ');
      const el = h(
        'vscode-collapsible',
        {
          class: 'revision',
          data: { revision: rev.revision },
          attrs: {
            heading: `Revision ${rev.revision}${tags.length ? ` (${tags.join(', ')})` : ''}`,
            description,
            open: ctx.openRevisions.get(rev.revision) ?? live,
          },
        },
        body,
      );
      el.addEventListener('vsc-collapsible-toggle', (ev) =>
        ctx.onToggleRevision(rev.revision, (ev as CustomEvent<{ open: boolean }>).detail.open),
      );
      return el;
    }),
  );
}

function analysis(view: RolloutView, ctx: RolloutRenderContext): HTMLElement | null {
  if (view.analysisRuns.length === 0) return null;
  return section('Analysis runs', 'analysis', ...view.analysisRuns.map((run) => analysisRun(run, true, ctx.terminate)));
}

/**
 * The rollout's Events, newest first: type (a Warning in the warning colour), reason, how many
 * times ("×3"), how long ago as kubectl writes ages ("5m", "2d3h"; as of the view the host sent,
 * which it sends again on each change), and the message with who recorded it.
 */
function events(view: RolloutView): HTMLElement | null {
  if (!view.events) return null;
  const age = (e: EventView) => (e.lastSecondsAgo === undefined ? '' : humanDuration(e.lastSecondsAgo));
  const row = (e: EventView) => {
    const warning = e.type === 'Warning';
    return h(
      'tr',
      { class: `event${warning ? ' event-warning' : ''}`, data: { type: e.type, reason: e.reason } },
      h('td', { class: 'event-type' }, warning ? icon('warning') : icon('info'), ' ', e.type),
      h('td', { class: 'event-reason' }, e.reason),
      h('td', { class: 'event-count', title: `happened ${plural(e.count, 'time')}` }, e.count > 1 ? `×${e.count}` : ''),
      h('td', { class: 'event-age', title: e.lastSeen ?? '' }, age(e)),
      h('td', { class: 'event-message' }, e.message, e.from ? h('span', { class: 'event-from muted' }, ` (${e.from})`) : null),
    );
  };
  return section(
    'Events',
    'events',
    view.events.length
      ? table('events', ['Type', 'Reason', '', 'Age', 'Message'], view.events.map(row))
      : h('p', { class: 'muted no-events' }, 'No events.'),
  );
}

export function renderRollout(view: RolloutView, ctx: RolloutRenderContext): HTMLElement {
  return h(
    'div',
    { class: 'rollout', data: { rollout: `${view.namespace}/${view.name}` } },
    header(view, ctx),
    toolbar(ctx),
    ctx.notice
      ? h(
          'div',
          { class: `notice ${ctx.notice.ok ? 'ok' : 'bad'}`, attrs: { role: 'status' } },
          icon(ctx.notice.ok ? 'check' : 'error'),
          ' ',
          ctx.notice.text,
        )
      : null,
    ctx.heldBy
      ? h(
          'div',
          { class: 'banner banner-held', attrs: { role: 'alert' } },
          icon('warning'),
          ' ',
          h('span', { class: 'held-why' }, `The embedded controller holds this rollout: ${ctx.heldBy}`),
        )
      : null,
    ...view.pauses.map((p) => pauseBanner(p, view, ctx)),
    steps(view),
    traffic(view),
    images(view),
    analysis(view, ctx),
    revisions(view, ctx),
    events(view),
  );
}
