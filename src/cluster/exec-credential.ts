/**
 * Exec credential plugins (users[].user.exec) as kubectl runs them: once, shared by every request
 * of the process, until the credential's expirationTimestamp (a credential without one is kept
 * for the process). client-node runs the plugin for each request that arrives before the first
 * run ends and never keeps a credential without expiry, so one `rollouts list` ran it 13 times.
 * Like client-go, the cache is keyed by the plugin's configuration, so every KubeConfig built
 * from the same kubeconfig shares it. As client-go, a credential the cluster refuses (401) is dropped
 * and the plugin runs again for one retry (rest.ts). Nothing here logs a credential.
 */
import { spawn } from 'node:child_process';
import type { K8s } from './k8s';

/** The exec stanza of a kubeconfig user, as client-node keeps it. */
export interface ExecConfig {
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  apiVersion?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
  installHint?: string;
}

interface ExecCredential {
  apiVersion?: string;
  kind?: string;
  status?: { token?: string; clientCertificateData?: string; clientKeyData?: string; expirationTimestamp?: string };
}

interface CacheEntry {
  /** Set while the plugin runs: every request that arrives meanwhile waits for the same run. */
  running?: Promise<ExecCredential>;
  credential?: ExecCredential;
  /** Milliseconds since the epoch; undefined: no expiry. */
  expires?: number;
}

const cache = new Map<string, CacheEntry>();

export class ExecCredentialError extends Error {}

export interface ExecOptions {
  now?: () => number;
  /** A plugin that has not answered after this long is abandoned (default 120 s). */
  timeoutMs?: number;
}

/**
 * An authenticator for client-node (KubeConfig.addAuthenticator) that serves the exec users
 * given: selectContext moves each user's `exec` here, so client-node's own ExecAuth never runs.
 */
export class CachedExecAuth {
  constructor(
    private readonly plugins: ReadonlyMap<string, ExecConfig>,
    private readonly cluster: K8s.Cluster | undefined,
    private readonly opts: ExecOptions = {},
  ) {}

  isAuthProvider(user: K8s.User): boolean {
    return this.plugins.has(user.name);
  }

  /**
   * After a 401: as client-go, the cached credential of `user`'s plugin is dropped so that the
   * next request runs the plugin again, unless it was already replaced since `sentToken` went out
   * (requests refused together run the plugin once). Undefined when `user` has no exec plugin here.
   */
  refused(user: K8s.User, sentToken: string | undefined): { plugin: string } | undefined {
    const exec = this.plugins.get(user.name);
    if (!exec) return undefined;
    const entry = cache.get(cacheKey(exec, this.cluster));
    const cachedToken = entry?.credential?.status?.token;
    if (entry && !entry.running && (sentToken === undefined || cachedToken === undefined || cachedToken === sentToken)) {
      entry.credential = undefined;
      entry.expires = undefined;
    }
    return { plugin: `the exec plugin "${exec.command}" of user "${user.name}"` };
  }

  async applyAuthentication(user: K8s.User, opts: { headers?: Record<string, unknown>; cert?: unknown; key?: unknown }): Promise<void> {
    const exec = this.plugins.get(user.name);
    if (!exec) return;
    const status = (await execCredential(user.name, exec, this.cluster, this.opts)).status ?? {};
    if (status.clientCertificateData) opts.cert = status.clientCertificateData;
    if (status.clientKeyData) opts.key = status.clientKeyData;
    if (status.token) opts.headers = { ...(opts.headers ?? {}), Authorization: `Bearer ${status.token}` };
  }
}

const cacheKey = (exec: ExecConfig, cluster: K8s.Cluster | undefined): string =>
  JSON.stringify([
    exec.command,
    exec.args ?? [],
    exec.env ?? [],
    exec.apiVersion ?? '',
    exec.provideClusterInfo ? (cluster?.server ?? '') : '',
  ]);

