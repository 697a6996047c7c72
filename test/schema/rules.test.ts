// Table tests: each rule on a minimal Rollout, with the field it must point at.
import { strict as assert } from 'node:assert';
import { rules } from '../../src/schema';
import {
  analysisTemplate,
  blueGreenRollout,
  canaryRollout,
  gatewayRoute,
  ingress,
  lint,
  service,
  summary,
  virtualService,
  workload,
  workloadRefRollout,
  yamlOf,
} from './support';

type Obj = Record<string, unknown>;
interface Case {
  name: string;
  docs: Obj[];
  /** Expected `severity code at path` lines for this code; [] means the rule stays silent. */
  code: string;
  expect: string[];
  workspace?: boolean;
}

const nginx = { canaryService: 'c', stableService: 's', trafficRouting: { nginx: { stableIngress: 'ing' } } };
const istio = { canaryService: 'c', stableService: 's', trafficRouting: { istio: { virtualService: { name: 'vs' } } } };
const gatewayApi = {
  canaryService: 'c',
  stableService: 's',
  trafficRouting: { plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'route' } } },
};
const alb = { canaryService: 'c', stableService: 's', trafficRouting: { alb: { ingress: 'ing', servicePort: 80 } } };

const cases: Case[] = [
  // analysis template references
  {
    name: 'templateName not in the workspace',
    code: 'analysis-template-not-found',
    workspace: true,
    docs: [canaryRollout({ analysis: { templates: [{ templateName: 'missing' }], args: [] } })],
    expect: ['warning analysis-template-not-found at spec.strategy.canary.analysis.templates[0].templateName'],
  },
  {
    name: 'templateName found',
    code: 'analysis-template-not-found',
    workspace: true,
    docs: [
      canaryRollout({ analysis: { templates: [{ templateName: 'rate' }], args: [{ name: 'service', value: 's' }] } }),
      analysisTemplate('rate'),
    ],
    expect: [],
  },
  {
    name: 'clusterScope names an AnalysisTemplate',
    code: 'analysis-template-not-found',
    workspace: true,
    docs: [
      blueGreenRollout({
        prePromotionAnalysis: { templates: [{ templateName: 'rate', clusterScope: true }], args: [{ name: 'service', value: 's' }] },
      }),
      analysisTemplate('rate'),
    ],
    expect: ['warning analysis-template-not-found at spec.strategy.blueGreen.prePromotionAnalysis.templates[0].templateName'],
  },
  {
    name: 'clusterScope finds a ClusterAnalysisTemplate',
    code: 'analysis-template-not-found',
    workspace: true,
    docs: [
      blueGreenRollout({
        postPromotionAnalysis: { templates: [{ templateName: 'rate', clusterScope: true }], args: [{ name: 'service', value: 's' }] },
      }),
      analysisTemplate('rate', {}, 'ClusterAnalysisTemplate'),
    ],
    expect: [],
  },
  {
    name: 'template in another namespace',
    code: 'analysis-template-not-found',
    workspace: true,
    docs: [
      canaryRollout({ steps: [{ analysis: { templates: [{ templateName: 'rate' }] } }] }, {}),
      { ...analysisTemplate('rate'), metadata: { name: 'rate', namespace: 'other' } },
    ].map((d, i) => (i === 0 ? { ...d, metadata: { name: 'demo', namespace: 'shop' } } : d)),
    expect: ['warning analysis-template-not-found at spec.strategy.canary.steps[0].analysis.templates[0].templateName'],
  },
  {
    name: 'not checked without a workspace',
    code: 'analysis-template-not-found',
    docs: [canaryRollout({ analysis: { templates: [{ templateName: 'missing' }] } })],
    expect: [],
  },
  {
    name: 'required argument not passed',
    code: 'analysis-args',
    workspace: true,
    docs: [canaryRollout({ steps: [{ analysis: { templates: [{ templateName: 'rate' }] } }] }), analysisTemplate('rate')],
    expect: ['error analysis-args at spec.strategy.canary.steps[0].analysis.templates[0].templateName'],
  },
  {
    name: 'argument with a default need not be passed; unknown argument flagged',
    code: 'analysis-args',
    workspace: true,
    docs: [
      canaryRollout({
        analysis: {
          templates: [{ templateName: 'rate' }],
          args: [
            { name: 'service', value: 's' },
            { name: 'treshold', value: '1' },
          ],
        },
      }),
      analysisTemplate('rate'),
    ],
    expect: ['warning analysis-args at spec.strategy.canary.analysis.args[1].name'],
  },
  {
    name: 'an analysis step with a metric that never ends',
    code: 'analysis-runs-indefinitely',
    workspace: true,
    docs: [
      canaryRollout({ steps: [{ analysis: { templates: [{ templateName: 'rate' }], args: [{ name: 'service', value: 's' }] } }] }),
      analysisTemplate('rate', { metrics: [{ name: 'm', interval: '1m', provider: { web: { url: 'http://x/{{args.service}}' } } }] }),
    ],
    expect: ['error analysis-runs-indefinitely at spec.strategy.canary.steps[0].analysis.templates[0].templateName'],
  },
  {
    name: 'background analysis may run for ever',
    code: 'analysis-runs-indefinitely',
    workspace: true,
    docs: [
      canaryRollout({ analysis: { templates: [{ templateName: 'rate' }], args: [{ name: 'service', value: 's' }] } }),
      analysisTemplate('rate', { metrics: [{ name: 'm', interval: '1m', provider: { web: { url: 'http://x/{{args.service}}' } } }] }),
    ],
    expect: [],
  },
  {
    name: 'pre-promotion analysis with count',
    code: 'analysis-runs-indefinitely',
    workspace: true,
    docs: [
      blueGreenRollout({ prePromotionAnalysis: { templates: [{ templateName: 'rate' }], args: [{ name: 'service', value: 's' }] } }),
      analysisTemplate('rate'),
    ],
    expect: [],
  },
  {
    name: 'post-promotion analysis with count 0 and an interval',
    code: 'analysis-runs-indefinitely',
    workspace: true,
    docs: [
      blueGreenRollout({ postPromotionAnalysis: { templates: [{ templateName: 'rate' }], args: [{ name: 'service', value: 's' }] } }),
      analysisTemplate('rate', {
        metrics: [{ name: 'm', interval: '1m', count: 0, provider: { web: { url: 'http://x/{{args.service}}' } } }],
      }),
    ],
    expect: ['error analysis-runs-indefinitely at spec.strategy.blueGreen.postPromotionAnalysis.templates[0].templateName'],
  },
  {
    name: 'experiment analysis passes its args',
    code: 'analysis-args',
    workspace: true,
    docs: [
      canaryRollout({
        steps: [
          { experiment: { templates: [{ name: 'c', specRef: 'canary' }], analyses: [{ name: 'a', templateName: 'rate', args: [] }] } },
        ],
      }),
      analysisTemplate('rate'),
    ],
    expect: ['error analysis-args at spec.strategy.canary.steps[0].experiment.analyses[0].templateName'],
  },
  // traffic-router objects (test/schema/router-references.test.ts has the details)
  {
    name: 'stable Ingress not in the workspace',
    code: 'router-object-not-found',
    workspace: true,
    docs: [canaryRollout(nginx)],
    expect: ['warning router-object-not-found at spec.strategy.canary.trafficRouting.nginx.stableIngress'],
  },
  {
    name: 'stable Ingress found',
    code: 'router-object-not-found',
    workspace: true,
    docs: [canaryRollout(nginx), ingress('ing', ['s'])],
    expect: [],
  },
  {
    name: 'VirtualService route not in it',
    code: 'virtualservice-route',
    workspace: true,
    docs: [
      canaryRollout({ ...istio, trafficRouting: { istio: { virtualService: { name: 'vs', routes: ['primary'] } } } }),
      virtualService('vs', [{ name: 'main', hosts: ['s', 'c'] }]),
    ],
    expect: ['error virtualservice-route at spec.strategy.canary.trafficRouting.istio.virtualService.routes[0]'],
  },
  {
    name: 'VirtualService route with both destinations',
    code: 'virtualservice-route',
    workspace: true,
    docs: [
      canaryRollout({ ...istio, trafficRouting: { istio: { virtualService: { name: 'vs', routes: ['primary'] } } } }),
      virtualService('vs', [{ name: 'primary', hosts: ['s', 'c'] }]),
    ],
    expect: [],
  },
  {
    name: 'stable Ingress without the stable Service',
    code: 'ingress-stable-backend',
    workspace: true,
    docs: [canaryRollout(nginx), ingress('ing', ['other'])],
    expect: ['warning ingress-stable-backend at spec.strategy.canary.trafficRouting.nginx.stableIngress'],
  },
  {
    name: 'stable Ingress routing to the stable Service',
    code: 'ingress-stable-backend',
    workspace: true,
    docs: [canaryRollout(nginx), ingress('ing', ['s'])],
    expect: [],
  },
  {
    name: 'ALB Ingress not in the workspace',
    code: 'router-object-not-found',
    workspace: true,
    docs: [canaryRollout(alb)],
    expect: ['warning router-object-not-found at spec.strategy.canary.trafficRouting.alb.ingress'],
  },
  {
    name: 'ALB Ingresses, one not in the workspace',
    code: 'router-object-not-found',
    workspace: true,
    docs: [canaryRollout({ ...alb, trafficRouting: { alb: { ingresses: ['ing', 'other'], servicePort: 80 } } }), ingress('ing', ['s'])],
    expect: ['warning router-object-not-found at spec.strategy.canary.trafficRouting.alb.ingresses[1]'],
  },
  {
    name: 'ALB Ingress without the stable Service',
    code: 'ingress-stable-backend',
    workspace: true,
    docs: [canaryRollout(alb), ingress('ing', ['other'])],
    expect: ['warning ingress-stable-backend at spec.strategy.canary.trafficRouting.alb.ingress'],
  },
  {
    name: 'ALB Ingress routing to the rootService',
    code: 'ingress-stable-backend',
    workspace: true,
    docs: [
      canaryRollout({ ...alb, trafficRouting: { alb: { ingress: 'ing', rootService: 'root', servicePort: 80 } } }),
      ingress('ing', ['root']),
    ],
    expect: [],
  },
  {
    name: 'ALB Ingress routing to the stableService when a rootService is set',
    code: 'ingress-stable-backend',
    workspace: true,
    docs: [
      canaryRollout({ ...alb, trafficRouting: { alb: { ingress: 'ing', rootService: 'root', servicePort: 80 } } }),
      ingress('ing', ['s']),
    ],
    expect: ['warning ingress-stable-backend at spec.strategy.canary.trafficRouting.alb.ingress'],
  },
  {
    name: 'HTTPRoute not in the workspace',
    code: 'router-object-not-found',
    workspace: true,
    docs: [canaryRollout(gatewayApi)],
    expect: ['warning router-object-not-found at spec.strategy.canary.trafficRouting.plugins["argoproj-labs/gatewayAPI"].httpRoute'],
  },
  {
    name: 'HTTPRoute without a backendRef for the canary Service',
    code: 'gateway-route-backends',
    workspace: true,
    docs: [canaryRollout(gatewayApi), gatewayRoute('route', [['s']])],
    expect: ['error gateway-route-backends at spec.strategy.canary.trafficRouting.plugins["argoproj-labs/gatewayAPI"].httpRoute'],
  },
  {
    name: 'HTTPRoute with backendRefs for both Services',
    code: 'gateway-route-backends',
    workspace: true,
    docs: [canaryRollout(gatewayApi), gatewayRoute('route', [['s', 'c']])],
    expect: [],
  },
  // spec
  {
    name: 'selector missing',
    code: 'selector-required',
    docs: [canaryRollout({}, { selector: undefined })],
    expect: ['error selector-required at spec.selector'],
  },
  {
    name: 'selector not needed with workloadRef',
    code: 'selector-required',
    docs: [
      canaryRollout(
        {},
        { selector: undefined, template: undefined, workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' } },
      ),
    ],
    expect: [],
  },
  {
    name: 'empty selector',
    code: 'selector-required',
    docs: [canaryRollout({}, { selector: { matchLabels: {} } })],
    expect: ['error selector-required at spec.selector'],
  },
  // upstream validation.go:ValidateRolloutSpec (Kubernetes' ValidatePodTemplateSpecForReplicaSet reports at template.metadata.labels)
  {
    name: 'selector label value differs from the template',
    code: 'selector-matches-template',
    docs: [canaryRollout({}, { selector: { matchLabels: { app: 'other' } } })],
    expect: ['error selector-matches-template at spec.template.metadata.labels'],
  },
  {
    name: 'selector expression satisfied',
    code: 'selector-matches-template',
    docs: [canaryRollout({}, { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['demo'] }] } })],
    expect: [],
  },
  {
    name: 'selector expression not satisfied',
    code: 'selector-matches-template',
    docs: [canaryRollout({}, { selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] } })],
    expect: ['error selector-matches-template at spec.template.metadata.labels'],
  },
  // upstream validation.go:ValidateRolloutSpec (ValidatePodTemplateSpecForReplicaSet: a pod spec needs a container)
  {
    name: 'an empty containers list',
    code: 'template-required',
    docs: [canaryRollout({}, { template: { metadata: { labels: { app: 'demo' } }, spec: { containers: [] } } })],
    expect: ['error template-required at spec.template.spec.containers'],
  },
  // upstream validation.go:ValidateRolloutSpec (ValidatePodTemplateSpecForReplicaSet refuses activeDeadlineSeconds)
  {
    name: 'activeDeadlineSeconds in the pod template',
    code: 'active-deadline-seconds',
    docs: [
      canaryRollout(
        {},
        {
          template: { metadata: { labels: { app: 'demo' } }, spec: { activeDeadlineSeconds: 60, containers: [{ name: 'a', image: 'b' }] } },
        },
      ),
    ],
    expect: ['error active-deadline-seconds at spec.template.spec.activeDeadlineSeconds'],
  },
  {
    name: 'template missing',
    code: 'template-required',
    docs: [canaryRollout({}, { template: undefined })],
    expect: ['error template-required at spec.template'],
  },
  {
    name: 'template labels with workloadRef',
    code: 'workload-ref-template',
    docs: [canaryRollout({}, { workloadRef: { name: 'd' } })],
    expect: ['error workload-ref-template at spec.template.metadata.labels', 'warning workload-ref-template at spec.template.spec'],
  },
  {
    name: 'workloadRef with an empty template',
    code: 'workload-ref-template',
    docs: [canaryRollout({}, { workloadRef: { name: 'd' }, template: { metadata: {} } })],
    expect: [],
  },
  {
    name: 'invalid label value in the selector',
    code: 'selector-well-formed',
    docs: [canaryRollout({}, { selector: { matchLabels: { app: 'demo app' } } })],
    expect: ['error selector-well-formed at spec.selector.matchLabels.app'],
  },
  {
    name: 'name and namespace not DNS names',
    code: 'names-well-formed',
    docs: [{ ...canaryRollout(), metadata: { name: 'My_App', namespace: 'Prod Team' } }],
    expect: ['error names-well-formed at metadata.name', 'error names-well-formed at metadata.namespace'],
  },
  {
    name: 'labels and annotation keys on the Rollout, its pods and the metadata each side adds',
    code: 'names-well-formed',
    docs: [
      {
        ...canaryRollout(
          { canaryMetadata: { labels: { role: 'canary pods' } }, stableMetadata: { annotations: { 'bad key!': 'x' } } },
          {
            template: {
              metadata: { labels: { app: 'demo', version: '1.0+build' }, annotations: { 'example.com/ok': 'any value at all' } },
              spec: { containers: [{ name: 'demo', image: 'demo:1' }] },
            },
          },
        ),
        metadata: { name: 'demo', labels: { team: '★ platform', 'Example.com/x': 'y' } },
      },
      blueGreenRollout({ previewMetadata: { labels: { 'role/': 'preview' } } }),
    ],
    expect: [
      'error names-well-formed at metadata.labels.team',
      'error names-well-formed at metadata.labels["Example.com/x"]',
      'error names-well-formed at spec.template.metadata.labels.version',
      'error names-well-formed at spec.strategy.canary.canaryMetadata.labels.role',
      'error names-well-formed at spec.strategy.canary.stableMetadata.annotations["bad key!"]',
      'error names-well-formed at spec.strategy.blueGreen.previewMetadata.labels["role/"]',
    ],
  },
  {
    name: 'container, port and volume names',
    code: 'names-well-formed',
    docs: [
      canaryRollout(
        {},
        {
          template: {
            metadata: { labels: { app: 'demo' } },
            spec: {
              initContainers: [{ name: 'Init', image: 'i' }],
              containers: [
                {
                  name: 'demo',
                  image: 'demo:1',
                  ports: [
                    { name: 'http-metrics-port', containerPort: 9090 },
                    { name: '8080', containerPort: 8080 },
                    { name: 'http', containerPort: 80 },
                  ],
                },
              ],
              volumes: [{ name: 'config_files', emptyDir: {} }],
            },
          },
        },
      ),
    ],
    expect: [
      'error names-well-formed at spec.template.spec.initContainers[0].name',
      'error names-well-formed at spec.template.spec.containers[0].ports[0].name',
      'error names-well-formed at spec.template.spec.containers[0].ports[1].name',
      'error names-well-formed at spec.template.spec.volumes[0].name',
    ],
  },
  {
    name: 'values to be substituted before apply (envsubst, Flux, templates) and valid names',
    code: 'names-well-formed',
    docs: [
      {
        ...canaryRollout(
          {},
          {
            template: {
              metadata: { labels: { app: 'demo', version: '${IMAGE_TAG}', 'example.com/name': 'a.b_c-d' } },
              spec: { containers: [{ name: 'demo', image: 'demo:1' }] },
            },
          },
        ),
        metadata: { name: 'demo.v2', namespace: '${NAMESPACE}', labels: { '{{ .Values.key }}': 'x', empty: '' } },
      },
    ],
    expect: [],
  },
  {
    name: 'In without values',
    code: 'selector-well-formed',
    docs: [
      canaryRollout({}, { selector: { matchLabels: { app: 'demo' }, matchExpressions: [{ key: 'app', operator: 'In', values: [] }] } }),
    ],
    expect: ['error selector-well-formed at spec.selector.matchExpressions[0].values'],
  },
  {
    name: 'prefixed label keys',
    code: 'selector-well-formed',
    docs: [
      canaryRollout(
        {},
        {
          selector: { matchLabels: { 'app.kubernetes.io/name': 'demo' } },
          template: { metadata: { labels: { 'app.kubernetes.io/name': 'demo' } }, spec: { containers: [{ name: 'a', image: 'b' }] } },
        },
      ),
    ],
    expect: [],
  },
  {
    name: 'restartPolicy Never',
    code: 'restart-policy-always',
    docs: [
      canaryRollout(
        {},
        { template: { metadata: { labels: { app: 'demo' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: 'b' }] } } },
      ),
    ],
    expect: ['error restart-policy-always at spec.template.spec.restartPolicy'],
  },
  {
    name: 'minReadySeconds above the default deadline',
    code: 'progress-deadline-after-min-ready',
    docs: [canaryRollout({}, { minReadySeconds: 600 })],
    expect: ['error progress-deadline-after-min-ready at spec.minReadySeconds'],
  },
  {
    name: 'deadline not above minReadySeconds',
    code: 'progress-deadline-after-min-ready',
    docs: [canaryRollout({}, { minReadySeconds: 30, progressDeadlineSeconds: 30 })],
    expect: ['error progress-deadline-after-min-ready at spec.progressDeadlineSeconds'],
  },
  // upstream validation.go:ValidateRolloutSpec (GetProgressDeadlineSecondsOrDefault uses a value that is set, even 0; minReadySeconds defaults to 0)
  {
    name: 'progressDeadlineSeconds 0 is not above the default minReadySeconds 0',
    code: 'progress-deadline-after-min-ready',
    docs: [canaryRollout({}, { progressDeadlineSeconds: 0 })],
    expect: ['error progress-deadline-after-min-ready at spec.progressDeadlineSeconds'],
  },
  {
    name: 'progressDeadlineSeconds 1 is above the default minReadySeconds',
    code: 'progress-deadline-after-min-ready',
    docs: [canaryRollout({}, { progressDeadlineSeconds: 1 })],
    expect: [],
  },
  {
    name: 'deadline above minReadySeconds',
    code: 'progress-deadline-after-min-ready',
    docs: [canaryRollout({}, { minReadySeconds: 30, progressDeadlineSeconds: 31 })],
    expect: [],
  },
  {
    name: 'both strategies',
    code: 'strategy-exactly-one',
    docs: [canaryRollout({}, { strategy: { canary: {}, blueGreen: { activeService: 'a' } } })],
    expect: ['error strategy-exactly-one at spec.strategy.blueGreen'],
  },
  {
    name: 'an empty canary key',
    code: 'strategy-exactly-one',
    docs: [canaryRollout({}, { strategy: { canary: null } })],
    expect: ['error strategy-exactly-one at spec.strategy.canary'],
  },
  {
    name: 'no strategy kind',
    code: 'strategy-exactly-one',
    docs: [canaryRollout({}, { strategy: {} })],
    expect: ['error strategy-exactly-one at spec.strategy'],
  },
  // blue-green
  // upstream validation.go:ValidateRolloutStrategyBlueGreen (DuplicatedServicesBlueGreenMessage at activeService)
  {
    name: 'active equals preview',
    code: 'active-preview-distinct',
    docs: [blueGreenRollout({ previewService: 'demo-active' })],
    expect: ['error active-preview-distinct at spec.strategy.blueGreen.activeService'],
  },
  // upstream validation.go:ValidateRolloutStrategyBlueGreen compares the strings: "" equals an absent previewService
  {
    name: 'an empty activeService',
    code: 'active-preview-distinct',
    docs: [blueGreenRollout({ activeService: '' })],
    expect: ['error active-preview-distinct at spec.strategy.blueGreen.activeService'],
  },
  {
    name: 'revision limit above history',
    code: 'scale-down-revision-limit',
    docs: [blueGreenRollout({ scaleDownDelayRevisionLimit: 11 })],
    expect: ['error scale-down-revision-limit at spec.strategy.blueGreen.scaleDownDelayRevisionLimit'],
  },
  {
    name: 'revision limit within history',
    code: 'scale-down-revision-limit',
    docs: [blueGreenRollout({ scaleDownDelayRevisionLimit: 2 }, { revisionHistoryLimit: 2 })],
    expect: [],
  },
  {
    name: 'anti-affinity with both kinds',
    code: 'anti-affinity-one-kind',
    docs: [
      blueGreenRollout({
        antiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {},
          preferredDuringSchedulingIgnoredDuringExecution: { weight: 5 },
        },
      }),
    ],
    expect: ['error anti-affinity-one-kind at spec.strategy.blueGreen.antiAffinity'],
  },
  {
    name: 'anti-affinity with no kind',
    code: 'anti-affinity-one-kind',
    docs: [canaryRollout({ antiAffinity: {} })],
    expect: ['error anti-affinity-one-kind at spec.strategy.canary.antiAffinity'],
  },
  {
    name: 'anti-affinity weight out of range',
    code: 'out-of-range',
    docs: [canaryRollout({ antiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: { weight: 101 } } })],
    expect: ['error out-of-range at spec.strategy.canary.antiAffinity.preferredDuringSchedulingIgnoredDuringExecution.weight'],
  },
  // canary
  {
    name: 'maxSurge and maxUnavailable both zero',
    code: 'max-surge-unavailable-zero',
    docs: [canaryRollout({ maxSurge: '0%', maxUnavailable: 0 })],
    expect: ['error max-surge-unavailable-zero at spec.strategy.canary.maxSurge'],
  },
  {
    name: 'maxSurge zero with default maxUnavailable',
    code: 'max-surge-unavailable-zero',
    docs: [canaryRollout({ maxSurge: 0 })],
    expect: [],
  },
  {
    name: 'canary equals stable',
    code: 'canary-stable-distinct',
    docs: [canaryRollout({ ...nginx, stableService: 'c' })],
    expect: ['error canary-stable-distinct at spec.strategy.canary.stableService'],
  },
  {
    name: 'nginx without services',
    code: 'traffic-routing-needs-services',
    docs: [canaryRollout({ trafficRouting: { nginx: { stableIngress: 'ing' } } })],
    expect: [
      'error traffic-routing-needs-services at spec.strategy.canary.stableService',
      'error traffic-routing-needs-services at spec.strategy.canary.canaryService',
    ],
  },
  // upstream validation.go:requireCanaryStableServices: plugins are not in its list
  {
    name: 'a plugin router needs no services',
    code: 'traffic-routing-needs-services',
    docs: [canaryRollout({ trafficRouting: { plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'r' } } } })],
    expect: [],
  },
  // upstream validation.go:requireCanaryStableServices: SMI needs them even with pingPong; ALB not with pingPong
  {
    name: 'SMI with pingPong still needs services',
    code: 'traffic-routing-needs-services',
    docs: [canaryRollout({ trafficRouting: { smi: {} }, pingPong: { pingService: 'a', pongService: 'b' } })],
    expect: [
      'error traffic-routing-needs-services at spec.strategy.canary.stableService',
      'error traffic-routing-needs-services at spec.strategy.canary.canaryService',
    ],
  },
  {
    name: 'ALB with pingPong needs no canary and stable services',
    code: 'traffic-routing-needs-services',
    docs: [
      canaryRollout({
        trafficRouting: { alb: { ingress: 'i', rootService: 'root', servicePort: 80 } },
        pingPong: { pingService: 'a', pongService: 'b' },
      }),
    ],
    expect: [],
  },
  // upstream validation.go:requireCanaryStableServices: Istio without a DestinationRule, whatever names its VirtualService
  {
    name: 'istio without a DestinationRule needs services',
    code: 'traffic-routing-needs-services',
    docs: [canaryRollout({ trafficRouting: { istio: { virtualService: { name: 'vs' } } } })],
    expect: [
      'error traffic-routing-needs-services at spec.strategy.canary.stableService',
      'error traffic-routing-needs-services at spec.strategy.canary.canaryService',
    ],
  },
  {
    name: 'istio with a DestinationRule needs no services',
    code: 'traffic-routing-needs-services',
    docs: [
      canaryRollout({
        trafficRouting: {
          istio: { virtualService: { name: 'vs' }, destinationRule: { name: 'dr', canarySubsetName: 'c', stableSubsetName: 's' } },
        },
      }),
    ],
    expect: [],
  },
  {
    name: 'pingPong with nginx',
    code: 'ping-pong',
    docs: [canaryRollout({ trafficRouting: { nginx: { stableIngress: 'i' } }, pingPong: { pingService: 'a', pongService: 'b' } })],
    expect: ['error ping-pong at spec.strategy.canary.pingPong'],
  },
  // upstream validation.go:ValidateRolloutStrategyCanary (DuplicatedPingPongServicesMessage at pingService, MissedAlbRootServiceMessage)
  {
    name: 'pingPong with ALB needs rootService',
    code: 'ping-pong',
    docs: [canaryRollout({ trafficRouting: { alb: { ingress: 'i', servicePort: 80 } }, pingPong: { pingService: 'a', pongService: 'a' } })],
    expect: [
      'error ping-pong at spec.strategy.canary.pingPong.pingService',
      'error ping-pong at spec.strategy.canary.trafficRouting.alb.rootService',
    ],
  },
  // upstream validation.go:ValidateRolloutStrategyCanary (PingPongWithRouterOnlyMessage: ALB, Istio, and plugin-based)
  {
    name: 'pingPong with a plugin router',
    code: 'ping-pong',
    docs: [
      canaryRollout({
        trafficRouting: { plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'r' } } },
        pingPong: { pingService: 'a', pongService: 'b' },
      }),
    ],
    expect: [],
  },
  {
    name: 'pingPong with an empty plugins map',
    code: 'ping-pong',
    docs: [canaryRollout({ trafficRouting: { plugins: {} }, pingPong: { pingService: 'a', pongService: 'b' } })],
    expect: ['error ping-pong at spec.strategy.canary.pingPong'],
  },
  // upstream validation.go:ValidateRolloutStrategyCanary (InvalidPingPongProvidedMessage)
  {
    name: 'pingPong with an empty pongService',
    code: 'ping-pong',
    docs: [
      canaryRollout({ trafficRouting: { istio: { virtualService: { name: 'vs' } } }, pingPong: { pingService: 'a', pongService: '' } }),
    ],
    expect: ['error ping-pong at spec.strategy.canary.pingPong.pongService'],
  },
  {
    name: 'scaleDownDelaySeconds without trafficRouting',
    code: 'scale-down-delay-traffic-routing',
    docs: [canaryRollout({ scaleDownDelaySeconds: 30 })],
    expect: ['error scale-down-delay-traffic-routing at spec.strategy.canary.scaleDownDelaySeconds'],
  },
  {
    name: 'dynamicStableScale without trafficRouting',
    code: 'dynamic-stable-scale',
    docs: [canaryRollout({ dynamicStableScale: true })],
    expect: ['error dynamic-stable-scale at spec.strategy.canary.dynamicStableScale'],
  },
  // upstream validation.go:ValidateRolloutStrategyCanary (InvalidCanaryDynamicStableScaleWithScaleDownDelay at dynamicStableScale)
  {
    name: 'dynamicStableScale with scaleDownDelaySeconds',
    code: 'dynamic-stable-scale',
    docs: [canaryRollout({ ...istio, dynamicStableScale: true, scaleDownDelaySeconds: 5 })],
    expect: ['error dynamic-stable-scale at spec.strategy.canary.dynamicStableScale'],
  },
  // upstream validation.go:ValidateRolloutStrategyCanary (len(Plugins) == 0 is no plugin router)
  {
    name: 'maxTrafficWeight with an empty plugins map',
    code: 'max-traffic-weight-router',
    docs: [canaryRollout({ ...istio, trafficRouting: { ...istio.trafficRouting, plugins: {}, maxTrafficWeight: 1000 } })],
    expect: ['error max-traffic-weight-router at spec.strategy.canary.trafficRouting.maxTrafficWeight'],
  },
  {
    name: 'maxTrafficWeight with istio',
    code: 'max-traffic-weight-router',
    docs: [canaryRollout({ ...istio, trafficRouting: { ...istio.trafficRouting, maxTrafficWeight: 1000 } })],
    expect: ['error max-traffic-weight-router at spec.strategy.canary.trafficRouting.maxTrafficWeight'],
  },
  {
    name: 'maxTrafficWeight with nginx',
    code: 'max-traffic-weight-router',
    docs: [canaryRollout({ ...nginx, trafficRouting: { ...nginx.trafficRouting, maxTrafficWeight: 1000 } })],
    expect: [],
  },
  // steps
  {
    name: 'nginx without a stable Ingress',
    code: 'ingress-required',
    docs: [canaryRollout({ ...nginx, trafficRouting: { nginx: {} } })],
    expect: ['error ingress-required at spec.strategy.canary.trafficRouting.nginx'],
  },
  {
    name: 'nginx with an empty stableIngress',
    code: 'ingress-required',
    docs: [canaryRollout({ ...nginx, trafficRouting: { nginx: { stableIngress: '' } } })],
    expect: ['error ingress-required at spec.strategy.canary.trafficRouting.nginx'],
  },
  {
    name: 'nginx with stableIngresses, alb with ingresses',
    code: 'ingress-required',
    docs: [
      canaryRollout({ ...nginx, trafficRouting: { nginx: { stableIngresses: ['a', 'b'] } } }),
      canaryRollout({ ...alb, trafficRouting: { alb: { ingresses: ['a'], servicePort: 80 } } }),
    ],
    expect: [],
  },
  // upstream validation_references.go:ValidateRolloutNginxIngressesConfig, ValidateRolloutAlbIngressesConfig, ValidateRolloutVirtualServicesConfig
  {
    name: 'nginx with both stableIngress and stableIngresses',
    code: 'ingress-required',
    docs: [canaryRollout({ ...nginx, trafficRouting: { nginx: { stableIngress: 'a', stableIngresses: ['b'] } } })],
    expect: ['error ingress-required at spec.strategy.canary.trafficRouting.nginx.stableIngresses'],
  },
  {
    name: 'alb with both ingress and ingresses',
    code: 'ingress-required',
    docs: [canaryRollout({ ...alb, trafficRouting: { alb: { ingress: 'a', ingresses: ['b'], servicePort: 80 } } })],
    expect: ['error ingress-required at spec.strategy.canary.trafficRouting.alb.ingresses'],
  },
  {
    name: 'istio with both virtualService and virtualServices',
    code: 'ingress-required',
    docs: [canaryRollout({ ...istio, trafficRouting: { istio: { virtualService: { name: 'a' }, virtualServices: [{ name: 'b' }] } } })],
    expect: ['error ingress-required at spec.strategy.canary.trafficRouting.istio.virtualServices'],
  },
  {
    name: 'istio with neither virtualService nor virtualServices',
    code: 'ingress-required',
    docs: [
      canaryRollout({
        ...istio,
        trafficRouting: { istio: { destinationRule: { name: 'dr', canarySubsetName: 'c', stableSubsetName: 's' } } },
      }),
    ],
    expect: ['error ingress-required at spec.strategy.canary.trafficRouting.istio'],
  },
  {
    name: 'alb without an Ingress',
    code: 'ingress-required',
    docs: [canaryRollout({ ...alb, trafficRouting: { alb: { servicePort: 80 } } })],
    expect: ['error ingress-required at spec.strategy.canary.trafficRouting.alb'],
  },
  {
    name: 'step with two actions',
    code: 'step-one-action',
    docs: [canaryRollout({ steps: [{ setWeight: 10, pause: {} }] })],
    expect: ['error step-one-action at spec.strategy.canary.steps[0].pause'],
  },
  {
    name: 'step with no action',
    code: 'step-one-action',
    docs: [canaryRollout({ steps: [{ setWeight: 10 }, {}] })],
    expect: ['error step-one-action at spec.strategy.canary.steps[1]'],
  },
  {
    name: 'step whose action has no value',
    code: 'step-one-action',
    docs: [canaryRollout({ steps: [{ setWeight: 10 }, { analysis: null, templates: [{ templateName: 'rate' }] }] })],
    expect: ['error step-one-action at spec.strategy.canary.steps[1].analysis'],
  },
  {
    name: 'an action without a value beside one with a value is one action',
    code: 'step-one-action',
    docs: [canaryRollout({ steps: [{ setWeight: 10, pause: null }] })],
    expect: [],
  },
  {
    name: 'setWeight above 100',
    code: 'set-weight-range',
    docs: [canaryRollout({ steps: [{ setWeight: 120 }] })],
    expect: ['error set-weight-range at spec.strategy.canary.steps[0].setWeight'],
  },
  {
    name: 'setWeight up to maxTrafficWeight',
    code: 'set-weight-range',
    docs: [canaryRollout({ ...nginx, trafficRouting: { ...nginx.trafficRouting, maxTrafficWeight: 1000 }, steps: [{ setWeight: 500 }] })],
    expect: [],
  },
  {
    name: 'setCanaryScale without trafficRouting',
    code: 'set-canary-scale-traffic-routing',
    docs: [canaryRollout({ steps: [{ setCanaryScale: { replicas: 1 } }] })],
    expect: ['error set-canary-scale-traffic-routing at spec.strategy.canary.steps[0].setCanaryScale'],
  },
  {
    name: 'header route with nginx',
    code: 'header-route-router',
    docs: [canaryRollout({ ...nginx, steps: [{ setHeaderRoute: { name: 'h' } }] })],
    expect: ['error header-route-router at spec.strategy.canary.steps[0].setHeaderRoute'],
  },
  {
    name: 'header route regex with ALB',
    code: 'header-route-router',
    docs: [
      canaryRollout({
        ...alb,
        trafficRouting: { ...alb.trafficRouting, managedRoutes: [{ name: 'h' }] },
        steps: [{ setHeaderRoute: { name: 'h', match: [{ headerName: 'x', headerValue: { regex: 'a.*' } }] } }],
      }),
    ],
    expect: ['error header-route-router at spec.strategy.canary.steps[0].setHeaderRoute.match[0].headerValue.regex'],
  },
  {
    name: 'mirror route with ALB',
    code: 'mirror-route-router',
    docs: [canaryRollout({ ...alb, steps: [{ setMirrorRoute: { name: 'm' } }] })],
    expect: ['error mirror-route-router at spec.strategy.canary.steps[0].setMirrorRoute'],
  },
  {
    name: 'header value with two match kinds',
    code: 'route-match-one-of',
    docs: [
      canaryRollout({
        ...istio,
        steps: [{ setHeaderRoute: { name: 'h', match: [{ headerName: 'x', headerValue: { exact: 'a', prefix: 'b' } }] } }],
      }),
    ],
    expect: ['error route-match-one-of at spec.strategy.canary.steps[0].setHeaderRoute.match[0].headerValue'],
  },
  {
    name: 'route not in managedRoutes',
    code: 'route-not-managed',
    docs: [canaryRollout({ ...istio, steps: [{ setHeaderRoute: { name: 'h' } }] })],
    expect: ['error route-not-managed at spec.strategy.canary.steps[0].setHeaderRoute.name'],
  },
  {
    name: 'route in managedRoutes',
    code: 'route-not-managed',
    docs: [
      canaryRollout({
        ...istio,
        trafficRouting: { ...istio.trafficRouting, managedRoutes: [{ name: 'h' }] },
        steps: [{ setHeaderRoute: { name: 'h' } }],
      }),
    ],
    expect: [],
  },
  {
    name: 'experiment weight with nginx',
    code: 'experiment-weight-router',
    docs: [canaryRollout({ ...nginx, steps: [{ experiment: { templates: [{ name: 'x', specRef: 'canary', weight: 5 }] } }] })],
    expect: ['error experiment-weight-router at spec.strategy.canary.steps[0].experiment.templates[0].weight'],
  },
  {
    name: 'experiment weight with SMI',
    code: 'experiment-weight-router',
    docs: [
      canaryRollout({
        canaryService: 'c',
        stableService: 's',
        trafficRouting: { smi: {} },
        steps: [{ experiment: { templates: [{ name: 'x', specRef: 'canary', weight: 5 }] } }],
      }),
    ],
    expect: [],
  },
  {
    name: 'experiment weight without container ports',
    code: 'experiment-weight-without-ports',
    docs: [
      canaryRollout({
        canaryService: 'c',
        stableService: 's',
        trafficRouting: { smi: {} },
        steps: [{ experiment: { templates: [{ name: 'x', specRef: 'canary', weight: 5 }] } }],
      }),
    ],
    expect: ['warning experiment-weight-without-ports at spec.strategy.canary.steps[0].experiment.templates[0].weight'],
  },
  {
    name: 'experiment weight with a container port',
    code: 'experiment-weight-without-ports',
    docs: [
      canaryRollout(
        {
          canaryService: 'c',
          stableService: 's',
          trafficRouting: { smi: {} },
          steps: [{ experiment: { templates: [{ name: 'x', specRef: 'canary', weight: 5 }] } }],
        },
        {
          template: {
            metadata: { labels: { app: 'demo' } },
            spec: { containers: [{ name: 'demo', image: 'demo:1', ports: [{ containerPort: 8080 }] }] },
          },
        },
      ),
    ],
    expect: [],
  },
  {
    name: 'bad metadata fieldRef',
    code: 'analysis-field-ref',
    docs: [
      canaryRollout({
        steps: [
          {
            analysis: {
              templates: [{ templateName: 't' }],
              args: [{ name: 'a', valueFrom: { fieldRef: { fieldPath: 'metadata.bogus' } } }],
            },
          },
        ],
      }),
    ],
    expect: ['error analysis-field-ref at spec.strategy.canary.steps[0].analysis.args[0].valueFrom.fieldRef.fieldPath'],
  },
  // upstream validation.go:ValidateRolloutStrategyCanary checks the args of steps only: background analysis fails at run time instead
  {
    name: 'bad metadata fieldRef in background analysis',
    code: 'analysis-field-ref',
    docs: [
      canaryRollout({
        analysis: { templates: [{ templateName: 't' }], args: [{ name: 'a', valueFrom: { fieldRef: { fieldPath: 'metadata.bogus' } } }] },
      }),
    ],
    expect: ['warning analysis-field-ref at spec.strategy.canary.analysis.args[0].valueFrom.fieldRef.fieldPath'],
  },
  {
    name: 'label fieldRef',
    code: 'analysis-field-ref',
    docs: [
      canaryRollout({
        analysis: {
          templates: [{ templateName: 't' }],
          args: [{ name: 'a', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } }],
        },
      }),
    ],
    expect: [],
  },
  // references
  // workloadRef
  {
    name: 'Deployment not in the workspace',
    code: 'workload-not-found',
    workspace: true,
    docs: [workloadRefRollout()],
    expect: ['warning workload-not-found at spec.workloadRef.name'],
  },
  {
    name: 'Deployment found',
    code: 'workload-not-found',
    workspace: true,
    docs: [workloadRefRollout(), workload('demo-deploy', { app: 'demo' })],
    expect: [],
  },
  {
    name: 'a ReplicaSet or PodTemplate of that name',
    code: 'workload-not-found',
    workspace: true,
    docs: [workloadRefRollout({ kind: 'PodTemplate', apiVersion: 'v1' }), workload('demo-deploy', { app: 'demo' }, 'PodTemplate')],
    expect: [],
  },
  {
    name: 'a workload of another kind does not count',
    code: 'workload-not-found',
    workspace: true,
    docs: [workloadRefRollout({ kind: 'ReplicaSet' }), workload('demo-deploy', { app: 'demo' })],
    expect: ['warning workload-not-found at spec.workloadRef.name'],
  },
  {
    name: 'Deployment in another namespace does not count',
    code: 'workload-not-found',
    workspace: true,
    docs: [
      { ...workloadRefRollout(), metadata: { name: 'demo', namespace: 'shop' } },
      workload('demo-deploy', { app: 'demo' }, 'Deployment', 'elsewhere'),
    ],
    expect: ['warning workload-not-found at spec.workloadRef.name'],
  },
  {
    name: 'a kind Argo does not resolve is left alone',
    code: 'workload-not-found',
    workspace: true,
    docs: [workloadRefRollout({ kind: 'StatefulSet' })],
    expect: [],
  },
  { name: 'workloadRef not checked without a workspace', code: 'workload-not-found', docs: [workloadRefRollout()], expect: [] },
  {
    name: "selector that misses the Deployment's pods",
    code: 'workload-selector-mismatch',
    workspace: true,
    docs: [workloadRefRollout(), workload('demo-deploy', { app: 'other' })],
    expect: ['error workload-selector-mismatch at spec.selector.matchLabels.app'],
  },
  {
    name: "selector that selects the Deployment's pods",
    code: 'workload-selector-mismatch',
    workspace: true,
    docs: [workloadRefRollout(), workload('demo-deploy', { app: 'demo', tier: 'web' })],
    expect: [],
  },
  {
    name: 'workloadRef without a selector',
    code: 'workload-selector-mismatch',
    workspace: true,
    docs: [workloadRefRollout({}, { selector: null }), workload('demo-deploy', { app: 'other' })],
    expect: [],
  },
  {
    name: "Service selecting the Deployment's pods",
    code: 'service-selector-mismatch',
    workspace: true,
    docs: [
      workloadRefRollout({}, { strategy: { blueGreen: { activeService: 'web' } } }),
      workload('demo-deploy', { app: 'demo' }),
      service('web', { app: 'demo' }),
    ],
    expect: [],
  },
  {
    name: "Service selecting other pods than the Deployment's",
    code: 'service-selector-mismatch',
    workspace: true,
    docs: [
      workloadRefRollout({}, { strategy: { blueGreen: { activeService: 'web' } } }),
      workload('demo-deploy', { app: 'demo' }),
      service('web', { app: 'api' }),
    ],
    expect: ['error service-selector-mismatch at spec.strategy.blueGreen.activeService'],
  },
  {
    name: 'Service with a workloadRef that is not found: not judged',
    code: 'service-selector-mismatch',
    workspace: true,
    docs: [workloadRefRollout({}, { strategy: { blueGreen: { activeService: 'web' } } }), service('web', { app: 'api' })],
    expect: [],
  },
  // Services
  {
    name: 'Service not in the workspace',
    code: 'service-not-found',
    workspace: true,
    docs: [blueGreenRollout()],
    expect: ['warning service-not-found at spec.strategy.blueGreen.activeService'],
  },
  {
    name: 'Service selecting other pods',
    code: 'service-selector-mismatch',
    workspace: true,
    docs: [blueGreenRollout(), service('demo-active', { app: 'other' })],
    expect: ['error service-selector-mismatch at spec.strategy.blueGreen.activeService'],
  },
  {
    name: 'Service selecting the pods',
    code: 'service-selector-mismatch',
    workspace: true,
    docs: [blueGreenRollout(), service('demo-active', { app: 'demo' })],
    expect: [],
  },
  {
    name: 'Service in another namespace does not count',
    code: 'service-not-found',
    workspace: true,
    docs: [blueGreenRollout({}, {}), service('demo-active', { app: 'demo' }, 'elsewhere')].map((d, i) =>
      i === 0 ? { ...d, metadata: { name: 'demo', namespace: 'shop' } } : d,
    ),
    expect: ['warning service-not-found at spec.strategy.blueGreen.activeService'],
  },
  {
    name: 'canaryService selecting a canaryMetadata label',
    code: 'service-selector-mismatch',
    workspace: true,
    docs: [
      canaryRollout({ canaryService: 'c', stableService: 's', canaryMetadata: { labels: { role: 'canary' } } }),
      service('c', { app: 'demo', role: 'canary' }),
      service('s', { app: 'demo', 'rollouts-pod-template-hash': '5d8f9' }),
    ],
    expect: [],
  },
  {
    name: 'stableService cannot rely on canaryMetadata',
    code: 'service-selector-mismatch',
    workspace: true,
    docs: [
      canaryRollout({ canaryService: 'c', stableService: 's', canaryMetadata: { labels: { role: 'canary' } } }),
      service('c', { app: 'demo' }),
      service('s', { app: 'demo', role: 'canary' }),
    ],
    expect: ['error service-selector-mismatch at spec.strategy.canary.stableService'],
  },
  // surprises
  {
    name: 'autoPromotionSeconds with autoPromotionEnabled false',
    code: 'auto-promotion-seconds-ignored',
    docs: [blueGreenRollout({ autoPromotionEnabled: false, autoPromotionSeconds: 30 })],
    expect: ['warning auto-promotion-seconds-ignored at spec.strategy.blueGreen.autoPromotionSeconds'],
  },
  {
    name: 'scaleDownDelaySeconds 0',
    code: 'scale-down-delay-zero',
    docs: [blueGreenRollout({ scaleDownDelaySeconds: 0 })],
    expect: ['warning scale-down-delay-zero at spec.strategy.blueGreen.scaleDownDelaySeconds'],
  },
  {
    name: 'experiment with neither duration nor a required analysis',
    code: 'experiment-never-ends',
    docs: [
      canaryRollout({
        steps: [
          { setWeight: 20 },
          { experiment: { templates: [{ name: 'c', specRef: 'canary' }], analyses: [{ name: 'a', templateName: 'rate' }] } },
        ],
      }),
    ],
    expect: ['info experiment-never-ends at spec.strategy.canary.steps[1].experiment'],
  },
  {
    name: 'experiment with a duration',
    code: 'experiment-never-ends',
    docs: [canaryRollout({ steps: [{ experiment: { duration: '10m', templates: [{ name: 'c', specRef: 'canary' }] } }] })],
    expect: [],
  },
  {
    name: 'experiment ended by a required analysis',
    code: 'experiment-never-ends',
    docs: [
      canaryRollout({
        steps: [
          {
            experiment: {
              templates: [{ name: 'c', specRef: 'canary' }],
              analyses: [{ name: 'a', templateName: 'rate', requiredForCompletion: true }],
            },
          },
        ],
      }),
    ],
    expect: [],
  },
  {
    name: 'abort delay without trafficRouting',
    code: 'no-effect-without-traffic-routing',
    docs: [canaryRollout({ abortScaleDownDelaySeconds: 10 })],
    expect: ['warning no-effect-without-traffic-routing at spec.strategy.canary.abortScaleDownDelaySeconds'],
  },
];

