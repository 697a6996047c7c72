/** `cluster()`: src/cluster and src/localcluster, loaded the first time something needs them (see cluster-runtime.ts). */
export type ClusterRuntime = typeof import('./cluster-runtime');

let runtime: ClusterRuntime | undefined;

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const cluster = (): ClusterRuntime => (runtime ??= require('./cluster-runtime') as ClusterRuntime);
