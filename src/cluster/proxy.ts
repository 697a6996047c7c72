/**
 * The proxy kubectl would use for a server when its kubeconfig cluster has no `proxy-url`: Go's
 * ProxyFromEnvironment (HTTPS_PROXY for https servers, HTTP_PROXY for http ones, the upper-case
 * name first; NO_PROXY as a list of hosts, domains, IPs and CIDRs, or `*`; localhost and loopback
 * addresses never proxied). client-node reads no environment, so we do this and hand it the
 * result as the cluster's proxyUrl, which it supports for http, https and socks proxies.
 */
import { isIP } from 'node:net';

export function proxyFromEnvironment(server: string, env: NodeJS.ProcessEnv): string | undefined {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return undefined;
  }
  const https = url.protocol === 'https:';
  const proxy = (https ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy))?.trim();
  if (!proxy) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (https ? '443' : '80');
  if (!useProxy(host, port, env.NO_PROXY ?? env.no_proxy ?? '')) return undefined;
  // As Go: a proxy given without a scheme is an http one.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

function useProxy(host: string, port: string, noProxy: string): boolean {
  if (host === 'localhost' || isLoopback(host)) return false;
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return false;
    if (entry.includes('/')) {
      if (inCidr(host, entry)) return false;
      continue;
    }
    // host[:port]; an IPv6 entry may be bracketed when it has a port.
    const m =
      /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? (isIP(entry) === 6 ? [entry, entry, undefined] : /^([^:]+)(?::(\d+))?$/.exec(entry));
    if (!m) continue;
    const [, entryHost = '', entryPort] = m;
    if (entryPort && entryPort !== port) continue;
    if (isIP(entryHost)) {
      if (entryHost === host) return false;
      continue;
    }
    // "foo.com" is foo.com and its subdomains; ".foo.com" and "*.foo.com" only the subdomains.
    const bare = entryHost.replace(/^\*?\./, '');
    const subdomainsOnly = entryHost.startsWith('.') || entryHost.startsWith('*.');
    if (host.endsWith(`.${bare}`) || (!subdomainsOnly && host === bare)) return false;
  }
  return true;
}

function isLoopback(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

function inCidr(host: string, cidr: string): boolean {
  const [base = '', bitsText = ''] = cidr.split('/');
  const bits = Number(bitsText);
  const family = isIP(host);
  if (!family || family !== isIP(base) || !Number.isInteger(bits)) return false;
  const a = ipBits(host);
  const b = ipBits(base);
  if (bits < 0 || bits > a.length) return false;
  return a.slice(0, bits) === b.slice(0, bits);
}

/** An IP address as a string of 32 or 128 bits. */
function ipBits(ip: string): string {
  if (isIP(ip) === 4)
    return ip
      .split('.')
      .map((o) => Number(o).toString(2).padStart(8, '0'))
      .join('');
  const [head = '', tail] = ip.split('::');
  const groups = (s: string) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const full = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return full.map((g) => parseInt(g, 16).toString(2).padStart(16, '0')).join('');
}
