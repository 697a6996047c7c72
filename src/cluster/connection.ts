/** A connection to one context: the KubeConfig selected to it, its namespace and a raw JSON client. */
import type { KubeConfig } from './k8s';
import { loadKubeconfig, selectContext, type KubeconfigSource } from './kubeconfig';
import { createRest, type Rest, type RestOptions } from './rest';

export interface Connection {
  kc: KubeConfig;
  context: string;
  namespace: string;
  server: string;
  rest: Rest;
  /** Said once per process per server (insecure-skip-tls-verify); the caller shows them. */
  warnings: string[];
}

export interface ConnectOptions extends KubeconfigSource {
  context?: string;
  namespace?: string;
  rest?: RestOptions;
}

/** Loads the kubeconfig as kubectl would and selects the context; throws KubeconfigError with a clear message. */
export function connect(opts: ConnectOptions = {}): Connection {
  const target = selectContext(loadKubeconfig(opts), opts.context, opts.namespace, opts.env ?? process.env);
  return { ...target, rest: createRest(target.kc, opts.rest) };
}

/** The same, for a KubeConfig already loaded (the extension, tests). */
export function connectWith(
  kc: KubeConfig,
  opts: Omit<ConnectOptions, keyof KubeconfigSource> & { env?: NodeJS.ProcessEnv } = {},
): Connection {
  const target = selectContext(kc, opts.context, opts.namespace, opts.env ?? process.env);
  return { ...target, rest: createRest(target.kc, opts.rest) };
}
