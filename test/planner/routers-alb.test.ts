import { strict as assert } from 'node:assert';
import { trafficRoutersOf } from '../../src/planner';
import type { CanaryStep, RouterObject, RouterObjectRef, Rollout, RolloutStatus, TrafficRouting, TrafficWeights } from '../../src/planner';
import { FakeCluster, problemOf, writesOf } from './router-fake-cluster';

const MANAGED = 'rollouts.argoproj.io/managed-alb-annotations';
const ACTION = 'alb.ingress.kubernetes.io/actions.web-stable';

function rolloutWith(
  alb: Record<string, unknown>,
  canary: Record<string, unknown> = { canaryService: 'web-canary', stableService: 'web-stable' },
  extra: TrafficRouting = {},
): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' },
    spec: { strategy: { canary: { ...canary, trafficRouting: { alb, ...extra }, steps: [{ setWeight: 20 }] } } },
  };
}

function weights(canary: number, additional: { serviceName?: string; weight: number }[] = [], total = 100): TrafficWeights {
  return {
    canary: { weight: canary, serviceName: 'web-canary', podTemplateHash: 'hash-canary' },
    stable: {
      weight: total - canary - additional.reduce((s, d) => s + d.weight, 0),
      serviceName: 'web-stable',
      podTemplateHash: 'hash-stable',
    },
    ...(additional.length ? { additional } : {}),
  };
}

const ingressRef = (name: string): RouterObjectRef => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  plural: 'ingresses',
  namespace: 'shop',
  name,
});

/** An Ingress as the ALB controller's users write it: the rule's backend is the action's Service, port `use-annotation`. */
function ingress(
  name: string,
  service = 'web-stable',
  annotations: Record<string, string> = { 'kubernetes.io/ingress.class': 'alb' },
): RouterObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: 'shop', annotations },
    spec: {
      rules: [
        {
          http: {
            paths: [
              { path: '/*', pathType: 'ImplementationSpecific', backend: { service: { name: service, port: { name: 'use-annotation' } } } },
            ],
          },
        },
      ],
    },
  };
}

/** The forward action's target groups as `service:port=weight`. */
function targetGroups(cluster: FakeCluster, name: string, key = ACTION): string[] {
  const text = cluster.get(ingressRef(name))!.metadata!.annotations![key];
  assert.ok(text, `annotation ${key} on ${name}`);
  const action = JSON.parse(text) as {
    Type: string;
    ForwardConfig: { TargetGroups: { ServiceName: string; ServicePort: string; Weight: number }[] };
  };
  assert.equal(action.Type, 'forward');
  return action.ForwardConfig.TargetGroups.map((g) => `${g.ServiceName}:${g.ServicePort}=${g.Weight}`);
}

const managed = (cluster: FakeCluster, name: string): unknown =>
  JSON.parse(cluster.get(ingressRef(name))!.metadata!.annotations![MANAGED]!);

