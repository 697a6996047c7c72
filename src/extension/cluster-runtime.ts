/**
 * The cluster side's runtime (src/cluster through its index, and the local cluster), loaded on
 * first use through `cluster()` below rather than at activation: @kubernetes/client-node alone
 * takes over a second to load, and opening a YAML file must not pay for it. Files of
 * src/extension import cluster *types* from '../cluster' and reach its code only through here.
 */
export * from '../cluster';
export { contextName as localContextName, demoNamespace, startLocalCluster } from '../localcluster';
