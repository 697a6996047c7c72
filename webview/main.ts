/**
 * The webview app: a function of a host that takes messages, and an element to draw into.
 * Every message from the host is checked against the protocol when it arrives; a malformed one
 * is dropped (and reported to the host) and the page keeps showing what it showed. There is no
 * acquireVsCodeApi here (see vscode.ts), so tests drive this with a stand-in host.
 */
import { h, icon } from './dom';
import { ACTIONS } from '../src/cluster/action-catalog';
import { TERMINATE, type TerminateKind } from './actions';
import { clock } from './format';
import { hostToViewProblem, type ActionArgs, type ActionName, type HostToView, type RolloutRef, type ViewToHost } from './protocol';
import { renderRollout } from './rollout-view';
import { mountSimulation, type SimulationControls } from './simulation-view';
import { createWhatIfPanel } from './what-if-view';

/** What the page keeps across a reload of the webview (VS Code's getState/setState). */
export interface SavedState {
  /** The last rollout or simulation message shown. */
  message?: HostToView;
  /** The simulation frame shown. */
  frame?: number;
  /** The next action request id, so ids stay unique across reloads. */
  nextRequestId?: number;
}

export interface ViewHost {
  post(m: ViewToHost): void;
  saveState?(s: SavedState): void;
}

export interface MountedView {
  /** Hand a message from the host to the view; anything that is not a HostToView is dropped. */
  receive(m: unknown): void;
  dispose(): void;
}

type Shown =
  | { kind: 'none' }
  | { kind: 'rollout'; message: Extract<HostToView, { kind: 'rollout' }>; receivedAt: number }
  | { kind: 'simulation'; message: Extract<HostToView, { kind: 'simulation' }>; controls: SimulationControls }
  | { kind: 'gone'; message: Extract<HostToView, { kind: 'rolloutGone' }> };

/** Where the rollout is: its step, phase and pause. A notice of a done action goes once this changes. */
const whereItIs = (view: Extract<HostToView, { kind: 'rollout' }>['view']): string =>
  JSON.stringify([view.step?.index ?? null, view.phase, view.aborted, view.pauses.map((p) => p.reason)]);

/**
 * The answer to the last request, under the toolbar. A success goes once the rollout moves on:
 * `at` is where the rollout was when it was last checked; `effectSeen` says whether the request's
 * own effect has shown yet (the host's rollout message may come just before or just after the
 * answer), so the change the request itself made does not take its notice away.
 */
interface Notice {
  ok: boolean;
  text: string;
  at?: string;
  effectSeen?: boolean;
}

const savedState = (s: unknown): SavedState => {
  if (typeof s !== 'object' || s === null) return {};
  const { message, frame, nextRequestId } = s as Record<string, unknown>;
  const out: SavedState = {};
  // A saved message may come from an older version of the page: it is checked like any other.
  if (message !== undefined && hostToViewProblem(message) === undefined) out.message = message as HostToView;
  if (Number.isSafeInteger(frame)) out.frame = frame as number;
  if (Number.isSafeInteger(nextRequestId) && (nextRequestId as number) > 0) out.nextRequestId = nextRequestId as number;
  return out;
};

