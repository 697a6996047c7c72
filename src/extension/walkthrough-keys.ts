/**
 * The "Argo Rollouts: Get Started" walkthrough (package.json `contributes.walkthroughs`): its id,
 * the context keys its steps' `completionEvents` wait on (`onContext:KEY`), and the demo canary
 * its last step promotes. No `vscode` here: walkthrough.ts sets the keys from real events, and
 * test/extension/package-conventions.test.ts reads this list to check package.json against it.
 */

/** package.json `contributes.walkthroughs[].id`; the workbench names it `publisher.name#id`. */
export const WALKTHROUGH_ID = 'getStarted';

/**
 * One key per event a step waits for. Each is set true by walkthrough.ts when that event
 * happened in this window, never by a click on the step's button.
 */
export const walkthroughKeys = {
  /** The language server published at least one diagnostic for the example Rollout. */
  exampleDiagnostic: 'rollouts.walkthrough.exampleDiagnostic',
  /** The language server answered a hover on the example Rollout with something to show. */
  exampleHover: 'rollouts.walkthrough.exampleHover',
  /** A simulation panel's view loaded and was sent a simulation. */
  simulated: 'rollouts.walkthrough.simulated',
  /** The embedded local cluster runs and the extension is connected to it. */
  localClusterConnected: 'rollouts.walkthrough.localClusterConnected',
  /** A Promote (or Promote Full) succeeded against a rollout. */
  promoted: 'rollouts.walkthrough.promoted',
} as const;

export type WalkthroughKey = keyof typeof walkthroughKeys;

/**
 * The second half of every step's `onContext` expression: "and the walkthrough is the active editor".
 * The workbench completes a step only when its expression turns true while it listens; one already
 * true when it registers the walkthrough (its service starts with the first walkthrough shown in a
 * window) never completes it. So a key set before (in this window, or kept from an earlier one)
 * checks its step when the user comes to the walkthrough, as this half turns true.
 */
export const WHEN_WALKTHROUGH_SHOWN = 'activeEditor == gettingStartedPage';

/**
 * The demo rollout (src/localcluster/demo.ts) that the walkthrough's "Start Local Cluster" pauses at
 * its first `pause: {}` step, and the images it switches between to start that update.
 */
export const walkthroughCanary = {
  namespace: 'rollouts-demo',
  name: 'canary-demo',
  container: 'rollouts-demo',
  images: ['argoproj/rollouts-demo:yellow', 'argoproj/rollouts-demo:blue'],
} as const;

/** The argument the walkthrough's button passes to `rollouts.startLocalCluster`: also pause the demo canary. */
export interface WalkthroughStart {
  pausedCanary: true;
}

export function isWalkthroughStart(arg: unknown): arg is WalkthroughStart {
  return typeof arg === 'object' && arg !== null && (arg as { pausedCanary?: unknown }).pausedCanary === true;
}

/** The bundled example Rollout (one deliberate mistake), relative to the extension's folder; it is in the .vsix. */
export const EXAMPLE_ROLLOUT = 'media/walkthrough/example-rollout.yaml';
