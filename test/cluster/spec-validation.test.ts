// The embedded controller's refusal of an invalid spec: the first error of the linter's rules, as upstream's InvalidSpec.
import { strict as assert } from 'node:assert';
import {
  invalidSpecMessage,
  missingRouterObjectMessage,
  missingServiceMessage,
  missingTemplateMessage,
  referencedTemplates,
  serviceManagedElsewhereMessage,
} from '../../src/cluster/spec-validation';
import { refusedStatus, withoutSpecRefusal } from '../../src/planner/rollout-decision';
import type { Rollout } from '../../src/planner';

const NOW = new Date('2026-11-23T10:00:00Z');
const rollout = (spec: Record<string, unknown>, status?: Rollout['status']): Rollout =>
  ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'default', generation: 2 },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
      ...spec,
    },
    ...(status ? { status } : {}),
  }) as Rollout;

describe('spec validation in the embedded controller', () => {
  it('names the first error of an invalid spec, as the InvalidSpec condition says it', () => {
    assert.equal(invalidSpecMessage(rollout({ strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }] } } })), undefined);
    assert.equal(
      invalidSpecMessage(rollout({ strategy: { canary: { steps: [{ setWeight: 20, pause: {} }] }, blueGreen: { activeService: 'a' } } })),
      'The Rollout "web" is invalid: spec.strategy.blueGreen: spec.strategy has both canary and blueGreen: keep exactly one',
    );
    // Warnings and what needs the workspace (a Service that is not there) do not refuse a rollout.
    assert.equal(
      invalidSpecMessage(rollout({ strategy: { blueGreen: { activeService: 'missing', scaleDownDelaySeconds: 0 } } })),
      undefined,
    );
  });

  it('refuses traffic routing without the two Services, as upstream (the stableService first), though the rule reads the workspace for suggestions', () => {
    const routed = (services: Record<string, string>) =>
      rollout({ strategy: { canary: { ...services, trafficRouting: { nginx: { stableIngress: 'web' } }, steps: [{ setWeight: 20 }] } } });
    assert.match(
      invalidSpecMessage(routed({}))!,
      /spec\.strategy\.canary\.stableService: stableService is required with nginx traffic routing/,
    );
    assert.match(
      invalidSpecMessage(routed({ stableService: 'web-stable' }))!,
      /spec\.strategy\.canary\.canaryService: canaryService is required with nginx traffic routing/,
    );
    assert.equal(invalidSpecMessage(routed({ stableService: 'web-stable', canaryService: 'web-canary' })), undefined);
  });

  // Regression: a plugin router was refused without canaryService/stableService, and pingPong with it (upstream validation.go:requireCanaryStableServices, PingPongWithRouterOnlyMessage).
  it('accepts a plugin router without canaryService and stableService, and with pingPong, as upstream', () => {
    const plugins = { 'argoproj-labs/gatewayAPI': { httpRoute: 'web' } };
    assert.equal(
      invalidSpecMessage(rollout({ strategy: { canary: { trafficRouting: { plugins }, steps: [{ setWeight: 20 }] } } })),
      undefined,
    );
    assert.equal(
      invalidSpecMessage(
        rollout({
          strategy: {
            canary: {
              trafficRouting: { plugins },
              pingPong: { pingService: 'web-ping', pongService: 'web-pong' },
              steps: [{ setWeight: 20 }],
            },
          },
        }),
      ),
      undefined,
    );
    assert.match(
      invalidSpecMessage(
        rollout({
          strategy: {
            canary: {
              trafficRouting: { nginx: { stableIngress: 'web' } },
              canaryService: 'c',
              stableService: 's',
              pingPong: { pingService: 'web-ping', pongService: 'web-pong' },
            },
          },
        }),
      )!,
      /pingPong works only with the ALB, Istio or a plugin traffic router, not nginx/,
    );
  });

  it("names the first Service the strategy names that is not there, in upstream's order and words", () => {
    const has =
      (...names: string[]) =>
      (name: string) =>
        names.includes(name);
    const bg = rollout({ strategy: { blueGreen: { activeService: 'web-active', previewService: 'web-preview' } } });
    assert.equal(missingServiceMessage(bg, has('web-active', 'web-preview')), undefined);
    assert.equal(
      missingServiceMessage(bg, has()),
      'The Rollout "web" is invalid: spec.strategy.blueGreen.activeService: Invalid value: "web-active": service "web-active" not found',
    );
    assert.equal(
      missingServiceMessage(bg, has('web-active')),
      'The Rollout "web" is invalid: spec.strategy.blueGreen.previewService: Invalid value: "web-preview": service "web-preview" not found',
    );
    const canary = rollout({
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          trafficRouting: { alb: { ingress: 'web', rootService: 'web-root' } },
          pingPong: { pingService: 'web-ping', pongService: 'web-pong' },
        },
      },
    });
    assert.match(missingServiceMessage(canary, has('web-canary'))!, /spec\.strategy\.canary\.stableService: Invalid value: "web-stable"/);
    assert.match(
      missingServiceMessage(canary, has('web-canary', 'web-stable', 'web-ping'))!,
      /spec\.strategy\.canary\.pingPong\.pongService: Invalid value: "web-pong"/,
    );
    // A canary without Services names none.
    assert.equal(missingServiceMessage(rollout({ strategy: { canary: { steps: [{ setWeight: 20 }] } } }), has()), undefined);
  });

  it("names the first Service the strategy names that another Rollout manages, in upstream's order and words", () => {
    const managers = (byService: Record<string, string>) => (service: string) => byService[service];
    const canary = rollout({
      strategy: { canary: { canaryService: 'web-canary', stableService: 'web-stable', steps: [{ setWeight: 20 }] } },
    });
    assert.equal(serviceManagedElsewhereMessage(canary, managers({})), undefined);
    assert.equal(
      serviceManagedElsewhereMessage(canary, managers({ 'web-canary': 'other', 'web-stable': 'other' })),
      'The Rollout "web" is invalid: spec.strategy.canary.stableService: Invalid value: "web-stable": Service "web-stable" is managed by another Rollout',
    );
    assert.match(
      serviceManagedElsewhereMessage(canary, managers({ 'web-canary': 'other' }))!,
      /canaryService: Invalid value: "web-canary"/,
    );
  });

  it("names the first Ingress or VirtualService the traffic routing names that is not there, in upstream's order and words", () => {
    const present =
      (...keys: string[]) =>
      (kind: string, namespace: string, name: string) =>
        keys.includes(`${kind} ${namespace}/${name}`);
    const routed = (trafficRouting: Record<string, unknown>) =>
      rollout({ strategy: { canary: { canaryService: 'c', stableService: 's', trafficRouting } } });
    const nginx = routed({ nginx: { stableIngress: 'web' } });
    assert.equal(missingRouterObjectMessage(nginx, present('Ingress default/web')), undefined);
    assert.equal(
      missingRouterObjectMessage(nginx, present()),
      'The Rollout "web" is invalid: spec.strategy.canary.trafficRouting.nginx.stableIngress: Invalid value: "web": ingress.networking.k8s.io "web" not found',
    );
    // Several Ingresses: upstream's path is `StableIngresses` (sic) and its value the whole list.
    assert.equal(
      missingRouterObjectMessage(routed({ nginx: { stableIngresses: ['a', 'b'] } }), present('Ingress default/a')),
      'The Rollout "web" is invalid: spec.strategy.canary.trafficRouting.nginx.StableIngresses: Invalid value: []string{"a", "b"}: ingress.networking.k8s.io "b" not found',
    );
    // ALB's Ingresses are looked up first; a list of them is `alb.ingresses`.
    assert.equal(
      missingRouterObjectMessage(routed({ alb: { ingress: 'front', rootService: 'root' } }), present()),
      'The Rollout "web" is invalid: spec.strategy.canary.trafficRouting.alb.ingress: Invalid value: "front": ingress.networking.k8s.io "front" not found',
    );
    assert.equal(
      missingRouterObjectMessage(routed({ alb: { ingresses: ['x', 'y'] } }), present('Ingress default/y')),
      'The Rollout "web" is invalid: spec.strategy.canary.trafficRouting.alb.ingresses: Invalid value: []string{"x", "y"}: ingress.networking.k8s.io "x" not found',
    );
    // A VirtualService written `name.namespace` is looked up there, and named without its namespace.
    const istio = routed({ istio: { virtualService: { name: 'vs.mesh', routes: ['primary'] } } });
    assert.equal(missingRouterObjectMessage(istio, present('VirtualService mesh/vs')), undefined);
    assert.equal(
      missingRouterObjectMessage(istio, present('VirtualService default/vs')),
      'The Rollout "web" is invalid: spec.strategy.canary.trafficRouting.istio.virtualService.name: Invalid value: "vs": virtualservices.networking.istio.io "vs" not found',
    );
    assert.equal(
      missingRouterObjectMessage(
        routed({ istio: { virtualServices: [{ name: 'one' }, { name: 'two' }] } }),
        present('VirtualService default/one'),
      ),
      'The Rollout "web" is invalid: spec.strategy.canary.trafficRouting.istio.virtualServices.name: Invalid value: "two": virtualservices.networking.istio.io "two" not found',
    );
    // Ingresses are looked up before VirtualServices; objects upstream does not look up (a Gateway API route) are not checked.
    assert.match(
      missingRouterObjectMessage(routed({ nginx: { stableIngress: 'web' }, istio: { virtualService: { name: 'vs' } } }), present())!,
      /nginx\.stableIngress/,
    );
    assert.equal(
      missingRouterObjectMessage(routed({ plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'route' } } }), present()),
      undefined,
    );
  });

  it('names the first analysis template that is not there, of the analyses upstream checks, and only for a kind it can answer for', () => {
    const analysed = rollout({
      strategy: {
        canary: {
          analysis: { templates: [{ templateName: 'background' }] },
          steps: [
            { experiment: { templates: [], analyses: [{ name: 'e', templateName: 'in-experiment' }] } },
            { analysis: { templates: [{ templateName: 'rate' }, { templateName: 'shared', clusterScope: true }] } },
          ],
        },
      },
    });
    assert.deepEqual(
      referencedTemplates(analysed).map((t) => `${t.path} ${t.name}${t.clusterScope ? ' (cluster)' : ''}`),
      [
        'spec.strategy.canary.steps[1].analysis.templates rate',
        'spec.strategy.canary.steps[1].analysis.templates shared (cluster)',
        'spec.strategy.canary.analysis.templates background',
      ],
      "the steps come before background analysis, as upstream looks them up; an experiment step's analyses are not checked",
    );
    const has =
      (...names: string[]) =>
      (name: string) =>
        names.includes(name);
    assert.equal(missingTemplateMessage(analysed, { template: has('background', 'rate'), clusterTemplate: has('shared') }), undefined);
    assert.equal(
      missingTemplateMessage(analysed, { template: has('background'), clusterTemplate: has('shared') }),
      'The Rollout "web" is invalid: spec.strategy.canary.steps[1].analysis.templates: Invalid value: "rate": AnalysisTemplate \'rate\' not found',
    );
    assert.equal(
      missingTemplateMessage(analysed, { template: has('background', 'rate'), clusterTemplate: has() }),
      'The Rollout "web" is invalid: spec.strategy.canary.steps[1].analysis.templates: Invalid value: "shared": ClusterAnalysisTemplate \'shared\' not found',
    );
    // A kind whose store cannot answer (not listed, or its watch failing) is not checked.
    assert.equal(missingTemplateMessage(analysed, { clusterTemplate: has('shared') }), undefined);
    const blueGreen = rollout({
      strategy: {
        blueGreen: {
          activeService: 'a',
          prePromotionAnalysis: { templates: [{ templateName: 'smoke' }] },
          postPromotionAnalysis: { templates: [{ templateName: 'soak' }] },
        },
      },
    });
    assert.match(
      missingTemplateMessage(blueGreen, { template: has('smoke') })!,
      /spec\.strategy\.blueGreen\.postPromotionAnalysis\.templates: Invalid value: "soak"/,
    );
  });

  it("judges a rollout whose workloadRef was resolved by the workload's template, as its own", () => {
    const resolved = rollout({ workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: {} } });
    assert.equal(invalidSpecMessage(resolved), undefined);
  });

  it('gives a refused rollout an InvalidSpec condition and Degraded, and drops it once the spec is valid', () => {
    const message = invalidSpecMessage(rollout({ strategy: { canary: { steps: [{}] } } }))!;
    const status = refusedStatus(rollout({}), message, NOW);
    assert.equal(status.phase, 'Degraded');
    assert.equal(status.observedGeneration, '2');
    const refused = rollout({}, status);
    assert.equal(withoutSpecRefusal(refused).status?.conditions, undefined);
    // A workloadRef's refusal is not this module's to drop.
    const other = rollout({}, refusedStatus(rollout({}), 'spec.workloadRef: Deployment "web" does not exist', NOW));
    assert.equal(withoutSpecRefusal(other), other);
  });
});
