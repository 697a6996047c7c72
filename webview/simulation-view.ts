/**
 * The simulation of a manifest: the planner's frames, stepped forward and back, jumped to the
 * next point that waits for a person, or played (playing stops at such a point). Each frame
 * shows the step, the traffic split, ReplicaSet counts, what each Service selects, what the
 * rollout waits for and what the controller did to get there.
 */
import { bar, h, icon, table, type Child } from './dom';
import { phaseIcon, span } from './format';
import type { HostToView, SimulationFrame } from './protocol';
import { stepProgress, stepText } from '../src/planner/step-description';

type Simulation = Extract<HostToView, { kind: 'simulation' }>;

export interface SimulationControls {
  /** The frame shown. */
  readonly frame: number;
  show(index: number): void;
  dispose(): void;
}

export interface SimulationOptions {
  /** The frame to start at (clamped to the frames there are). */
  frame: number;
  /** Called whenever the frame shown changes (the page saves it). */
  onFrame(index: number): void;
  /** Milliseconds per frame while playing. */
  playIntervalMs?: number;
  /** Show the manifest at this line and column (0-based): an InvalidSpec error's link. */
  onShowLine?(line: number, column: number): void;
  /** The heading (default "Simulation"). */
  title?: string;
}

const OUTCOME_TEXT: Record<string, string> = {
  promoted: 'fully promoted',
  aborted: 'aborted',
  'waiting-for-promote': 'still waiting for a promote',
  stuck: 'stuck',
  'max-frames': 'not finished (frame limit)',
};

/** Frames where only a person can move the rollout on. */
export const isPromotePoint = (f: SimulationFrame): boolean => f.waitsForPerson || f.action === 'needs-promote';

/** "Step 1/5: pause until promoted": the counter as the kubectl plugin shows it, and the step at it. */
export function frameStep(f: SimulationFrame, strategy: Simulation['strategy']): string {
  if (f.step.count === 0) return strategy === 'blueGreen' ? 'blue-green' : 'no steps';
  return `Step ${stepProgress(f.step.index, f.step.count)}${f.step.current ? `: ${stepText(f.step.current)}` : ''}`;
}

/**
 * The outcome line. Only a simulation that ran to its end can say the rollout never waits for a
 * promote: one that stopped early says where, and what it saw before.
 */
export function outcomeText(sim: Simulation): string {
  const frames = sim.frames;
  const last = frames[frames.length - 1]!;
  const waits = frames.filter(isPromotePoint).length;
  const times = waits === 1 ? 'once' : `${waits} times`;
  const head = `Outcome: ${OUTCOME_TEXT[sim.outcome!] ?? sim.outcome} after ${span(last.time)} (${frames.length} frames)`;
  if (sim.outcome === 'stuck' || sim.outcome === 'max-frames') {
    const where = last.step.count > 0 ? ` at ${frameStep(last, sim.strategy)}` : '';
    return `${head}${where}; it did not get to the end${waits > 0 ? `, and waited for a promote ${times} before` : ''}.`;
  }
  return `${head}; ${waits === 0 ? 'it never waits for a promote' : `it waits for a promote ${times}`}.`;
}

/** What Argo's controller would say of a spec it refuses, each error a link to its line. */
function invalidSpecBanner(sim: Simulation, onShowLine: ((line: number, column: number) => void) | undefined): HTMLElement {
  const errors = sim.invalidSpec ?? [];
  return h(
    'div',
    { class: 'banner banner-bad sim-invalid-spec', data: { condition: 'InvalidSpec' } },
    h('p', null, icon('error'), ' ', h('strong', null, 'InvalidSpec'), ': ', sim.error ?? 'Argo would refuse this Rollout.'),
    h(
      'p',
      null,
      `Argo's controller would refuse this Rollout (phase Degraded) and do nothing with it until the spec is fixed, so it is not simulated. ${errors.length === 1 ? 'The error' : `The ${errors.length} errors`}:`,
    ),
    h(
      'ul',
      { class: 'invalid-spec-errors' },
      ...errors.map((e) =>
        h(
          'li',
          { data: { line: e.start.line + 1 } },
          h(
            'a',
            {
              class: 'source-link',
              attrs: { href: '#', title: `Show line ${e.start.line + 1} in the manifest` },
              on: {
                click: (ev: Event) => {
                  ev.preventDefault();
                  onShowLine?.(e.start.line, e.start.column);
                },
              },
            },
            `line ${e.start.line + 1}`,
          ),
          ': ',
          e.message,
          e.path ? h('span', { class: 'muted' }, ` (${e.path})`) : null,
        ),
      ),
    ),
  );
}