/**
 * The upstream code each rule follows (pkg/apis/rollouts/validation at the reference commit, or the
 * controller), or `ours:` with what it adds that upstream does not check. Each case's title names it.
 */
const UPSTREAM: Record<string, string> = {
  'selector-required': 'validation.go:ValidateRolloutSpec',
  'selector-well-formed': 'validation.go:ValidateRolloutSpec (ValidateLabelSelector)',
  'names-well-formed': 'validation.go:ValidateRolloutSpec (ValidatePodTemplateSpecForReplicaSet), and the API server for metadata',
  'selector-matches-template': 'validation.go:ValidateRolloutSpec (ValidatePodTemplateSpecForReplicaSet)',
  'template-required': 'validation.go:ValidateRolloutSpec (ValidatePodTemplateSpecForReplicaSet)',
  'workload-ref-template': 'validation.go:ValidateRolloutSpec (EmptyTemplate)',
  'restart-policy-always': 'validation.go:ValidateRolloutSpec (ValidatePodTemplateSpecForReplicaSet)',
  'active-deadline-seconds': 'validation.go:ValidateRolloutSpec (ValidatePodTemplateSpecForReplicaSet)',
  'progress-deadline-after-min-ready': 'validation.go:ValidateRolloutSpec',
  'strategy-exactly-one': 'validation.go:ValidateRolloutStrategy',
  'active-preview-distinct': 'validation.go:ValidateRolloutStrategyBlueGreen',
  'scale-down-revision-limit': 'validation.go:ValidateRolloutStrategyBlueGreen',
  'anti-affinity-one-kind': 'validation.go:ValidateRolloutStrategyAntiAffinity',
  'max-surge-unavailable-zero': 'validation.go:invalidMaxSurgeMaxUnavailable',
  'canary-stable-distinct': 'validation.go:ValidateRolloutStrategyCanary',
  'ping-pong': 'validation.go:ValidateRolloutStrategyCanary',
  'scale-down-delay-traffic-routing': 'validation.go:ValidateRolloutStrategyCanary',
  'dynamic-stable-scale': 'validation.go:ValidateRolloutStrategyCanary',
  'max-traffic-weight-router': 'validation.go:ValidateRolloutStrategyCanary',
  'ingress-required':
    'validation_references.go:ValidateRolloutNginxIngressesConfig, ValidateRolloutAlbIngressesConfig, ValidateRolloutVirtualServicesConfig',
  'step-one-action': 'validation.go:ValidateRolloutStrategyCanary, hasMultipleStepsType',
  'set-weight-range': 'validation.go:ValidateRolloutStrategyCanary',
  'set-canary-scale-traffic-routing': 'validation.go:ValidateRolloutStrategyCanary',
  'header-route-router': 'validation.go:ValidateRolloutStrategyCanary, hasALBInvalidValues',
  'mirror-route-router': 'validation.go:ValidateRolloutStrategyCanary',
  'route-match-one-of': 'validation.go:hasMultipleMatchValues',
  'route-not-managed': 'validation.go:ValidateStepRouteFoundInManagedRoute',
  'experiment-weight-router': 'validation.go:ValidateRolloutStrategyCanary',
  'experiment-weight-without-ports': 'ours: a weighted experiment template without ports gets no Service',
  'analysis-field-ref': 'validation.go:ValidateRolloutStrategyCanary',
  'auto-promotion-seconds-ignored': 'ours: a setting without effect',
  'scale-down-delay-zero': 'ours: a surprising setting',
  'no-effect-without-traffic-routing': 'ours: settings without effect',
  'experiment-never-ends': 'ours: a step that waits until terminated',
  'traffic-routing-needs-services': 'validation.go:requireCanaryStableServices',
  'workload-not-found': 'ours: the controller resolves workloadRef before it validates',
  'workload-selector-mismatch': 'validation.go:ValidateRolloutSpec on the resolved template',
  'service-not-found': 'rollout/controller.go:getReferencedServices',
  'service-selector-mismatch': 'validation_references.go:ValidateService',
  'analysis-template-not-found': 'rollout/controller.go:getReferencedRolloutAnalyses',
  'analysis-args': 'validation_references.go:ValidateAnalysisTemplatesWithType',
  'analysis-runs-indefinitely': 'validation_references.go:ValidateAnalysisTemplateWithType',
  'router-object-not-found': 'rollout/controller.go:getReferencedIngresses, GetReferencedVirtualServices',
  'virtualservice-route': 'validation_references.go:ValidateVirtualService',
  'ingress-stable-backend': 'validation_references.go:ValidateIngress (a warning here, see the rule)',
  'gateway-route-backends': 'ours: the gatewayAPI plugin fails without both backendRefs',
};