export function mountRolloutView(host: ViewHost, el: HTMLElement, saved?: unknown): MountedView {
  const restored = savedState(saved);
  let shown: Shown = { kind: 'none' };
  let nextRequestId = restored.nextRequestId ?? 1;
  let frame = restored.frame ?? 0;
  /** Requests sent and not yet answered, by request id: an action, or the run or Experiment being terminated. */
  /** `from`: where the rollout was when the request was sent. */
  const pending = new Map<
    number,
    ({ kind: 'action'; action: ActionName } | { kind: 'terminate'; what: TerminateKind; name: string }) & { from: string }
  >();
  const pendingActions = () => new Set([...pending.values()].flatMap((p) => (p.kind === 'action' ? [p.action] : [])));
  const terminating = (what: TerminateKind, name: string) =>
    [...pending.values()].some((p) => p.kind === 'terminate' && p.what === what && p.name === name);
  const openRevisions = new Map<number, boolean>();
  let notice: Notice | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  // What-if previews of the shown rollout (what-if-view.ts), under it.
  const whatIf = createWhatIfPanel(
    (m) => host.post(m),
    () => {
      const id = nextRequestId++;
      save();
      return id;
    },
  );

  el.classList.add('rollouts-view');
  el.replaceChildren(h('p', { class: 'muted waiting' }, icon('loading', 'codicon-modifier-spin'), ' Waiting for the extension…'));

  const save = () => {
    const message = shown.kind === 'none' ? undefined : shown.message;
    host.saveState?.({ message, frame, nextRequestId });
  };

  const targetOf = (m: Extract<HostToView, { kind: 'rollout' }>): RolloutRef => {
    const ref: RolloutRef = { namespace: m.view.namespace, name: m.view.name };
    if (m.context !== undefined) ref.context = m.context;
    return ref;
  };

  function requestAction(action: ActionName, args?: ActionArgs) {
    if (shown.kind !== 'rollout') return;
    if (pendingActions().has(action)) return; // one request of a kind at a time
    const requestId = nextRequestId++;
    pending.set(requestId, { kind: 'action', action, from: whereItIs(shown.message.view) });
    notice = undefined;
    const m: ViewToHost = { kind: 'action', requestId, action, target: targetOf(shown.message) };
    if (args) m.args = args;
    host.post(m);
    save();
    renderShown();
  }

  function requestTerminate(what: TerminateKind, name: string) {
    if (shown.kind !== 'rollout' || terminating(what, name)) return;
    const requestId = nextRequestId++;
    pending.set(requestId, { kind: 'terminate', what, name, from: whereItIs(shown.message.view) });
    notice = undefined;
    const target = targetOf(shown.message);
    host.post(
      what === 'analysisRun'
        ? { kind: 'terminateAnalysisRun', requestId, target, analysisRun: name }
        : { kind: 'terminateExperiment', requestId, target, experiment: name },
    );
    save();
    renderShown();
  }

  /** Counts every countdown on the page down from its deadline; runs only while there is one. */
  function tick() {
    const now = Date.now();
    const spans = el.querySelectorAll<HTMLElement>('.countdown[data-deadline]');
    spans.forEach((s) => {
      const text = clock((Number(s.dataset['deadline']) - now) / 1000);
      if (s.textContent !== text) s.textContent = text;
    });
    if (spans.length === 0 && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
  }

  function renderShown() {
    if (shown.kind === 'rollout') {
      el.replaceChildren(
        renderRollout(shown.message.view, {
          context: shown.message.context,
          actions: shown.message.actions,
          ...(shown.message.heldBy ? { heldBy: shown.message.heldBy } : {}),
          receivedAt: shown.receivedAt,
          pending: pendingActions(),
          notice,
          onAction: requestAction,
          terminate: { busy: terminating, onTerminate: requestTerminate },
          onShowLogs: (pod) => {
            if (shown.kind === 'rollout') host.post({ kind: 'showLogs', target: targetOf(shown.message), pod });
          },
          openRevisions,
          onToggleRevision: (revision, open) => openRevisions.set(revision, open),
        }),
        whatIf.element,
      );
      whatIf.update(
        targetOf(shown.message),
        shown.message.actions.map((a) => a.action),
      );
    } else if (shown.kind === 'gone') {
      const t = shown.message.target;
      el.replaceChildren(
        h(
          'div',
          { class: 'banner banner-bad gone' },
          icon('circle-slash'),
          ' ',
          `Rollout ${t.namespace}/${t.name}${t.context ? ` (${t.context})` : ''} is no longer there: ${shown.message.message}`,
        ),
      );
    }
    if (el.querySelector('.countdown') && !ticker) ticker = setInterval(tick, 1000);
    tick();
  }

  function show(m: HostToView) {
    switch (m.kind) {
      case 'rollout': {
        const sameRollout =
          shown.kind === 'rollout' &&
          shown.message.view.namespace === m.view.namespace &&
          shown.message.view.name === m.view.name &&
          shown.message.context === m.context;
        if (!sameRollout) {
          pending.clear();
          openRevisions.clear();
          notice = undefined;
          whatIf.reset();
        } else if (notice?.at !== undefined) {
          const now = whereItIs(m.view);
          // The first change after a request is its own effect; the next one is the rollout moving on.
          if (now !== notice.at) notice = notice.effectSeen ? undefined : { ...notice, at: now, effectSeen: true };
        }
        if (shown.kind === 'simulation') shown.controls.dispose();
        shown = { kind: 'rollout', message: m, receivedAt: Date.now() };
        renderShown();
        break;
      }
      case 'simulation': {
        const sameManifest = shown.kind === 'simulation' && shown.message.manifestName === m.manifestName;
        if (shown.kind === 'simulation') {
          // A re-simulation of the same manifest (it was edited) stays at the frame shown.
          frame = sameManifest ? shown.controls.frame : 0;
          shown.controls.dispose();
        }
        const container = h('div', { class: 'simulation' });
        el.replaceChildren(container);
        const controls = mountSimulation(container, m, {
          frame,
          onFrame: (i) => {
            frame = i;
            save();
          },
          onShowLine: (line, column) => host.post({ kind: 'showManifestLine', line, column }),
        });
        frame = controls.frame;
        shown = { kind: 'simulation', message: m, controls };
        break;
      }
      case 'whatIf':
        whatIf.receive(m);
        return; // nothing to save
      case 'rolloutGone':
        whatIf.reset();
        if (shown.kind === 'simulation') shown.controls.dispose();
        pending.clear();
        shown = { kind: 'gone', message: m };
        renderShown();
        break;
      case 'actionResult': {
        const request = pending.get(m.requestId);
        if (request === undefined) return; // not ours, or from before a reload
        pending.delete(m.requestId);
        const label = request.kind === 'action' ? ACTIONS[request.action].title : `${TERMINATE[request.what].label} ${request.name}`;
        notice = { ok: m.ok, text: m.message ?? (m.ok ? `${label}: done.` : `${label} failed.`) };
        // A failure stays until the next request: nothing else in the view says it.
        if (m.ok && shown.kind === 'rollout') {
          const now = whereItIs(shown.message.view);
          notice = { ...notice, at: now, effectSeen: now !== request.from };
        }
        renderShown();
        return; // nothing to save
      }
    }
    save();
  }

  if (restored.message) show(restored.message);

  return {
    receive(m: unknown) {
      const problem = hostToViewProblem(m);
      if (problem !== undefined) {
        host.post({ kind: 'viewError', message: `ignored a malformed message from the extension: ${problem}` });
        return;
      }
      try {
        show(m as HostToView);
      } catch (err) {
        host.post({
          kind: 'viewError',
          message: `could not show a ${(m as HostToView).kind} message: ${err instanceof Error ? err.message : String(err)}`,
        });
      }
    },
    dispose() {
      whatIf.dispose();
      if (ticker) clearInterval(ticker);
      if (shown.kind === 'simulation') shown.controls.dispose();
    },
  };
}