/** The cached credential of a plugin, running it when there is none or it has expired. */
export function execCredential(
  userName: string,
  exec: ExecConfig,
  cluster: K8s.Cluster | undefined,
  opts: ExecOptions = {},
): Promise<ExecCredential> {
  const now = (opts.now ?? Date.now)();
  const key = cacheKey(exec, cluster);
  let entry = cache.get(key);
  if (!entry) cache.set(key, (entry = {}));
  if (entry.credential && (entry.expires === undefined || entry.expires > now)) return Promise.resolve(entry.credential);
  if (entry.running) return entry.running;
  const e = entry;
  e.running = runPlugin(userName, exec, cluster, opts.timeoutMs ?? 120_000).then(
    (credential) => {
      e.running = undefined;
      e.credential = credential;
      const expiry = credential.status?.expirationTimestamp ? Date.parse(credential.status.expirationTimestamp) : NaN;
      e.expires = Number.isFinite(expiry) ? expiry : undefined;
      return credential;
    },
    (err: unknown) => {
      e.running = undefined;
      throw err;
    },
  );
  return e.running;
}

/** The exec authenticator of each KubeConfig selectContext made (for the 401 path of rest.ts). */
const authenticators = new WeakMap<object, CachedExecAuth>();

export function registerExecAuth(kc: object, auth: CachedExecAuth): void {
  authenticators.set(kc, auth);
}

/**
 * A request with `kc`'s current user was refused (401) with `sentAuthorization`: when that user's
 * credential comes from an exec plugin, drop it (see CachedExecAuth.refused) and say which plugin,
 * so the caller retries once with a fresh one. Undefined: no exec plugin, nothing to retry.
 */
export function execCredentialRefused(kc: K8s.KubeConfig, sentAuthorization: string | undefined): { plugin: string } | undefined {
  const user = kc.getCurrentUser();
  const auth = authenticators.get(kc);
  if (!user || !auth) return undefined;
  return auth.refused(user, sentAuthorization?.replace(/^Bearer /, ''));
}

/** Forgets every cached credential (tests; a 401 drops only the refused one: execCredentialRefused). */
export function forgetExecCredentials(): void {
  cache.clear();
}

function runPlugin(userName: string, exec: ExecConfig, cluster: K8s.Cluster | undefined, timeoutMs: number): Promise<ExecCredential> {
  const what = `the exec plugin "${exec.command}" of user "${userName}"`;
  if (exec.interactiveMode === 'Always')
    return Promise.reject(
      new ExecCredentialError(`${what} needs a terminal (interactiveMode: Always); run kubectl once in a terminal to log in`),
    );
  const info = {
    apiVersion: exec.apiVersion ?? 'client.authentication.k8s.io/v1beta1',
    kind: 'ExecCredential',
    spec: {
      interactive: false,
      ...(exec.provideClusterInfo && cluster
        ? {
            cluster: {
              server: cluster.server,
              ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
              ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
              ...(cluster.caData ? { 'certificate-authority-data': cluster.caData } : {}),
              ...(cluster.proxyUrl ? { 'proxy-url': cluster.proxyUrl } : {}),
            },
          }
        : {}),
    },
  };
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const v of exec.env ?? []) env[v.name] = v.value;
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const child = spawn(exec.command, exec.args ?? [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill();
      finish(() => reject(new ExecCredentialError(`${what} gave no credential within ${Math.round(timeoutMs / 1000)} s`)));
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (err: NodeJS.ErrnoException) => {
      const hint =
        err.code === 'ENOENT' ? ` (not found${exec.installHint ? `: ${exec.installHint.trim()}` : ''})` : ` (${err.code ?? err.message})`;
      finish(() => reject(new ExecCredentialError(`cannot run ${what}${hint}`)));
    });
    child.on('close', (code) => {
      if (code !== 0) {
        const reason = stderr.trim().split('\n').pop() ?? '';
        finish(() => reject(new ExecCredentialError(`${what} failed (exit ${code})${reason ? `: ${reason.slice(0, 300)}` : ''}`)));
        return;
      }
      let credential: ExecCredential;
      try {
        credential = JSON.parse(stdout) as ExecCredential;
      } catch {
        finish(() => reject(new ExecCredentialError(`${what} printed no ExecCredential JSON`)));
        return;
      }
      if (credential?.kind !== 'ExecCredential' || typeof credential.status !== 'object' || credential.status === null) {
        finish(() => reject(new ExecCredentialError(`${what} printed JSON that is not an ExecCredential with a status`)));
        return;
      }
      if (exec.apiVersion && credential.apiVersion !== exec.apiVersion) {
        finish(() =>
          reject(
            new ExecCredentialError(
              `${what} answered with apiVersion "${credential.apiVersion}", but the kubeconfig asks for "${exec.apiVersion}"`,
            ),
          ),
        );
        return;
      }
      finish(() => resolve(credential));
    });
  });
}
