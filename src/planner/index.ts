/**
 * src/planner: how a Rollout progresses, as Argo Rollouts' controller decides it.
 * Architecture invariant: no I/O, no clock (time is an argument), no imports outside this folder.
 * This is what lets the same code run in the language server, the controller and the webview.
 */
export * from './types';
export * from './effects';
export type { RolloutEvent } from './events';
export type { ReconcileContext } from './reconcile-context';
export * from './defaults';
export * from './duration';
export * from './int-or-percent';
export * from './hash';
export * from './conditions';
export * from './phase';
export * from './anti-affinity';
export * from './ephemeral-metadata';
export * from './replicasets';
export * from './canary-replicas';
export * from './scale-down';
export * from './traffic-weights';
export * from './actions';
export * from './step-description';
export * from './step-plan';
export * from './reconcile';
export * from './pause';
export * from './status';
export * from './bluegreen-reconcile';
export * from './analysis-runs';
export * from './experiments';
export * from './pod-restarts';
export * from './rollout-decision';
export * from './workload-ref';
export * from './analysis-history';
export * from './simulate';
export * from './routers';
export * from './log-targets';
