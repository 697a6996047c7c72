// @kubernetes/client-node 1.x is an ES module and this package compiles to CommonJS. Node 20
// loads it with require(); the types come through a type-only import in import mode.
import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

export type { K8s };
export type KubeConfig = K8s.KubeConfig;
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const k8s: typeof K8s = require('@kubernetes/client-node');
