/**
 * Kubeconfig as kubectl reads it: --kubeconfig FILE, else $KUBECONFIG (files joined with the
 * path delimiter, merged: the first file to define a name or the current context wins), else
 * ~/.kube/config. Parsing, auth plugins and credentials are client-node's; we only merge and pick
 * the context. Nothing here ever prints a user entry (tokens, keys, passwords).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { CachedExecAuth, registerExecAuth, type ExecConfig } from './exec-credential';
import { k8s, type K8s, type KubeConfig } from './k8s';
import { proxyFromEnvironment } from './proxy';

export interface KubeconfigSource {
  /** --kubeconfig: this file only, as kubectl does. */
  kubeconfigPath?: string;
  /**
   * Several files (the extension's setting), read as $KUBECONFIG is: merged, missing ones
   * skipped. Empty: as if not given.
   */
  kubeconfigPaths?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** For ~/.kube/config; default os.homedir(). */
  homeDir?: string;
  /**
   * Keep a context that an earlier file already names, as `NAME (FILE)` (its cluster and user too,
   * renamed the same way where an earlier file defines another under their names), instead of
   * dropping it as kubectl does: the extension watches contexts of several files side by side.
   */
  keepShadowed?: boolean;
}

/** The name under which a context (cluster, user) of `file` is kept when an earlier file has taken its name. */
export const shadowedName = (name: string, file: string): string => `${name} (${file})`;

export class KubeconfigError extends Error {}

/** The files kubectl would read, in order. */
export function kubeconfigFiles(src: KubeconfigSource = {}): string[] {
  if (src.kubeconfigPath) return [src.kubeconfigPath];
  const listed = (src.kubeconfigPaths ?? [])
    .flatMap((f) => f.split(delimiter))
    .map((f) => f.trim())
    .filter((f) => f !== '');
  if (listed.length > 0) return listed;
  const env = src.env ?? process.env;
  if (env.KUBECONFIG) return env.KUBECONFIG.split(delimiter).filter((f) => f !== '');
  return [join(src.homeDir ?? env.HOME ?? homedir(), '.kube', 'config')];
}

function loadFile(file: string): KubeConfig {
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (e) {
    // client-node's parse errors may quote the file; we keep only the first line of the reason.
    const reason = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    throw new KubeconfigError(`cannot read kubeconfig ${file}: ${reason}`);
  }
  return kc;
}

/** Loads and merges kubeconfig files the way kubectl does. */
export function loadKubeconfig(src: KubeconfigSource = {}): KubeConfig {
  const files = kubeconfigFiles(src);
  const present = src.kubeconfigPath ? files : files.filter((f) => existsSync(f));
  if (src.kubeconfigPath && !existsSync(src.kubeconfigPath)) throw new KubeconfigError(`kubeconfig ${src.kubeconfigPath} does not exist`);
  if (present.length === 0) {
    throw new KubeconfigError(
      `no kubeconfig found (looked at ${files.join(', ')}); ${src.kubeconfigPaths?.length ? 'fix the rollouts.kubeconfig setting' : 'pass --kubeconfig FILE or set KUBECONFIG'}`,
    );
  }
  const clusters = new Map<string, K8s.Cluster>();
  const users = new Map<string, K8s.User>();
  const contexts = new Map<string, K8s.Context>();
  let currentContext = '';
  for (const file of present) {
    const kc = loadFile(file);
    const shadowed = src.keepShadowed ? kc.contexts.filter((c) => contexts.has(c.name)) : [];
    const fileClusters = kc.clusters.map(plainHttpAllowed);
    const fileUsers = kc.users.map((u) => execRelativeTo(u, file));
    for (const c of fileClusters) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of fileUsers) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of kc.contexts) if (!contexts.has(c.name)) contexts.set(c.name, c);
    for (const c of shadowed) {
      const name = shadowedName(c.name, file);
      if (contexts.has(name)) continue;
      const cluster = keptAs(clusters, fileClusters, c.cluster, file);
      const user = c.user ? keptAs(users, fileUsers, c.user, file) : c.user;
      contexts.set(name, { ...c, name, cluster, user });
    }
    if (!currentContext && kc.currentContext) currentContext = kc.currentContext;
  }
  const merged = new k8s.KubeConfig();
  merged.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext,
  });
  return merged;
}

/**
 * The name under which a shadowed context of `file` finds its cluster (user) `name`: the same name
 * when the merged one is this file's own definition, else `NAME (FILE)`, added with this file's.
 */
function keptAs<T extends { name: string }>(merged: Map<string, T>, own: readonly T[], name: string, file: string): string {
  const mine = own.find((x) => x.name === name);
  if (!mine || JSON.stringify(merged.get(name)) === JSON.stringify(mine)) return name;
  const renamed = shadowedName(name, file);
  if (!merged.has(renamed)) merged.set(renamed, { ...mine, name: renamed });
  return renamed;
}

