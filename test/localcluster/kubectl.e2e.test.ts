// The real kubectl against the local cluster: discovery, OpenAPI, tables, apply, patch, watch.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parse as parseYaml } from 'yaml';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { kubectlOk, skipWithoutKubectl } from './helpers';
import { UPSTREAM } from '../support/peer';

const examples = join(UPSTREAM, 'examples');

describe('kubectl against the local cluster', function () {
  let cluster: LocalCluster;
  let cacheDir: string;

  before(async function () {
    skipWithoutKubectl(this);
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
  });
  after(async () => {
    await cluster?.close();
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  });

  /** kubectl with our kubeconfig: its stdout, or a rejection with its stderr. */
  const kubectl = (args: string[], timeoutMs?: number) => kubectlOk(cluster.kubeconfigPath, cacheDir, args, timeoutMs);

  it('get: lists namespaces as a table', async () => {
    const out = await kubectl(['get', 'namespaces']);
    assert.match(out, /^NAME\s+STATUS\s+AGE/);
    assert.match(out, /\ndefault\s+Active\s+/);
  });

  it('create namespace, configmap and secret (sent as protobuf) work', async () => {
    assert.match(await kubectl(['create', 'namespace', 'imperative']), /created/);
    await kubectl(['create', 'configmap', 'settings', '-n', 'imperative', '--from-literal=mode=fast']);
    await kubectl(['create', 'secret', 'generic', 'token', '-n', 'imperative', '--from-literal=value=t0ken']);
    assert.equal(await kubectl(['get', 'configmap', 'settings', '-n', 'imperative', '-o', 'jsonpath={.data.mode}']), 'fast');
    assert.equal(
      await kubectl(['get', 'secret', 'token', '-n', 'imperative', '-o', 'jsonpath={.data.value}']),
      Buffer.from('t0ken').toString('base64'),
    );
  });

  it('apply -f: every Argo Rollouts example applies, and applying again changes nothing', async function () {
    const files = readdirSync(examples).filter((f) => f.endsWith('.yaml'));
    if (!files.length) this.skip();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(cacheDir, 'ns.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'examples' } }));
    await kubectl(['apply', '-f', join(cacheDir, 'ns.json')]);
    for (const f of files) {
      const out = await kubectl(['apply', '-n', 'examples', '-f', join(examples, f)]);
      assert.match(out, /created/, `${f}: ${out}`);
    }
    for (const f of files) {
      const out = await kubectl(['apply', '-n', 'examples', '-f', join(examples, f)]);
      assert.doesNotMatch(out, /created|configured/, `${f} is unchanged on a second apply: ${out}`);
    }
  });

  it('get rollouts (and the short name ro) lists the applied Rollouts with their printer columns', async () => {
    const out = await kubectl(['get', 'rollouts', '-n', 'examples']);
    assert.match(out, /^NAME\s+DESIRED\s+CURRENT\s+UP-TO-DATE\s+AVAILABLE\s+AGE/);
    assert.match(out, /\nrollout-canary\s+5\s/);
    assert.match(out, /\nrollout-bluegreen\s+2\s/);
    const short = await kubectl(['get', 'ro', '-n', 'examples', '-o', 'name']);
    assert.match(short, /^rollout\.argoproj\.io\/rollout-canary$/m);
  });

  it('apply and get of an Ingress: the columns kubectl shows for it', async () => {
    const { writeFileSync } = await import('node:fs');
    const ingress = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'front', namespace: 'default' },
      spec: {
        ingressClassName: 'nginx',
        tls: [{ hosts: ['shop.example'] }],
        rules: [
          {
            host: 'shop.example',
            http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'shop', port: { number: 80 } } } }] },
          },
          { http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'shop', port: { number: 80 } } } }] } },
        ],
      },
    };
    writeFileSync(join(cacheDir, 'ingress.json'), JSON.stringify(ingress));
    assert.match(await kubectl(['apply', '-f', join(cacheDir, 'ingress.json')]), /ingress.networking.k8s.io\/front created/);
    const out = await kubectl(['get', 'ingress', 'front']);
    assert.match(out, /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\n/);
    assert.match(out, /\nfront\s+nginx\s+shop\.example,\*\s+80, 443\s+\d+s\n/);
  });

  it('get -o yaml returns the stored object', async () => {
    const doc = parseYaml(await kubectl(['get', 'rollout', 'rollout-canary', '-n', 'examples', '-o', 'yaml']));
    assert.equal(doc.kind, 'Rollout');
    assert.equal(doc.apiVersion, 'argoproj.io/v1alpha1');
    assert.equal(doc.metadata.generation, 1);
    assert.ok(doc.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.equal(doc.spec.strategy.canary.steps[0].setWeight, 20);
  });

  it('apply -f of a changed manifest updates a built-in kind (strategic merge) and a Rollout (merge patch)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubectl-apply-'));
    try {
      const { writeFileSync } = await import('node:fs');
      const svc = (targetPort: number) =>
        `apiVersion: v1\nkind: Service\nmetadata:\n  name: changed\nspec:\n  selector:\n    app: changed\n  ports:\n  - port: 80\n    targetPort: ${targetPort}\n`;
      writeFileSync(join(dir, 'svc.yaml'), svc(8080));
      await kubectl(['apply', '-n', 'examples', '-f', join(dir, 'svc.yaml')]);
      writeFileSync(join(dir, 'svc.yaml'), svc(9090));
      assert.match(await kubectl(['apply', '-n', 'examples', '-f', join(dir, 'svc.yaml')]), /configured/);
      assert.equal(await kubectl(['get', 'svc', 'changed', '-n', 'examples', '-o', 'jsonpath={.spec.ports[0].targetPort}']), '9090');

      const original = await kubectl(['get', 'rollout', 'rollout-canary', '-n', 'examples', '-o', 'yaml']);
      const doc = parseYaml(original);
      const manifest = parseYaml(doc.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
      manifest.spec.replicas = 7;
      writeFileSync(join(dir, 'ro.yaml'), JSON.stringify(manifest));
      assert.match(await kubectl(['apply', '-n', 'examples', '-f', join(dir, 'ro.yaml')]), /configured/);
      assert.equal(
        await kubectl(['get', 'rollout', 'rollout-canary', '-n', 'examples', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}']),
        '7 2',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('patch --type merge changes a Rollout', async () => {
    const out = await kubectl([
      'patch',
      'rollout',
      'rollout-bluegreen',
      '-n',
      'examples',
      '--type',
      'merge',
      '-p',
      '{"spec":{"paused":true}}',
    ]);
    assert.match(out, /patched/);
    assert.equal(await kubectl(['get', 'ro', 'rollout-bluegreen', '-n', 'examples', '-o', 'jsonpath={.spec.paused}']), 'true');
  });

  it("scale sets a Rollout's replicas through its scale subresource", async () => {
    assert.match(await kubectl(['scale', 'rollout', 'rollout-bluegreen', '-n', 'examples', '--replicas', '3']), /scaled/);
    assert.equal(await kubectl(['get', 'ro', 'rollout-bluegreen', '-n', 'examples', '-o', 'jsonpath={.spec.replicas}']), '3');
  });

  it('get -w shows a change as it happens (bounded)', async () => {
    const child = spawn(
      'kubectl',
      [
        '--kubeconfig',
        cluster.kubeconfigPath,
        '--cache-dir',
        cacheDir,
        'get',
        'rollouts',
        'rollout-bluegreen',
        '-n',
        'examples',
        '-w',
        '--request-timeout',
        '30s',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const lines: string[] = [];
      const lineArrived = (n: number) =>
        new Promise<void>((resolvePromise, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`kubectl get -w printed ${lines.length} lines, waited for ${n}: ${lines.join(' | ')}`)),
            15_000,
          );
          const check = () => {
            if (lines.length >= n) {
              clearTimeout(timer);
              resolvePromise();
            }
          };
          createInterface({ input: child.stdout! }).on('line', (l) => {
            lines.push(l);
            check();
          });
          check();
        });
      const header = lineArrived(2);
      await header;
      assert.match(lines[0]!, /^NAME\s+DESIRED/);
      await kubectl(['patch', 'rollout', 'rollout-bluegreen', '-n', 'examples', '--type', 'merge', '-p', '{"spec":{"replicas":4}}']);
      await new Promise<void>((resolvePromise, reject) => {
        const timer = setTimeout(() => reject(new Error(`no watch line for the change: ${lines.join(' | ')}`)), 15_000);
        const poll = () =>
          lines.some((l) => /^rollout-bluegreen\s+4\s/.test(l))
            ? (clearTimeout(timer), resolvePromise())
            : child.stdout!.once('data', () => setImmediate(poll));
        poll();
      });
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('get pods shows the Pods a ReplicaSet made, Running', async () => {
    const rs = `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`;
    const { writeFileSync } = await import('node:fs');
    const file = join(cacheDir, 'rs.json');
    writeFileSync(file, rs);
    await kubectl(['apply', '-n', 'examples', '-f', file]);
    await kubectl(['wait', '-n', 'examples', '--for=condition=Ready', 'pod', '-l', 'app=web', '--timeout=15s'], 20_000);
    const out = await kubectl(['get', 'pods', '-n', 'examples', '-l', 'app=web']);
    assert.equal(out.split('\n').filter((l) => /^web-\w{5}\s+1\/1\s+Running\s+0\s/.test(l)).length, 2, out);
    const pod = (await kubectl(['get', 'pods', '-n', 'examples', '-l', 'app=web', '-o', 'name'])).split('\n')[0]!;
    // Its simulated container's own lines: started with the ReplicaSet's image, then ready.
    assert.match(await kubectl(['logs', '-n', 'examples', pod]), /container "web" started \(image nginx:1\)\n.*ready/s);
    assert.match(await kubectl(['get', 'nodes']), /\nrollouts-local\s+Ready\s/);
    // Regression: kubectl describe service crashed on EndpointSlice ports without a name.
    writeFileSync(
      join(cacheDir, 'svc.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
      }),
    );
    await kubectl(['apply', '-n', 'examples', '-f', join(cacheDir, 'svc.json')]);
    assert.match(
      await kubectl(['describe', 'service', 'web', '-n', 'examples']),
      /\nEndpoints:\s+10\.244\.\d+\.\d+:80,10\.244\.\d+\.\d+:80\n/,
    );
    // The Deployment from rollout-template-ref.yaml is stored only: it makes no Pods.
    assert.doesNotMatch(await kubectl(['get', 'pods', '-n', 'examples']), /rollout-ref-deployment/);
  });

  it('delete removes an object, and a second delete is NotFound', async () => {
    assert.match(await kubectl(['delete', 'rollout', 'rollout-canary', '-n', 'examples']), /deleted/);
    await assert.rejects(kubectl(['delete', 'rollout', 'rollout-canary', '-n', 'examples']), /NotFound|not found/);
  });

  it('explain works for a Rollout and its top-level fields', async () => {
    const out = await kubectl(['explain', 'rollout.spec']);
    assert.match(out, /KIND:\s+Rollout/);
    assert.match(out, /FIELD:\s+spec/);
  });
});
