// Stand-ins for the metric providers upstream's e2e suites use and the embedded controller does not
// run locally. The controller measures `web` and `prometheus` only (src/cluster/analysis/providers.ts),
// so upstream's `job` metrics (a Job that sleeps, then exits with a code; or runs past its
// activeDeadlineSeconds; or cannot pull its image) become `web` metrics against a small HTTP server
// on 127.0.0.1 that plays the Job and answers its outcome as a Job's status would end:
//   Succeeded (exit 0)                   -> the measurement is Successful, as the job provider's
//   Failed (exit != 0, or past deadline) -> Failed
//   ImagePullBackOff (never starts)      -> Inconclusive (neither condition holds)
// The upstream web metrics that call the internet (the API server's /version, dns.google, a gist
// behind a Secret) get the same answers from this server. The scenario's clock runs faster than
// real time (test/upstream/dsl.ts), so the server's sleeps are scaled by the same factor (`scale`
// = 1 / timeScale); every other field of the templates is upstream's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAllDocuments, stringify } from 'yaml';

export interface MetricServer {
  base: string;
  /** Real seconds per played second (1 / the scenario's timeScale); may be changed between tests. */
  scale: number;
  /** Every request's path and query, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** How long (unscaled) a Job's pod takes to report that its image cannot be pulled. */
const IMAGE_PULL_SECONDS = 5;
/** How long (unscaled) a Job takes before its command runs (pod scheduled, image pulled, started). */
const JOB_START_SECONDS = 2;
/** A Job sleeping this long or more never ends within a test. */
const ENDLESS_SECONDS = 600;

/** The seconds of a `sleep` argument: "5", "0s", "1m". */
function seconds(text: string | null): number {
  if (!text) return 0;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return 0;
  const n = Number(m[1]);
  return m[2] === 'ms' ? n / 1000 : m[2] === 'm' ? n * 60 : m[2] === 'h' ? n * 3600 : n;
}

/**
 * GET /job?sleep=S&exit=C&deadline=D&image=invalid plays a Job: it answers after S (or D, when the
 * deadline comes first) times `scale`, {"phase": "Succeeded" | "Failed" | "ImagePullBackOff"}.
 * GET /version, /resolve, /secret answer as the hosts upstream's web metrics call; /echo answers {"ok": true}.
 */
export function startMetricServer(scale: number): Promise<MetricServer> {
  const requests: string[] = [];
  const state = { scale };
  const pending = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const answer = (body: unknown) => {
      if (res.writableEnded || res.destroyed) return;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    switch (url.pathname) {
      case '/job': {
        // A pod whose image cannot be pulled reports ErrImagePull after a few seconds, then stays so.
        const invalidImage = url.searchParams.get('image') === 'invalid';
        const sleep = invalidImage ? IMAGE_PULL_SECONDS : JOB_START_SECONDS + seconds(url.searchParams.get('sleep'));
        const deadline = url.searchParams.has('deadline') ? seconds(url.searchParams.get('deadline')) : Infinity;
        const killed = deadline < sleep;
        const exit = Number(url.searchParams.get('exit') ?? '0');
        const after = Math.min(sleep, deadline) * state.scale * 1000;
        const finish = () => {
          pending.delete(finish);
          clearTimeout(timer);
          if (invalidImage) answer({ phase: 'ImagePullBackOff' });
          else
            answer(
              killed ? { phase: 'Failed', reason: 'DeadlineExceeded' } : { phase: exit === 0 ? 'Succeeded' : 'Failed', exitCode: exit },
            );
        };
        const timer = setTimeout(finish, after);
        pending.add(finish);
        req.on('close', () => {
          clearTimeout(timer);
          pending.delete(finish);
        });
        return;
      }
      case '/version':
        return answer({ major: '1', minor: '30', gitVersion: 'v1.30.0' });
      case '/resolve':
        return answer({ Status: 0, TC: false, Answer: [{ name: 'google.com.', type: 1, data: '142.250.0.0' }] });
      case '/secret':
        return answer({ message: 'It worked!' });
      case '/echo':
        return answer({ ok: true });
      default:
        if (url.pathname.startsWith('/repos/')) return answer({ full_name: url.pathname.slice('/repos/'.length) });
        res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        get scale() {
          return state.scale;
        },
        set scale(v: number) {
          state.scale = v;
        },
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    ),
  );
}

type Obj = Record<string, any>;

/** The web metric that plays a `job` provider's Job (see the file comment). */
function jobAsWeb(job: Obj, base: string, timeoutSeconds: number): Obj {
  const container = job.spec?.template?.spec?.containers?.[0] ?? {};
  const script = [...(container.command ?? []), ...(container.args ?? [])].join(' ');
  const query: string[] = [];
  const sleep = /sleep\s+(\S+)/.exec(script);
  if (sleep) query.push(`sleep=${sleep[1]}`);
  const exit = /exit\s+(\S+)/.exec(script);
  if (exit) query.push(`exit=${exit[1]}`);
  if (job.spec?.activeDeadlineSeconds !== undefined) query.push(`deadline=${job.spec.activeDeadlineSeconds}`);
  if (/nonexistent/.test(String(container.image))) query.push('image=invalid');
  // A Job that never ends: upstream's job provider records a Running measurement at once. A web
  // measurement is recorded when its request returns, so the request is cut short (an Error
  // measurement; the run is Running until consecutiveErrorLimit) rather than hang the run's first status.
  const endless = sleep !== null && seconds(sleep[1]!) >= ENDLESS_SECONDS && job.spec?.activeDeadlineSeconds === undefined;
  return { web: { url: `${base}/job?${query.join('&')}`, jsonPath: '{$.phase}', timeoutSeconds: endless ? 2 : timeoutSeconds } };
}

/**
 * Upstream's AnalysisTemplate YAML with its `job` metrics played by the metric server and its
 * internet URLs pointed at it; Secrets holding a URL get the server's /secret instead.
 * `timeoutSeconds` bounds a web measurement (a Job that never ends becomes a request that never answers).
 */
export function standIn(yamlText: string, base: string, timeoutSeconds = 60): string {
  const out: string[] = [];
  for (const doc of parseAllDocuments(yamlText)) {
    const o = doc.toJS() as Obj | null;
    if (!o) continue;
    if (o.kind === 'AnalysisTemplate' || o.kind === 'ClusterAnalysisTemplate') {
      for (const a of o.spec?.args ?? []) {
        if (typeof a.value === 'string' && a.value.startsWith('https://kubernetes.default.svc/version')) a.value = `${base}/version`;
        if (typeof a.value === 'string' && a.value.startsWith('https://dns.google/')) a.value = `${base}/resolve`;
      }
      for (const m of o.spec?.metrics ?? []) {
        if (m.provider?.job) {
          m.provider = jobAsWeb(m.provider.job, base, timeoutSeconds);
          m.successCondition = "result == 'Succeeded'";
          m.failureCondition = "result == 'Failed'";
        }
        if (m.provider?.web?.insecure) delete m.provider.web.insecure;
      }
    }
    if (o.kind === 'Secret' && o.data?.secretUrl) o.data.secretUrl = Buffer.from(`${base}/secret`).toString('base64');
    out.push(stringify(o));
  }
  return out.join('---\n');
}