function replicaSetsTable(f: SimulationFrame): HTMLElement {
  const max = Math.max(1, ...f.replicaSets.map((r) => Math.max(r.desired, r.current)));
  return table(
    'sim-replicasets',
    ['ReplicaSet', 'Role', 'Desired', 'Current', 'Ready', 'Available', h('th', { class: 'bar-cell' }, '')],
    f.replicaSets.map((r) =>
      h(
        'tr',
        { data: { rs: r.name, role: r.role } },
        h('td', null, h('code', null, r.name), h('span', { class: 'muted' }, ` rev ${r.revision}`)),
        h('td', null, h('span', { class: `role role-text-${r.role}` }, r.role)),
        h('td', { class: 'num' }, String(r.desired)),
        h('td', { class: 'num' }, String(r.current)),
        h('td', { class: 'num' }, String(r.ready)),
        h('td', { class: 'num' }, String(r.available)),
        h(
          'td',
          { class: 'bar-cell' },
          bar(
            [
              { share: (r.available / max) * 100, class: `role-${r.role}`, label: `${r.available} available` },
              {
                share: (Math.max(0, r.desired - r.available) / max) * 100,
                class: `role-${r.role} pending`,
                label: `${Math.max(0, r.desired - r.available)} not yet available`,
              },
            ],
            `${r.name}: ${r.available} of ${r.desired} available`,
          ),
        ),
      ),
    ),
  );
}

function servicesTable(f: SimulationFrame): HTMLElement | null {
  if (f.services.length === 0) return null;
  return table(
    'sim-services',
    ['Service', 'Role', 'Selects'],
    f.services.map((s) =>
      h(
        'tr',
        { data: { service: s.name } },
        h('td', null, h('code', null, s.name)),
        h('td', null, s.role),
        h(
          'td',
          { class: 'selects' },
          s.selects === null
            ? h('span', { class: 'muted' }, 'all pods (no hash selector)')
            : h(
                'span',
                null,
                h('code', null, `rollouts-pod-template-hash=${s.selects}`),
                s.replicaSet ? h('span', { class: 'muted' }, ` → ${s.replicaSet}`) : null,
              ),
        ),
      ),
    ),
  );
}

/** The rollout's Experiments at this frame: phase, each template's pods, each analysis. */
function experimentsList(f: SimulationFrame): HTMLElement | null {
  const experiments = f.experiments ?? [];
  if (experiments.length === 0) return null;
  return h(
    'div',
    { class: 'experiments' },
    h('h3', null, 'Experiments'),
    ...experiments.map((ex) =>
      h(
        'div',
        { class: 'experiment', data: { experiment: ex.name } },
        h('span', { class: 'experiment-name' }, ex.name),
        ' ',
        h('span', { class: 'experiment-phase' }, ex.phase || 'Pending'),
        h(
          'ul',
          null,
          ...ex.templates.map((t) =>
            h('li', { data: { template: t.name } }, `template ${t.name}: ${t.available}/${t.desired} pods available`),
          ),
          ...ex.analysisRuns.map((r) => h('li', { data: { run: r.name } }, `analysis ${r.name}: ${r.phase || 'Pending'}`)),
        ),
        ex.message ? h('p', { class: 'muted' }, ex.message) : null,
      ),
    ),
  );
}

function list(title: string, cls: string, items: string[]): HTMLElement | null {
  if (items.length === 0) return null;
  return h('div', { class: cls }, h('h3', null, title), h('ul', null, ...items.map((i) => h('li', null, i))));
}

