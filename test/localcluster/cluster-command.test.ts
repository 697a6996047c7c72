// `rollouts cluster` options and the --demo seed.
import { strict as assert } from 'node:assert';
import { UsageError } from '../../src/cli/command';
import { parseClusterArgs } from '../../src/cli/commands/cluster';
import { demoNamespace } from '../../src/localcluster';
import { startHarness } from './helpers';
import { k8s } from './k8s';

describe('rollouts cluster options', () => {
  it('defaults to a free port, in memory, pods ready after 2 seconds', () => {
    assert.deepEqual(parseClusterArgs([]), { port: 0, demo: false, podReadySeconds: 2 });
  });

  it('reads every option, in both --flag value and --flag=value forms', () => {
    assert.deepEqual(
      parseClusterArgs([
        '--port',
        '8080',
        '--data-dir=/tmp/x',
        '--demo',
        '--pod-ready-seconds',
        '0.5',
        '--fail-image',
        ':oops$',
        '--max-pods=7',
      ]),
      {
        port: 8080,
        dataDir: '/tmp/x',
        demo: true,
        podReadySeconds: 0.5,
        failImage: ':oops$',
        maxPods: 7,
      },
    );
  });

  it('says what is wrong with a bad option', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--port', '70000'], /--port must be a whole number from 0 to 65535, got "70000"/],
      [['--pod-ready-seconds', '-1'], /--pod-ready-seconds/],
      [['--fail-image', '('], /--fail-image is not a valid regular expression/],
      [['--data-dir'], /--data-dir needs a value/],
      [['--max-pods', '1.5'], /--max-pods must be a whole number, 0 or more, got "1.5"/],
      [['--verbose'], /unknown option "--verbose"/],
    ];
    for (const [args, message] of cases)
      assert.throws(
        () => parseClusterArgs(args),
        (e: unknown) => e instanceof UsageError && message.test(e.message),
        args.join(' '),
      );
  });
});

describe('the kubeconfig it writes', () => {
  it('works with client-node as written (plain http on loopback)', async () => {
    const h = await startHarness();
    try {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(h.cluster.kubeconfigPath);
      assert.equal(kc.getCurrentCluster()!.server, h.cluster.url);
      const namespaces = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
      assert.ok(namespaces.items.some((n) => n.metadata!.name === 'default'));
    } finally {
      await h.cluster.close();
    }
  });
});

describe('--demo', () => {
  it('seeds a namespace with Services, a canary Rollout and a blue-green Rollout', async () => {
    const h = await startHarness({ demo: true });
    try {
      const rollouts: any = await h.custom.listNamespacedCustomObject({
        group: 'argoproj.io',
        version: 'v1alpha1',
        namespace: demoNamespace,
        plural: 'rollouts',
      });
      const byName = Object.fromEntries(rollouts.items.map((r: any) => [r.metadata.name, r]));
      assert.ok(byName['canary-demo'].spec.strategy.canary.steps.length > 0);
      const bg = byName['bluegreen-demo'].spec.strategy.blueGreen;
      const services = (await h.core.listNamespacedService({ namespace: demoNamespace })).items.map((s) => s.metadata!.name);
      assert.ok(services.includes(bg.activeService) && services.includes(bg.previewService));
      assert.ok(services.includes(byName['canary-demo'].spec.strategy.canary.stableService));
    } finally {
      await h.cluster.close();
    }
  });
});
