/**
 * The cluster side's runtime (client-node, watches, the local cluster, the controller), loaded
 * on first use by session.ts rather than at activation: @kubernetes/client-node alone takes
 * over a second to load, and a YAML file opening must not pay for it.
 */
export { connectWith } from '../cluster/connection';
export { ControllerRefused, startEmbeddedController } from '../cluster/embedded';
export { contextNames, kubeconfigFiles, loadKubeconfig, KubeconfigError } from '../cluster/kubeconfig';
export { checkContext, watchCluster } from '../cluster/store';
export { contextName as localContextName, demoNamespace, startLocalCluster } from '../localcluster';