function frameDetails(f: SimulationFrame, total: number, strategy: Simulation['strategy']): HTMLElement {
  const p = phaseIcon(f.phase);
  const banners: Child[] = [];
  if (isPromotePoint(f))
    banners.push(
      h(
        'div',
        { class: 'banner banner-person', data: { promotePoint: 'true' } },
        icon('person'),
        ' Waits here for a promote: only a person can move it on.',
      ),
    );
  if (f.action === 'promote')
    banners.push(h('div', { class: 'banner banner-done' }, icon('debug-step-over'), ' Promoted here (as kubectl argo rollouts promote).'));
  if (f.action === 'abort') banners.push(h('div', { class: 'banner banner-bad' }, icon('stop-circle'), ' Aborted here.'));
  if (f.action === 'update')
    banners.push(h('div', { class: 'banner banner-timed' }, icon('arrow-up'), ' The update is applied (revision 2).'));
  return h(
    'div',
    { class: 'frame', data: { frame: f.index } },
    h(
      'div',
      { class: 'frame-head' },
      icon(p.icon, `phase-icon ${p.cls}`),
      h('span', { class: 'frame-phase' }, f.phase),
      h('span', { class: 'frame-step' }, frameStep(f, strategy)),
      h('span', { class: 'frame-time' }, `t = ${f.time < 0 ? '' : '+'}${span(f.time)}`),
      h('span', { class: 'muted' }, `frame ${f.index + 1} of ${total}`),
    ),
    ...banners,
    h(
      'div',
      { class: 'traffic-row' },
      h('span', { class: 'replica-label' }, 'traffic'),
      bar(
        [
          { share: f.weight.stable, class: 'role-stable', label: `stable ${f.weight.stable}%` },
          { share: f.weight.canary, class: 'role-canary', label: `canary ${f.weight.canary}%` },
        ],
        `stable ${f.weight.stable}%, canary ${f.weight.canary}%`,
      ),
      h('span', { class: 'traffic-split', data: { weight: f.weight.canary } }, `${f.weight.canary}% new · ${f.weight.stable}% stable`),
      h(
        'span',
        { class: 'muted', title: 'where the split comes from' },
        ` (${f.weight.source === 'router' ? 'router weight' : f.weight.source === 'pods' ? 'share of pods' : 'Service selector'})`,
      ),
    ),
    replicaSetsTable(f),
    experimentsList(f),
    servicesTable(f),
    f.message ? h('p', { class: 'message' }, f.message) : null,
    list('Waiting for', 'waiting-for', f.waitingFor),
    list('What the controller did', 'events', f.events),
  );
}

