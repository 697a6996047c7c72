// The `sleep-job` AnalysisTemplate of upstream's e2e suites (@functional/analysistemplate-sleep-job.yaml:
// a Job that sleeps {{args.duration}} seconds, then exits {{args.exit-code}}), played by a `web`
// metric against a small HTTP server on 127.0.0.1: the embedded controller runs no `job` provider
// (src/cluster/analysis/providers.ts). The Job's sleep becomes the metric's initialDelay (the run is
// Running meanwhile, as while the Job runs), then the server answers at once {"phase": "Succeeded"}
// or {"phase": "Failed"}, as the Job would end. Every other field of the template (its name, args
// and their defaults, count) is upstream's.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JobServer {
  /** The sleep-job AnalysisTemplate pointed at this server. */
  template: string;
  close(): Promise<void>;
}

export function startSleepJobServer(): Promise<JobServer> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const exit = Number(url.searchParams.get('exit') ?? '0');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ phase: exit === 0 ? 'Succeeded' : 'Failed' }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({
        template: `
kind: AnalysisTemplate
apiVersion: argoproj.io/v1alpha1
metadata:
  name: sleep-job
spec:
  args:
  - name: duration
    value: "0"
  - name: exit-code
    value: "0"
  - name: count
    value: "1"
  - name: rev
    value: "notset"
  metrics:
  - name: sleep-job
    count: "{{args.count}}"
    initialDelay: "{{args.duration}}"
    successCondition: result == 'Succeeded'
    failureCondition: result == 'Failed'
    provider:
      web:
        url: "${base}/job?exit={{args.exit-code}}&rev={{args.rev}}"
        jsonPath: "{$.phase}"
`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}