describe('routers: AWS ALB Ingress', () => {
  const alb = rolloutWith({ ingress: 'web', servicePort: 80 });

  it('reads the named Ingress and patches in the forward action with the canary and stable target groups', () => {
    assert.deepEqual(trafficRoutersOf(alb), { driven: ['alb'], notDriven: [], reads: [ingressRef('web')] });
    const cluster = new FakeCluster(ingress('web'));
    const before = cluster.get(ingressRef('web'))!;
    const [write, ...more] = writesOf(cluster.reconcile(alb, weights(20)));
    assert.equal(more.length, 0);
    assert.equal(write!.action, 'patch');
    assert.equal(write!.action === 'patch' && write!.patch.metadata?.resourceVersion, before.metadata?.resourceVersion);
    assert.deepEqual(JSON.parse(cluster.get(ingressRef('web'))!.metadata!.annotations![ACTION]!), {
      Type: 'forward',
      ForwardConfig: {
        TargetGroups: [
          { ServiceName: 'web-canary', ServicePort: '80', Weight: 20 },
          { ServiceName: 'web-stable', ServicePort: '80', Weight: 80 },
        ],
      },
    });
    assert.deepEqual(managed(cluster, 'web'), { web: [ACTION] });
    const after = cluster.get(ingressRef('web'))!;
    assert.equal(after.metadata!.annotations!['kubernetes.io/ingress.class'], 'alb', 'the other annotations stay');
    assert.deepEqual(after.spec, before.spec, 'the rules are not changed');
    assert.equal(after.metadata?.ownerReferences, undefined, 'the Ingress stays the user’s');
  });

  it('patches only the action on a weight change, and writes nothing once the weights match', () => {
    const cluster = new FakeCluster(ingress('web'));
    cluster.reconcile(alb, weights(20));
    const [write, ...more] = writesOf(cluster.reconcile(alb, weights(50)));
    assert.equal(more.length, 0);
    assert.deepEqual(
      write!.action === 'patch' && Object.keys(write!.patch.metadata!.annotations!),
      [ACTION],
      'the managed record already names the action',
    );
    assert.deepEqual(targetGroups(cluster, 'web'), ['web-canary:80=50', 'web-stable:80=50']);
    assert.deepEqual(writesOf(cluster.reconcile(alb, weights(50))), [], 'no write at rest');
    writesOf(cluster.reconcile(alb, weights(0)));
    assert.deepEqual(targetGroups(cluster, 'web'), ['web-canary:80=0', 'web-stable:80=100'], 'a weight of 0 is written, not left out');
  });

  it('reads the annotations as JSON: another key order and spacing that mean the same are not rewritten', () => {
    const action =
      '{ "ForwardConfig": { "TargetGroups": [ {"Weight": 20, "ServicePort": "80", "ServiceName": "web-canary"}, {"ServiceName":"web-stable","Weight":80,"ServicePort":"80"} ] },\n  "Type": "forward" }';
    const cluster = new FakeCluster(
      ingress('web', 'web-stable', { [ACTION]: action, [MANAGED]: '{ "web" : [ "alb.ingress.kubernetes.io/actions.web-stable" ] }' }),
    );
    assert.deepEqual(writesOf(cluster.reconcile(alb, weights(20))), []);
    // The target groups' order is meaningful to nobody but is part of the value: a different weight is rewritten.
    assert.equal(writesOf(cluster.reconcile(alb, weights(30))).length, 1);
  });

  it('puts back an action changed by hand, and an action annotation that is not JSON', () => {
    const cluster = new FakeCluster(ingress('web', 'web-stable', { [ACTION]: 'not json' }));
    writesOf(cluster.reconcile(alb, weights(20)));
    assert.deepEqual(targetGroups(cluster, 'web'), ['web-canary:80=20', 'web-stable:80=80']);
  });

  it('keeps the other Rollouts’ entries of the managed-annotations record', () => {
    const cluster = new FakeCluster(
      ingress('web', 'web-stable', { [MANAGED]: '{"api":["alb.ingress.kubernetes.io/actions.api-stable"]}' }),
    );
    writesOf(cluster.reconcile(alb, weights(20)));
    assert.deepEqual(managed(cluster, 'web'), { api: ['alb.ingress.kubernetes.io/actions.api-stable'], web: [ACTION] });
  });

  it('annotates each of several ingresses, each once, with its own servicePorts or the servicePort', () => {
    const several = rolloutWith({
      ingresses: ['web', 'admin', 'web'],
      servicePort: 80,
      servicePorts: [{ ingress: 'admin', servicePorts: [8080, 9090] }],
    });
    assert.deepEqual(trafficRoutersOf(several).reads, [ingressRef('web'), ingressRef('admin')]);
    const cluster = new FakeCluster(ingress('web'), ingress('admin'));
    const writes = writesOf(cluster.reconcile(several, weights(20)));
    assert.deepEqual(
      writes.map((w) => w.ref.name),
      ['web', 'admin'],
    );
    assert.deepEqual(targetGroups(cluster, 'web'), ['web-canary:80=20', 'web-stable:80=80']);
    assert.deepEqual(targetGroups(cluster, 'admin'), [
      'web-canary:8080=20',
      'web-canary:9090=20',
      'web-stable:8080=80',
      'web-stable:9090=80',
    ]);
    // One Ingress changed by hand: only it is written.
    cluster.put({ ...cluster.get(ingressRef('admin'))!, metadata: { ...cluster.get(ingressRef('admin'))!.metadata, annotations: {} } });
    assert.deepEqual(
      writesOf(cluster.reconcile(several, weights(20))).map((w) => w.ref.name),
      ['admin'],
    );
    assert.deepEqual(writesOf(cluster.reconcile(several, weights(20))), []);
  });

  it('keys the action by rootService, and needs a rule with that Service as its backend', () => {
    const rooted = rolloutWith({ ingress: 'web', servicePort: 80, rootService: 'web-root' });
    const cluster = new FakeCluster(ingress('web', 'web-root'));
    writesOf(cluster.reconcile(rooted, weights(20)));
    assert.deepEqual(targetGroups(cluster, 'web', 'alb.ingress.kubernetes.io/actions.web-root'), ['web-canary:80=20', 'web-stable:80=80']);
    assert.deepEqual(managed(cluster, 'web'), { web: ['alb.ingress.kubernetes.io/actions.web-root'] });
    assert.equal(cluster.get(ingressRef('web'))!.metadata!.annotations![ACTION], undefined);
    assert.equal(
      problemOf(new FakeCluster(ingress('web')).reconcile(rooted, weights(20))),
      'trafficRouting.alb: Ingress "shop/web" has no rule whose backend is the Service "web-root" (the rootService), so the ALB would not use the action alb.ingress.kubernetes.io/actions.web-root',
    );
  });

  it('uses annotationPrefix for the action key', () => {
    const prefixed = rolloutWith({ ingress: 'web', servicePort: 80, annotationPrefix: 'custom.alb.io' });
    const cluster = new FakeCluster(ingress('web'));
    writesOf(cluster.reconcile(prefixed, weights(20)));
    assert.deepEqual(targetGroups(cluster, 'web', 'custom.alb.io/actions.web-stable'), ['web-canary:80=20', 'web-stable:80=80']);
  });

  it('gives each weighted experiment template a target group at its Service; the stable gets the rest', () => {
    const cluster = new FakeCluster(ingress('web'));
    writesOf(cluster.reconcile(alb, weights(20, [{ serviceName: 'web-exp', weight: 10 }])));
    assert.deepEqual(targetGroups(cluster, 'web'), ['web-canary:80=20', 'web-exp:80=10', 'web-stable:80=70']);
    assert.match(problemOf(cluster.reconcile(alb, weights(20, [{ weight: 10 }]))), /experiment template at weight 10 has no Service yet/);
  });

  it('weighs out of maxTrafficWeight, as status.canary.weights does', () => {
    const cluster = new FakeCluster(ingress('web'));
    writesOf(
      cluster.reconcile(rolloutWith({ ingress: 'web', servicePort: 80 }, undefined, { maxTrafficWeight: 1000 }), weights(200, [], 1000)),
    );
    assert.deepEqual(targetGroups(cluster, 'web'), ['web-canary:80=200', 'web-stable:80=800']);
  });

  it('adds the stickiness config when enabled, and refuses a duration AWS would', () => {
    const sticky = (durationSeconds: number) =>
      rolloutWith({ ingress: 'web', servicePort: 80, stickinessConfig: { enabled: true, durationSeconds } });
    const cluster = new FakeCluster(ingress('web'));
    writesOf(cluster.reconcile(sticky(3600), weights(20)));
    assert.deepEqual(
      JSON.parse(cluster.get(ingressRef('web'))!.metadata!.annotations![ACTION]!).ForwardConfig.TargetGroupStickinessConfig,
      { Enabled: true, DurationSeconds: 3600 },
    );
    assert.deepEqual(writesOf(cluster.reconcile(sticky(3600), weights(20))), []);
    assert.equal(
      problemOf(cluster.reconcile(sticky(0), weights(20))),
      'trafficRouting.alb: stickinessConfig.durationSeconds must be between 1 and 604800 (7 days)',
    );
  });

  describe('header routes (setHeaderRoute, as upstream SetHeaderRoute and RemoveManagedRoutes)', () => {
    const ROUTE_ACTION = 'alb.ingress.kubernetes.io/actions.beta';
    const ROUTE_CONDITIONS = 'alb.ingress.kubernetes.io/conditions.beta';
    const header = (name: string, exact?: string, headerName = 'X-Beta'): CanaryStep => ({
      setHeaderRoute: { name, ...(exact === undefined ? {} : { match: [{ headerName, headerValue: { exact } }] }) },
    });
    const steps: CanaryStep[] = [
      { setWeight: 20 },
      header('beta', 'yes'),
      { pause: {} },
      header('beta', 'true'),
      { pause: {} },
      header('beta'),
      { pause: {} },
    ];

    /** A rollout whose status (as this reconcile decided it) is at step `at` of a canary update. */
    function routed(
      at: number,
      status: Partial<RolloutStatus> = {},
      alb: Record<string, unknown> = { ingress: 'web', servicePort: 80 },
      managedRoutes = ['gamma', 'beta'],
      generation = 2,
    ): Rollout {
      const r = rolloutWith(alb, undefined, { managedRoutes: managedRoutes.map((name) => ({ name })) });
      r.metadata!.generation = generation;
      r.spec!.strategy!.canary!.steps = steps;
      r.status = { currentPodHash: 'hash-canary', stableRS: 'hash-stable', currentStepIndex: at, ...status };
      return r;
    }
    /** Each rule's paths as `path -> backend:port`. */
    const paths = (cluster: FakeCluster) =>
      (
        cluster.get(ingressRef('web'))!.spec.rules as {
          http: { paths: { path: string; backend: { service: { name: string; port: { name?: string } } } }[] };
        }[]
      ).map((r) => r.http.paths.map((p) => `${p.path} -> ${p.backend.service.name}:${p.backend.service.port.name}`));
    const annotations = (cluster: FakeCluster) => cluster.get(ingressRef('web'))!.metadata!.annotations!;
    const conditions = (cluster: FakeCluster) => JSON.parse(annotations(cluster)[ROUTE_CONDITIONS]!);
    /** Two rules (two hosts), each sending to the action's Service. */
    const twoRules = (): RouterObject => {
      const one = ingress('web');
      return {
        ...one,
        spec: {
          rules: [
            { host: 'a.example.com', ...one.spec.rules[0] },
            { host: 'b.example.com', ...one.spec.rules[0] },
          ],
        },
      };
    };

    it('at its step: the action (all to the canary) and conditions annotations, recorded as managed, and a path first in every rule', () => {
      const cluster = new FakeCluster(twoRules());
      writesOf(cluster.reconcile(routed(0), weights(20)));
      assert.equal(annotations(cluster)[ROUTE_ACTION], undefined, 'not before its step');
      assert.deepEqual(paths(cluster), [['/* -> web-stable:use-annotation'], ['/* -> web-stable:use-annotation']]);

      const [write, ...more] = writesOf(cluster.reconcile(routed(1), weights(20)));
      assert.equal(more.length, 0, 'one patch');
      assert.ok(write!.action === 'patch' && write!.patch.spec?.rules, 'the rules are in the same patch');
      assert.deepEqual(targetGroups(cluster, 'web', ROUTE_ACTION), ['web-canary:80=100']);
      assert.deepEqual(conditions(cluster), [{ field: 'http-header', httpHeaderConfig: { httpHeaderName: 'X-Beta', values: ['yes'] } }]);
      assert.deepEqual(managed(cluster, 'web'), { web: [ACTION, ROUTE_ACTION, ROUTE_CONDITIONS] });
      assert.deepEqual(paths(cluster), [
        ['/* -> beta:use-annotation', '/* -> web-stable:use-annotation'],
        ['/* -> beta:use-annotation', '/* -> web-stable:use-annotation'],
      ]);
      assert.deepEqual(
        (cluster.get(ingressRef('web'))!.spec.rules as { host: string }[]).map((r) => r.host),
        ['a.example.com', 'b.example.com'],
        'the rules keep their hosts',
      );
      assert.deepEqual(targetGroups(cluster, 'web'), ['web-canary:80=20', 'web-stable:80=80'], 'the weights are as before');

      assert.deepEqual(writesOf(cluster.reconcile(routed(1), weights(20))), [], 'no write at rest');
      assert.deepEqual(writesOf(cluster.reconcile(routed(2), weights(20))), [], 'the pause after it keeps it as it is');
    });

    it('a later step of the same name changes the conditions only; one without match removes the annotations, record entries and paths', () => {
      const cluster = new FakeCluster(ingress('web'));
      writesOf(cluster.reconcile(routed(2), weights(20)));
      const [write] = writesOf(cluster.reconcile(routed(3), weights(20)));
      assert.deepEqual(write!.action === 'patch' && Object.keys(write!.patch.metadata!.annotations!), [ROUTE_CONDITIONS]);
      assert.equal(write!.action === 'patch' && write!.patch.spec, undefined, 'the path is there already');
      assert.deepEqual(conditions(cluster)[0].httpHeaderConfig.values, ['true']);

      writesOf(cluster.reconcile(routed(5), weights(20)));
      assert.equal(annotations(cluster)[ROUTE_ACTION], undefined);
      assert.equal(annotations(cluster)[ROUTE_CONDITIONS], undefined);
      assert.deepEqual(managed(cluster, 'web'), { web: [ACTION] });
      assert.deepEqual(paths(cluster), [['/* -> web-stable:use-annotation']]);
      assert.deepEqual(writesOf(cluster.reconcile(routed(6), weights(20))), []);
    });

    for (const [why, status] of [
      ['fully promoted (the stable is the current ReplicaSet)', { stableRS: 'hash-canary', currentStepIndex: 7 }],
      ['aborted', { abort: true, currentStepIndex: 0 }],
      ['promoted in full', { promoteFull: true }],
    ] as const) {
      it(`removed once ${why}`, () => {
        const cluster = new FakeCluster(ingress('web'));
        writesOf(cluster.reconcile(routed(2), weights(20)));
        assert.ok(annotations(cluster)[ROUTE_ACTION], 'the route is there at its pause');
        writesOf(cluster.reconcile(routed(2, status), weights(0)));
        assert.equal(annotations(cluster)[ROUTE_ACTION], undefined);
        assert.deepEqual(paths(cluster), [['/* -> web-stable:use-annotation']]);
        assert.deepEqual(managed(cluster, 'web'), { web: [ACTION] });
      });
    }

    it('not at generation 1 (the first install), and left as they are while the status has decided nothing', () => {
      const cluster = new FakeCluster(ingress('web'));
      writesOf(cluster.reconcile(routed(1, {}, undefined, undefined, 1), weights(0)));
      assert.equal(annotations(cluster)[ROUTE_ACTION], undefined);
      writesOf(cluster.reconcile(routed(1), weights(20)));
      const undecided = routed(1, { currentPodHash: undefined });
      assert.deepEqual(writesOf(cluster.reconcile(undecided, weights(20))), []);
      assert.deepEqual(paths(cluster), [['/* -> beta:use-annotation', '/* -> web-stable:use-annotation']]);
    });

    it('managed paths go first in managedRoutes order; the rules’ own paths keep theirs; a path the user wrote for the route is kept', () => {
      const own = ingress('web');
      const userPaths = [
        { path: '/api', pathType: 'Prefix', backend: { service: { name: 'web-stable', port: { name: 'use-annotation' } } } },
        { path: '/*', pathType: 'ImplementationSpecific', backend: { service: { name: 'gamma', port: { name: 'use-annotation' } } } },
        { path: '/static', pathType: 'Prefix', backend: { service: { name: 'assets', port: { number: 80 } } } },
        { path: '/beta', pathType: 'Prefix', backend: { service: { name: 'beta', port: { name: 'use-annotation' } } } },
      ];
      const cluster = new FakeCluster({ ...own, spec: { rules: [{ http: { paths: userPaths } }] } });
      writesOf(cluster.reconcile(routed(1), weights(20)));
      // gamma is not planned (no step sets it): its path goes. beta's own path is the route's: none is added.
      assert.deepEqual(paths(cluster), [
        ['/beta -> beta:use-annotation', '/api -> web-stable:use-annotation', '/static -> assets:undefined'],
      ]);
    });

    it('with annotationPrefix and stickiness, as the forward action has them', () => {
      const cluster = new FakeCluster(ingress('web'));
      const alb = {
        ingress: 'web',
        servicePort: 80,
        annotationPrefix: 'custom.alb.io',
        stickinessConfig: { enabled: true, durationSeconds: 60 },
      };
      writesOf(cluster.reconcile(routed(1, {}, alb), weights(20)));
      const action = JSON.parse(annotations(cluster)['custom.alb.io/actions.beta']!);
      assert.deepEqual(action.ForwardConfig, {
        TargetGroups: [{ ServiceName: 'web-canary', ServicePort: '80', Weight: 100 }],
        TargetGroupStickinessConfig: { Enabled: true, DurationSeconds: 60 },
      });
      assert.ok(annotations(cluster)['custom.alb.io/conditions.beta']);
    });

    it('a route of another Rollout on the same Ingress is left alone', () => {
      const cluster = new FakeCluster(
        ingress('web', 'web-stable', {
          [MANAGED]: JSON.stringify({ other: ['alb.ingress.kubernetes.io/actions.other-route'] }),
          'alb.ingress.kubernetes.io/actions.other-route': '{}',
        }),
      );
      writesOf(cluster.reconcile(routed(1), weights(20)));
      assert.deepEqual(managed(cluster, 'web'), {
        other: ['alb.ingress.kubernetes.io/actions.other-route'],
        web: [ACTION, ROUTE_ACTION, ROUTE_CONDITIONS],
      });
      writesOf(cluster.reconcile(routed(5), weights(20)));
      assert.equal(annotations(cluster)['alb.ingress.kubernetes.io/actions.other-route'], '{}');
      assert.deepEqual(managed(cluster, 'web'), { other: ['alb.ingress.kubernetes.io/actions.other-route'], web: [ACTION] });
    });

    it('a match without a headerName is a problem', () => {
      const r = routed(1);
      r.spec!.strategy!.canary!.steps = [
        { setWeight: 20 },
        { setHeaderRoute: { name: 'beta', match: [{ headerValue: { exact: 'yes' } }] } },
      ];
      assert.equal(
        problemOf(new FakeCluster(ingress('web')).reconcile(r, weights(20))),
        'trafficRouting.alb: setHeaderRoute "beta" match[0] needs a headerName',
      );
    });
  });

  it("pingPong: the target groups are ping's and pong's as the weights name them, keyed by the rootService", () => {
    const pingPong = rolloutWith(
      { ingress: 'web', servicePort: 80, rootService: 'web-root' },
      { pingPong: { pingService: 'ping', pongService: 'pong' } },
    );
    const cluster = new FakeCluster(ingress('web', 'web-root'));
    const w = (canary: string, stable: string, weight: number): TrafficWeights => ({
      canary: { weight, serviceName: canary, podTemplateHash: 'b' },
      stable: { weight: 100 - weight, serviceName: stable, podTemplateHash: 'a' },
    });
    writesOf(cluster.reconcile(pingPong, w('pong', 'ping', 20)));
    assert.deepEqual(targetGroups(cluster, 'web', 'alb.ingress.kubernetes.io/actions.web-root'), ['pong:80=20', 'ping:80=80']);
    writesOf(cluster.reconcile(pingPong, w('ping', 'pong', 0)));
    assert.deepEqual(
      targetGroups(cluster, 'web', 'alb.ingress.kubernetes.io/actions.web-root'),
      ['ping:80=0', 'pong:80=100'],
      'after a promotion they swap',
    );
  });

  describe('problems (the rollout waits, the message says what and which object)', () => {
    const problem = (rollout: Rollout, ...objects: RouterObject[]) =>
      problemOf(new FakeCluster(...objects).reconcile(rollout, weights(20)));

    it('an Ingress that is not there', () => {
      assert.equal(
        problem(alb),
        'trafficRouting.alb: Ingress "shop/web" was not found (the ALB router only annotates an existing Ingress)',
      );
      assert.match(
        problem(rolloutWith({ ingresses: ['web', 'admin'], servicePort: 80 }), ingress('web')),
        /^trafficRouting\.alb: Ingress "shop\/admin" was not found/,
      );
    });
    it('an Ingress with no rule for the stable Service', () => {
      assert.equal(
        problem(alb, ingress('web', 'someone-else')),
        'trafficRouting.alb: Ingress "shop/web" has no rule whose backend is the Service "web-stable" (the stableService), so the ALB would not use the action alb.ingress.kubernetes.io/actions.web-stable',
      );
      assert.match(problem(alb, { ...ingress('web'), spec: {} }), /has no rule whose backend is the Service "web-stable"/);
    });
    it('both ingress and ingresses, or neither', () => {
      assert.equal(
        problem(rolloutWith({ ingress: 'web', ingresses: ['web'], servicePort: 80 })),
        'trafficRouting.alb: sets both ingress and ingresses: set one of them',
      );
      assert.equal(problem(rolloutWith({ servicePort: 80 })), 'trafficRouting.alb: names no Ingress: set ingress or ingresses');
      assert.equal(
        problem(rolloutWith({ ingresses: [], servicePort: 80 })),
        'trafficRouting.alb: ingresses is empty: name at least one Ingress',
      );
      assert.equal(
        problem(rolloutWith({ ingresses: ['web', 7], servicePort: 80 })),
        'trafficRouting.alb: ingresses[1] must be the name of an Ingress',
      );
      assert.deepEqual(trafficRoutersOf(rolloutWith({ servicePort: 80 })).reads, [], 'nothing to read');
    });
    it('no servicePort', () => {
      assert.equal(
        problem(rolloutWith({ ingress: 'web' }), ingress('web')),
        'trafficRouting.alb: servicePort must be the port (1-65535) the action of Ingress "web" forwards to',
      );
      assert.equal(
        problem(rolloutWith({ ingress: 'web', servicePorts: [{ ingress: 'web', servicePorts: [] }] }), ingress('web')),
        'trafficRouting.alb: servicePorts entry of Ingress "web" must list its ports (1-65535)',
      );
    });
    it('a Service missing', () => {
      assert.equal(
        problem(rolloutWith({ ingress: 'web', servicePort: 80 }, { stableService: 'web-stable' }), ingress('web')),
        'trafficRouting.alb: needs both canaryService and stableService',
      );
    });
    it('pingPong without a rootService (its action cannot be keyed by ping or pong, which swap)', () => {
      const pingPong = rolloutWith({ ingress: 'web', servicePort: 80 }, { pingPong: { pingService: 'ping', pongService: 'pong' } });
      const w: TrafficWeights = {
        canary: { weight: 20, serviceName: 'pong', podTemplateHash: 'b' },
        stable: { weight: 80, serviceName: 'ping', podTemplateHash: 'a' },
      };
      assert.equal(
        problemOf(new FakeCluster(ingress('web', 'ping')).reconcile(pingPong, w)),
        'trafficRouting.alb: pingPong needs a rootService: the action cannot be keyed by ping or pong, which swap',
      );
    });
    it('a managed-annotations record that is not the JSON upstream writes', () => {
      assert.equal(
        problem(alb, ingress('web', 'web-stable', { [MANAGED]: 'web:alb.ingress.kubernetes.io/actions.web-stable' })),
        `trafficRouting.alb: Ingress "shop/web": its ${MANAGED} annotation is not a JSON object of annotation-key lists by Rollout name`,
      );
    });
  });
});