export function mountSimulation(container: HTMLElement, sim: Simulation, opts: SimulationOptions): SimulationControls {
  const frames = sim.frames;
  let index = Math.max(0, Math.min(opts.frame, frames.length - 1));
  let timer: ReturnType<typeof setInterval> | undefined;
  const playMs = opts.playIntervalMs ?? 700;

  const title = h(
    'header',
    { class: 'sim-header' },
    h(
      'div',
      { class: 'title-line' },
      icon('debug-alt'),
      h('h1', null, opts.title ?? 'Simulation'),
      h('span', { class: 'where' }, sim.manifestName),
    ),
    sim.outcome && frames.length ? h('p', { class: 'muted sim-outcome', data: { outcome: sim.outcome } }, outcomeText(sim)) : null,
  );
  container.replaceChildren(title);
  if (sim.invalidSpec && sim.invalidSpec.length > 0) container.appendChild(invalidSpecBanner(sim, opts.onShowLine));
  else if (sim.error) container.appendChild(h('div', { class: 'banner banner-bad sim-error' }, icon('error'), ' ', sim.error));
  if (frames.length === 0) {
    if (!sim.error) container.appendChild(h('p', { class: 'muted' }, 'No frames to show.'));
    return { frame: 0, show: () => undefined, dispose: () => undefined };
  }

  const button = (id: string, iconName: string, label: string, onClick: () => void) =>
    h(
      'vscode-button',
      {
        class: 'sim-control',
        title: label,
        data: { control: id },
        attrs: { icon: iconName, secondary: true, 'aria-label': label },
        on: { click: onClick },
      },
      label,
    );
  const first = button('first', 'debug-restart-frame', 'First', () => show(0));
  const back = button('back', 'arrow-left', 'Back', () => show(index - 1));
  const play = button('play', 'play', 'Play', () => (timer ? stop() : start()));
  const forward = button('forward', 'arrow-right', 'Forward', () => show(index + 1));
  const last = button('last', 'debug-continue', 'Last', () => show(frames.length - 1));
  const nextPromote = button('next-promote', 'person', 'Next promote', () => {
    const next = frames.findIndex((f, i) => i > index && isPromotePoint(f));
    if (next >= 0) show(next);
  });
  const slider = h('input', {
    class: 'sim-slider',
    attrs: { type: 'range', min: 0, max: frames.length - 1, step: 1, value: index, 'aria-label': 'Frame' },
    on: { input: () => show(Number(slider.value)) },
  });
  const strip = h(
    'div',
    { class: 'frame-strip', attrs: { role: 'group', 'aria-label': 'Frames' } },
    ...frames.map((f, i) =>
      h('button', {
        class: `frame-dot${isPromotePoint(f) ? ' promote-point' : ''}${f.action === 'promote' ? ' promoted' : ''}`,
        title: `frame ${i + 1}: t+${span(f.time)}, ${frameStep(f, sim.strategy)}${isPromotePoint(f) ? ' (waits for a promote)' : ''}`,
        data: { frameDot: i },
        attrs: { type: 'button', 'aria-label': `frame ${i + 1}` },
        on: { click: () => show(i) },
      }),
    ),
  );
  const details = h('div', { class: 'frame-details' });
  container.append(
    h('div', { class: 'sim-controls toolbar' }, first, back, play, forward, last, nextPromote),
    h('div', { class: 'sim-scrub' }, slider),
    strip,
    details,
  );

  const onKey = (ev: KeyboardEvent) => {
    if ((ev.target as HTMLElement | null)?.tagName === 'INPUT') return;
    if (ev.key === 'ArrowRight') show(index + 1);
    else if (ev.key === 'ArrowLeft') show(index - 1);
    else return;
    ev.preventDefault();
  };
  document.addEventListener('keydown', onKey);

  function setDisabled(el: HTMLElement, disabled: boolean) {
    if (disabled) el.setAttribute('disabled', '');
    else el.removeAttribute('disabled');
  }

  function render() {
    details.replaceChildren(frameDetails(frames[index]!, frames.length, sim.strategy));
    slider.value = String(index);
    strip.querySelectorAll('.frame-dot').forEach((d, i) => {
      d.classList.toggle('current', i === index);
      if (i === index) d.setAttribute('aria-current', 'step');
      else d.removeAttribute('aria-current');
    });
    setDisabled(first, index === 0);
    setDisabled(back, index === 0);
    setDisabled(forward, index === frames.length - 1);
    setDisabled(last, index === frames.length - 1);
    setDisabled(nextPromote, !frames.some((f, i) => i > index && isPromotePoint(f)));
    setDisabled(play, index === frames.length - 1 && !timer);
  }

  function show(i: number) {
    const next = Math.max(0, Math.min(i, frames.length - 1));
    if (next === index) return;
    index = next;
    render();
    opts.onFrame(index);
  }

  function start() {
    if (index === frames.length - 1) return;
    play.setAttribute('icon', 'debug-pause');
    play.textContent = 'Pause';
    play.title = 'Pause';
    timer = setInterval(() => {
      show(index + 1);
      // Playing stops where the rollout would wait for a person, and at the end.
      if (index === frames.length - 1 || isPromotePoint(frames[index]!)) stop();
    }, playMs);
    render();
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = undefined;
    play.setAttribute('icon', 'play');
    play.textContent = 'Play';
    play.title = 'Play';
    render();
  }

  render();
  return {
    get frame() {
      return index;
    },
    show,
    dispose() {
      if (timer) clearInterval(timer);
      timer = undefined;
      document.removeEventListener('keydown', onKey);
    },
  };
}
