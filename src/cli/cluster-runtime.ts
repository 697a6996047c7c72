/**
 * The cluster side of the command line (src/cluster through its index, and the local cluster),
 * loaded through `cluster()` (lazy-cluster.ts) when a command first needs it: `rollouts lint`,
 * `schema` and `simulate` never load @kubernetes/client-node.
 */
export * from '../cluster';
export { startLocalCluster } from '../localcluster';
