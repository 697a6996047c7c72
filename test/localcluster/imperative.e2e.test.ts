// kubectl's imperative commands (which send protobuf, or JSON for run and expose) against the
// local cluster: each succeeds, and the stored object has what the command meant. (How a
// Deployment then rolls out is deployments.e2e.test.ts.)
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { kubectlOk, skipWithoutKubectl } from './helpers';

const opensslPresent = !spawnSync('openssl', ['version'], { timeout: 10_000 }).error;
const ns = 'imperative';

describe('kubectl imperative commands against the local cluster', function () {
  let cluster: LocalCluster;
  let dir: string;

  before(async function () {
    skipWithoutKubectl(this);
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    dir = mkdtempSync(join(tmpdir(), 'kubectl-imperative-'));
    await kubectl(['create', 'namespace', ns]);
  });
  after(async () => {
    await cluster?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** kubectl with our kubeconfig: its stdout, or a rejection with its stderr. */
  const kubectl = (args: string[], timeoutMs?: number) => kubectlOk(cluster.kubeconfigPath, join(dir, 'cache'), args, timeoutMs);
  const get = async (kind: string, name: string, namespace = ns): Promise<any> =>
    JSON.parse(await kubectl(['get', kind, name, '-n', namespace, '-o', 'json']));

  describe('create deployment', () => {
    it('stores the replicas, selector, template labels and container kubectl meant', async () => {
      assert.match(
        await kubectl(['create', 'deployment', 'web', '-n', ns, '--image=nginx:1', '--replicas=2', '--port=8080']),
        /deployment.apps\/web created/,
      );
      const d = await get('deployment', 'web');
      assert.equal(d.spec.replicas, 2);
      assert.deepEqual(d.spec.selector, { matchLabels: { app: 'web' } });
      assert.deepEqual(d.metadata.labels, { app: 'web' });
      assert.deepEqual(d.spec.template.metadata.labels, { app: 'web' });
      const [c, ...others] = d.spec.template.spec.containers;
      assert.equal(others.length, 0);
      assert.equal(c.name, 'nginx');
      assert.equal(c.image, 'nginx:1');
      assert.deepEqual(c.ports, [{ containerPort: 8080, protocol: 'TCP' }]);
      assert.equal(d.metadata.generation, 1);
    });

    it('keeps an explicit --replicas=0, several images, and a command', async () => {
      await kubectl(['create', 'deployment', 'idle', '-n', ns, '--image=nginx:1', '--image=busybox:1.36', '--replicas=0']);
      const idle = await get('deployment', 'idle');
      assert.equal(idle.spec.replicas, 0);
      assert.deepEqual(
        idle.spec.template.spec.containers.map((c: any) => [c.name, c.image]),
        [
          ['nginx', 'nginx:1'],
          ['busybox', 'busybox:1.36'],
        ],
      );
      await kubectl(['create', 'deployment', 'sleeper', '-n', ns, '--image=busybox', '--', 'sleep', '3600']);
      assert.deepEqual((await get('deployment', 'sleeper')).spec.template.spec.containers[0].command, ['sleep', '3600']);
    });

    it('--dry-run=server -o yaml prints the defaulted object and stores nothing', async () => {
      const doc = parseYaml(
        await kubectl(['create', 'deployment', 'preview', '-n', ns, '--image=nginx:1', '--dry-run=server', '-o', 'yaml']),
      );
      assert.equal(doc.kind, 'Deployment');
      assert.equal(doc.spec.replicas, 1, 'replicas is defaulted by the server');
      assert.equal(doc.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
      await assert.rejects(kubectl(['get', 'deployment', 'preview', '-n', ns]), /NotFound/);
    });

    it('expose deployment makes a Service selecting its pods', async () => {
      assert.match(await kubectl(['expose', 'deployment', 'web', '-n', ns, '--port=80', '--target-port=8080']), /service\/web exposed/);
      const s = await get('service', 'web');
      assert.deepEqual(s.spec.selector, { app: 'web' });
      assert.deepEqual(s.spec.ports, [{ port: 80, targetPort: 8080, protocol: 'TCP' }]);
    });
  });

  describe('create service', () => {
    it('clusterip: the port, a targetPort of 8080 and the selector, with a cluster IP allocated', async () => {
      await kubectl(['create', 'service', 'clusterip', 'svc1', '-n', ns, '--tcp=80:8080']);
      const s = await get('service', 'svc1');
      assert.equal(s.spec.type, 'ClusterIP');
      assert.deepEqual(s.spec.ports, [{ name: '80-8080', port: 80, targetPort: 8080, protocol: 'TCP' }]);
      assert.deepEqual(s.spec.selector, { app: 'svc1' });
      assert.match(s.spec.clusterIP, /^\d+\.\d+\.\d+\.\d+$/);
    });

    it('clusterip --clusterip=None is headless', async () => {
      await kubectl(['create', 'service', 'clusterip', 'headless', '-n', ns, '--clusterip=None']);
      assert.equal((await get('service', 'headless')).spec.clusterIP, 'None');
    });

    it('nodeport: the node port kubectl asked for', async () => {
      await kubectl(['create', 'service', 'nodeport', 'np1', '-n', ns, '--tcp=80:8080', '--node-port=30080']);
      const s = await get('service', 'np1');
      assert.equal(s.spec.type, 'NodePort');
      assert.deepEqual(s.spec.ports, [{ name: '80-8080', port: 80, targetPort: 8080, nodePort: 30080, protocol: 'TCP' }]);
    });

    it('loadbalancer and externalname', async () => {
      await kubectl(['create', 'service', 'loadbalancer', 'lb1', '-n', ns, '--tcp=443:8443']);
      const lb = await get('service', 'lb1');
      assert.equal(lb.spec.type, 'LoadBalancer');
      assert.equal(lb.spec.ports[0].targetPort, 8443);
      await kubectl(['create', 'service', 'externalname', 'ext1', '-n', ns, '--external-name=example.com']);
      const ext = await get('service', 'ext1');
      assert.equal(ext.spec.type, 'ExternalName');
      assert.equal(ext.spec.externalName, 'example.com');
      assert.equal(ext.spec.clusterIP, undefined);
    });
  });

  describe('run', () => {
    it('makes a Pod with the image, labels, env and port, and it becomes Ready', async () => {
      await kubectl(['run', 'p', '-n', ns, '--image=nginx:1', '--labels=app=p', '--env=MODE=fast', '--port=8080']);
      const p = await get('pod', 'p');
      assert.deepEqual(p.metadata.labels, { app: 'p' });
      const c = p.spec.containers[0];
      assert.equal(c.image, 'nginx:1');
      assert.deepEqual(c.env, [{ name: 'MODE', value: 'fast' }]);
      assert.deepEqual(c.ports, [{ containerPort: 8080, protocol: 'TCP' }]);
      await kubectl(['wait', '-n', ns, '--for=condition=Ready', 'pod/p', '--timeout=15s'], 20_000);
    });
  });

  describe('create configmap, secret and namespace', () => {
    it('configmap --from-literal and --from-file', async () => {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(join(dir, 'app.conf'), 'level=debug\n');
      await kubectl([
        'create',
        'configmap',
        'settings',
        '-n',
        ns,
        '--from-literal=mode=fast',
        '--from-literal=empty=',
        `--from-file=${join(dir, 'app.conf')}`,
      ]);
      assert.deepEqual((await get('configmap', 'settings')).data, { mode: 'fast', empty: '', 'app.conf': 'level=debug\n' });
    });

    it('secret generic and docker-registry', async () => {
      await kubectl(['create', 'secret', 'generic', 'token', '-n', ns, '--from-literal=value=t0ken']);
      const generic = await get('secret', 'token');
      assert.equal(generic.type, 'Opaque');
      assert.equal(Buffer.from(generic.data.value, 'base64').toString(), 't0ken');
      await kubectl([
        'create',
        'secret',
        'docker-registry',
        'regcred',
        '-n',
        ns,
        '--docker-server=registry.example',
        '--docker-username=u',
        '--docker-password=p',
      ]);
      const reg = await get('secret', 'regcred');
      assert.equal(reg.type, 'kubernetes.io/dockerconfigjson');
      assert.equal(JSON.parse(Buffer.from(reg.data['.dockerconfigjson'], 'base64').toString()).auths['registry.example'].username, 'u');
    });

    it('secret tls', async function () {
      if (!opensslPresent) this.skip();
      const cert = join(dir, 'tls.crt');
      const key = join(dir, 'tls.key');
      const made = spawnSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-subj',
          '/CN=local',
          '-days',
          '1',
        ],
        { timeout: 20_000 },
      );
      assert.equal(made.status, 0, String(made.stderr));
      await kubectl(['create', 'secret', 'tls', 'tls', '-n', ns, `--cert=${cert}`, `--key=${key}`]);
      const s = await get('secret', 'tls');
      assert.equal(s.type, 'kubernetes.io/tls');
      assert.equal(Buffer.from(s.data['tls.crt'], 'base64').toString(), readFileSync(cert, 'utf8'));
    });

    it('namespace', async () => {
      await kubectl(['create', 'namespace', 'team-b']);
      const n = JSON.parse(await kubectl(['get', 'namespace', 'team-b', '-o', 'json']));
      assert.equal(n.status.phase, 'Active');
      assert.deepEqual(n.spec.finalizers, ['kubernetes']);
    });
  });

  describe('kinds the local cluster does not serve', () => {
    it('create poddisruptionbudget and create job stay NotFound', async () => {
      await assert.rejects(
        kubectl(['create', 'poddisruptionbudget', 'pdb', '-n', ns, '--selector=app=web', '--min-available=1']),
        /could not find the requested resource/,
      );
      await assert.rejects(
        kubectl(['create', 'job', 'once', '-n', ns, '--image=busybox']),
        /could not find the requested resource|doesn't have a resource type/,
      );
    });
  });

  describe('changing the created Deployment', () => {
    it('scale, set image, label and annotate', async () => {
      assert.match(await kubectl(['scale', 'deployment', 'web', '-n', ns, '--replicas=3']), /scaled/);
      assert.match(await kubectl(['set', 'image', 'deployment/web', '-n', ns, 'nginx=nginx:2']), /image updated/);
      assert.match(await kubectl(['label', 'deployment', 'web', '-n', ns, 'tier=frontend']), /labeled/);
      assert.match(await kubectl(['annotate', 'deployment', 'web', '-n', ns, 'note=hi']), /annotated/);
      const d = await get('deployment', 'web');
      assert.equal(d.spec.replicas, 3);
      assert.equal(d.spec.template.spec.containers[0].image, 'nginx:2');
      assert.equal(d.metadata.labels.tier, 'frontend');
      assert.equal(d.metadata.annotations.note, 'hi');
      assert.equal(d.metadata.generation, 3, 'scale and set image change the spec; label and annotate do not');
    });
  });
});
