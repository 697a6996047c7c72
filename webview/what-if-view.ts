/**
 * What-if from the live state, in a live rollout's panel: a Preview button per choice a person has
 * now (do nothing, promote, promote fully, abort), and the timeline the host computes from the
 * rollout's state now (the planner's simulator, from a snapshot of the cluster), shown with the
 * Simulate view's timeline (simulation-view.ts). Kept in its own element, so the rollout's
 * re-renders (on every watch event) leave the preview shown.
 */
import { h, icon } from './dom';
import type { ActionName, HostToView, RolloutRef, ViewToHost, WhatIfChoice } from './protocol';
import { mountSimulation, type SimulationControls } from './simulation-view';

type WhatIfAnswer = Extract<HostToView, { kind: 'whatIf' }>;

const CHOICES: { choice: WhatIfChoice; label: string; needs?: ActionName; title: string }[] = [
  { choice: 'wait', label: 'Preview', title: 'What happens next if nothing is done: a timed pause expires, running analysis ends' },
  { choice: 'promote', label: 'Preview promote', needs: 'promote', title: 'What happens next if it is promoted now' },
  {
    choice: 'promoteFull',
    label: 'Preview promote full',
    needs: 'promoteFull',
    title: 'What happens next if it is promoted fully now (the remaining steps skipped)',
  },
  { choice: 'abort', label: 'Preview abort', needs: 'abort', title: 'What happens next if it is aborted now' },
];

const CHOICE_TEXT: Record<WhatIfChoice, string> = {
  wait: 'if nothing is done',
  promote: 'if promoted now',
  promoteFull: 'if promoted fully now',
  abort: 'if aborted now',
};

export interface WhatIfPanel {
  /** The section to put under the rollout (the same element every render). */
  readonly element: HTMLElement;
  /** The rollout shown and the actions offered now: which Preview buttons there are. */
  update(target: RolloutRef, offered: readonly ActionName[]): void;
  receive(m: WhatIfAnswer): void;
  /** Another rollout is shown: the preview of the last one goes. */
  reset(): void;
  dispose(): void;
}

export function createWhatIfPanel(post: (m: ViewToHost) => void, nextRequestId: () => number): WhatIfPanel {
  const buttons = h('div', { class: 'toolbar what-if-choices', attrs: { role: 'toolbar', 'aria-label': 'Preview what happens next' } });
  const status = h('p', { class: 'muted what-if-status' });
  const timeline = h('div', { class: 'simulation what-if-timeline' });
  const element = h(
    'section',
    { class: 'section what-if', data: { section: 'what-if' } },
    h('h2', null, 'What if'),
    h('p', { class: 'muted' }, 'The timeline from the state now, computed by the simulator; nothing is sent to the cluster.'),
    buttons,
    status,
    timeline,
  );
  let target: RolloutRef | undefined;
  let waitingFor: { requestId: number; choice: WhatIfChoice } | undefined;
  let controls: SimulationControls | undefined;
  let offeredKey = '';

  const clear = () => {
    controls?.dispose();
    controls = undefined;
    timeline.replaceChildren();
    status.replaceChildren();
  };

  function request(choice: WhatIfChoice) {
    if (!target) return;
    const requestId = nextRequestId();
    waitingFor = { requestId, choice };
    post({ kind: 'whatIf', requestId, target, choice });
    status.replaceChildren(icon('loading', 'codicon-modifier-spin'), ` Computing the preview ${CHOICE_TEXT[choice]}…`);
  }

  return {
    element,
    update(next, offered) {
      target = next;
      const key = JSON.stringify(offered);
      if (key === offeredKey && buttons.childElementCount > 0) return;
      offeredKey = key;
      buttons.replaceChildren(
        ...CHOICES.filter((c) => !c.needs || offered.includes(c.needs)).map((c) =>
          h(
            'vscode-button',
            {
              class: 'what-if-choice',
              title: c.title,
              data: { whatIf: c.choice },
              attrs: { icon: c.choice === 'wait' ? 'eye' : 'debug-alt', secondary: c.choice !== 'wait' },
              on: { click: () => request(c.choice) },
            },
            c.label,
          ),
        ),
      );
    },
    receive(m) {
      if (!waitingFor || m.requestId !== waitingFor.requestId) return; // an older request's answer
      waitingFor = undefined;
      clear();
      const assumptions = m.assumptions ?? [];
      if (assumptions.length > 0)
        status.replaceChildren(
          h('span', null, 'Assumed: '),
          h('ul', { class: 'what-if-assumptions' }, ...assumptions.map((a) => h('li', null, a.replace(/^assumed: /, '')))),
        );
      controls = mountSimulation(
        timeline,
        {
          kind: 'simulation',
          manifestName: `${target?.name ?? ''}, ${CHOICE_TEXT[m.choice]}; times from now`,
          frames: m.frames,
          ...(m.outcome ? { outcome: m.outcome } : {}),
          ...(m.strategy ? { strategy: m.strategy } : {}),
          ...(m.error ? { error: m.error } : {}),
        },
        { frame: 0, onFrame: () => undefined, title: 'Preview' },
      );
      timeline.dataset['choice'] = m.choice;
    },
    reset() {
      waitingFor = undefined;
      offeredKey = '';
      clear();
    },
    dispose: clear,
  };
}