/** The structural checks some cases here meet, with the upstream code they follow. */
const STRUCTURAL_UPSTREAM: Record<string, string> = {
  'out-of-range': "validation.go:ValidateRolloutStrategyAntiAffinity (InvalidAntiAffinityWeightMessage), through the catalog's bounds",
};

describe('schema rules', () => {
  it('the base canary and blue-green Rollouts have no findings', () => {
    assert.deepEqual(summary(lint(yamlOf(canaryRollout()))), []);
    assert.deepEqual(summary(lint(yamlOf(blueGreenRollout())), undefined), []);
  });

  for (const c of cases) {
    it(`${c.code} (${UPSTREAM[c.code] ?? STRUCTURAL_UPSTREAM[c.code]}): ${c.name}`, () => {
      const findings = lint(yamlOf(...c.docs), c.workspace);
      assert.deepEqual(summary(findings, c.code), c.expect);
    });
  }

  it('a finding about a template links its definition, in the file the index has it in', () => {
    const template = analysisTemplate('rate', {
      metrics: [{ name: 'm', interval: '1m', provider: { web: { url: 'http://x/{{args.service}}' } } }],
    });
    const text = yamlOf(
      canaryRollout({ steps: [{ analysis: { templates: [{ templateName: 'rate' }], args: [{ name: 'service', value: 's' }] } }] }),
      template,
    );
    const f = lint(text, true).find((x) => x.code === 'analysis-runs-indefinitely')!;
    const line = text.split('\n').indexOf('  name: rate');
    assert.deepEqual(f.related, [
      {
        message: 'AnalysisTemplate "rate" is defined here',
        file: 'test.yaml',
        range: { start: { line, column: 8 }, end: { line, column: 12 } },
      },
    ]);
  });

  it('a rule reads the workspace exactly when it says so (readsWorkspace), and such rules come last in the table', () => {
    const reads = new Set<string>();
    const workspace = {
      services: () => [],
      servicesNamed: () => [],
      analysisTemplatesNamed: () => [],
      analysisTemplates: () => [],
      workloadsNamed: () => [],
      workloads: () => [],
    };
    for (const c of cases) {
      for (const doc of c.docs.filter((d) => d.kind === 'Rollout')) {
        const spec = doc.spec as Obj | undefined;
        const strategy = spec?.strategy as Obj | undefined;
        for (const rule of rules) {
          const ctx = { rollout: doc, spec, canary: strategy?.canary, blueGreen: strategy?.blueGreen } as Record<string, unknown>;
          Object.defineProperty(ctx, 'workspace', { get: () => (reads.add(rule.code), workspace) });
          try {
            rule.check(ctx as never);
          } catch {
            // A rule may throw on an odd case; only what it read matters here.
          }
        }
      }
    }
    // The editor re-runs only the flagged rules when the workspace changes: an unflagged reader would go stale.
    assert.deepEqual(
      rules
        .filter((r) => r.readsWorkspace)
        .map((r) => r.code)
        .sort(),
      [...reads].sort(),
    );
    const firstReader = rules.findIndex((r) => r.readsWorkspace);
    assert.ok(
      rules.slice(firstReader).every((r) => r.readsWorkspace),
      'the workspace rules are not all at the end of the table',
    );
  });

  it('every rule names the upstream code it follows, or says it is ours', () => {
    assert.deepEqual(
      rules.map((r) => r.code).filter((code) => !UPSTREAM[code]),
      [],
    );
    assert.deepEqual(
      Object.keys(UPSTREAM).filter((code) => !rules.some((r) => r.code === code)),
      [],
      'an entry without its rule',
    );
  });

  it('every rule of the table has a case here, and codes are unique kebab-case', () => {
    const codes = rules.map((r) => r.code);
    assert.equal(new Set(codes).size, codes.length);
    for (const code of codes) {
      assert.match(code, /^[a-z]+(-[a-z]+)*$/);
      assert.ok(
        cases.some((c) => c.code === code && c.expect.length > 0),
        `no failing case for rule ${code}`,
      );
    }
  });
});