/** As kubectl: an exec command given as a relative path with a directory in it is relative to the kubeconfig file. */
function execRelativeTo(u: K8s.User, file: string): K8s.User {
  const command = (u.exec as ExecConfig | undefined)?.command;
  if (!command || isAbsolute(command) || !(command.includes('/') || command.includes(sep))) return u;
  return { ...u, exec: { ...u.exec, command: resolve(dirname(file), command) } };
}

/**
 * client-node refuses an http:// server unless skipTLSVerify is set, which kubectl does not
 * ask for (there is no TLS to verify on plain http), so we set it for such clusters.
 */
function plainHttpAllowed(c: K8s.Cluster): K8s.Cluster {
  return c.server.startsWith('http:') && !c.skipTLSVerify ? { ...c, skipTLSVerify: true } : c;
}

export interface ContextTarget {
  kc: KubeConfig;
  context: string;
  /** The namespace given, else the context's, else "default". */
  namespace: string;
  server: string;
  /**
   * What the user should know about this connection (insecure-skip-tls-verify), each said once
   * per process: a second connection to the same server brings no repeat.
   */
  warnings: string[];
}

/** The warnings already given in this process (by cluster name and server). */
const warned = new Set<string>();

/** The exec plugins moved out of a selected KubeConfig's users, so that selecting from it again keeps them. */
const execPlugins = new WeakMap<KubeConfig, ReadonlyMap<string, ExecConfig>>();

/**
 * A KubeConfig whose current context is `context` (default: the current one), checked. Its
 * cluster gets the proxy of `env` (HTTPS_PROXY, NO_PROXY...) when the kubeconfig names none.
 */
export function selectContext(kc: KubeConfig, context?: string, namespace?: string, env: NodeJS.ProcessEnv = process.env): ContextTarget {
  const name = context || kc.currentContext;
  const names = kc.contexts.map((c) => c.name);
  if (!name)
    throw new KubeconfigError(
      `no context selected and the kubeconfig has no current-context${names.length ? ` (contexts: ${names.join(', ')})` : ''}; pass --context`,
    );
  const ctx = kc.getContextObject(name);
  if (!ctx)
    throw new KubeconfigError(`context "${name}" is not in the kubeconfig${names.length ? ` (contexts: ${names.join(', ')})` : ''}`);
  const cluster = kc.getCluster(ctx.cluster);
  if (!cluster) throw new KubeconfigError(`context "${name}" names cluster "${ctx.cluster}", which the kubeconfig does not define`);
  if (ctx.user && !kc.getUser(ctx.user))
    throw new KubeconfigError(`context "${name}" names user "${ctx.user}", which the kubeconfig does not define`);
  // Exec plugins run through our cache (exec-credential.ts), not client-node's per-request runs.
  const plugins = new Map<string, ExecConfig>(execPlugins.get(kc));
  const users = kc.users.map((u) => {
    if (!u.exec) return u;
    plugins.set(u.name, u.exec as ExecConfig);
    return { ...u, exec: undefined };
  });
  const envProxy = cluster.proxyUrl ? undefined : proxyFromEnvironment(cluster.server, env);
  const clusters = envProxy ? kc.clusters.map((c) => (c.name === cluster.name ? { ...c, proxyUrl: envProxy } : c)) : kc.clusters;
  const selected = new k8s.KubeConfig();
  selected.loadFromOptions({ clusters, users, contexts: kc.contexts, currentContext: name });
  if (plugins.size > 0) {
    const auth = new CachedExecAuth(plugins, cluster);
    selected.addAuthenticator(auth);
    registerExecAuth(selected, auth);
  }
  execPlugins.set(selected, plugins);
  const warnings: string[] = [];
  const key = `${cluster.name} ${cluster.server}`;
  if (cluster.server.startsWith('https:') && cluster.skipTLSVerify && !warned.has(key)) {
    warned.add(key);
    warnings.push(
      `cluster "${cluster.name}" (${cluster.server}) of context "${name}" has insecure-skip-tls-verify: the server's certificate is not checked, so anyone between you and it can read and change what is sent, credentials included; set certificate-authority-data instead`,
    );
  }
  return { kc: selected, context: name, namespace: namespace || ctx.namespace || 'default', server: cluster.server, warnings };
}

/** The context names, current first. */
export function contextNames(kc: KubeConfig): string[] {
  const names = kc.contexts.map((c) => c.name);
  return [...names.filter((n) => n === kc.currentContext), ...names.filter((n) => n !== kc.currentContext)];
}
