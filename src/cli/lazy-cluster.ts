/** `cluster()`: the command line's cluster side (cluster-runtime.ts), loaded the first time a command needs it. */
export type ClusterRuntime = typeof import('./cluster-runtime');

let runtime: ClusterRuntime | undefined;

/**
 * Set by the build for dist/cli.js: the runtime is then a bundle of its own beside it
 * (dist/cli-cluster.js), which a command that reads only files never parses. From source (tests)
 * it is the module next to this one.
 */
declare const CLI_CLUSTER_BUNDLE: string | undefined;
const runtimeModule = typeof CLI_CLUSTER_BUNDLE === 'string' ? CLI_CLUSTER_BUNDLE : './cluster-runtime';

// A require of a variable: the bundler leaves it to run time instead of inlining the runtime.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const cluster = (): ClusterRuntime => (runtime ??= require(runtimeModule) as ClusterRuntime);
