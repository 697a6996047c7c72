/** `cluster()`: src/cluster and src/localcluster, loaded the first time something needs them (see cluster-runtime.ts). */
export type ClusterRuntime = typeof import('./cluster-runtime');

let runtime: ClusterRuntime | undefined;

/**
 * Set by the build for dist/extension.js: the runtime is then its own bundle beside it, so that
 * activation parses none of it. From source (tests) it is the module next to this one.
 */
declare const CLUSTER_RUNTIME_BUNDLE: string | undefined;
const runtimeModule = typeof CLUSTER_RUNTIME_BUNDLE === 'string' ? CLUSTER_RUNTIME_BUNDLE : './cluster-runtime';

// A require of a variable: the bundler leaves it to run time instead of inlining the runtime.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const cluster = (): ClusterRuntime => (runtime ??= require(runtimeModule) as ClusterRuntime);
