/**
 * src/cluster: the Kubernetes side. Kubeconfig and contexts as kubectl reads them, one watch per
 * kind per context into an in-memory store (client-node's informer, wrapped once), the rollout
 * view model, user actions as the planner's patches, and the embedded controller (planner
 * reconcile applied with optimistic concurrency, behind a Lease).
 * Architecture invariant: talks to the planner only through '../planner'; never imports vscode.
 * Readers never call the API to read: they read the stores.
 */
export * from './access';
export * from './actions';
export * from './apply';
export * from './analysis';
export * from './clock';
export * from './command-line';
export * from './connection';
export * from './controller';
export * from './detect';
export * from './embedded';
export * from './event-view';
export * from './kinds';
export * from './kubeconfig';
export * from './lease';
export * from './live-snapshot';
export * from './log';
export * from './pod-logs';
export * from './rbac-needs';
export * from './rest';
export * from './revision-diff';
export * from './rollout-status';
export * from './store';
export * from './view';
export * from './view-text';
export * from './watch-kind';
export type { K8s, KubeConfig } from './k8s';
