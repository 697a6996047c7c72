// @kubernetes/client-node is an ES module; our tests are CommonJS. Node 20 loads it with
// require(), and the types come through a type-only import in import mode.
import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

export type { K8s };
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const k8s: typeof K8s = require('@kubernetes/client-node');
