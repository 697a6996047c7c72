/** canary.trafficRouting: one block per router. */
import { DOCS, bool, int, list, map, obj, str, stringMap, any, type FieldSpec } from '../field-spec';

const TM = `${DOCS}/traffic-management`;

const istioVirtualService = (name: string, docs: string): FieldSpec =>
  obj(
    name,
    docs,
    [
      str('name', 'Name of the Istio VirtualService (optionally `name.namespace`).', { required: true }),
      list(
        'routes',
        'Names of the HTTP routes in the VirtualService whose weights Argo sets. May be omitted when the VirtualService has exactly one HTTP route.',
        str('route', 'An HTTP route name.'),
      ),
      list(
        'tlsRoutes',
        'TLS routes to manage, identified by port and SNI hosts.',
        obj('tlsRoute', 'A TLS route selector.', [
          int('port', 'Port of the TLS route.'),
          list('sniHosts', 'SNI hosts of the TLS route.', str('host', 'An SNI host.')),
        ]),
      ),
      list(
        'tcpRoutes',
        'TCP routes to manage, identified by port.',
        obj('tcpRoute', 'A TCP route selector.', [int('port', 'Port of the TCP route.')]),
      ),
    ],
    { link: `${TM}/istio/`, example: `${name}:\n  name: checkout-vsvc\n  routes:\n  - primary` },
  );

const istio = obj(
  'istio',
  'Istio: Argo rewrites the route weights of a VirtualService (host-level splitting between canaryService and stableService), or, with a DestinationRule, the subsets (subset-level splitting, no extra Services needed). The embedded controller of this extension drives it too (on the local cluster as well).',
  [
    istioVirtualService('virtualService', 'The one VirtualService to manage. Use `virtualServices` for several.'),
    {
      ...list(
        'virtualServices',
        'Several VirtualServices to manage together (instead of `virtualService`).',
        istioVirtualService('virtualService', 'One VirtualService to manage.'),
      ),
      link: `${TM}/istio/#multicluster-setup`,
    },
    obj(
      'destinationRule',
      'For subset-level splitting: Argo points the two subsets of this DestinationRule at the canary and stable pod-template hashes.',
      [
        str('name', 'Name of the DestinationRule.', { required: true }),
        str('canarySubsetName', 'The subset that Argo points at the canary pods.', { required: true }),
        str('stableSubsetName', 'The subset that Argo points at the stable pods.', { required: true }),
      ],
      {
        link: `${TM}/istio/#subset-level-traffic-splitting`,
        example: 'destinationRule:\n  name: checkout-destrule\n  canarySubsetName: canary\n  stableSubsetName: stable',
      },
    ),
  ],
  { link: `${TM}/istio/`, example: 'istio:\n  virtualService:\n    name: checkout-vsvc\n    routes:\n    - primary' },
);

const nginx = obj(
  'nginx',
  'NGINX Ingress Controller: Argo creates a canary copy of the stable Ingress with the canary-weight annotations. Needs canaryService and stableService. The embedded controller of this extension drives it too (on the local cluster as well).',
  [
    str('stableIngress', 'Name of the Ingress that routes to the stableService. Argo clones it as `<rollout>-<ingress>-canary`.', {
      example: 'stableIngress: checkout-ingress',
    }),
    list('stableIngresses', 'Several stable Ingresses (instead of `stableIngress`).', str('ingress', 'An Ingress name.')),
    str('annotationPrefix', 'The annotation prefix your NGINX controller is configured with.', {}),
    stringMap(
      'additionalIngressAnnotations',
      'Extra canary annotations (without prefix) added to the canary Ingress, e.g. `canary-by-header: X-Canary`.',
    ),
    stringMap('canaryIngressAnnotations', 'Annotations copied onto the generated canary Ingress as they are.'),
  ],
  { link: `${TM}/nginx/`, example: 'nginx:\n  stableIngress: checkout-ingress' },
);

const alb = obj(
  'alb',
  'AWS Load Balancer Controller: Argo writes a weighted forward action into the Ingress annotations. Needs canaryService and stableService (or pingPong). The embedded controller of this extension drives it too (on the local cluster as well).',
  [
    str('ingress', 'Name of the Ingress that the load balancer serves.', { example: 'ingress: checkout-ingress' }),
    list('ingresses', 'Several Ingresses (instead of `ingress`).', str('ingress', 'An Ingress name.')),
    int('servicePort', 'The Service port the Ingress rule forwards to.', { required: true, example: 'servicePort: 80' }),
    str('rootService', 'The Service the Ingress rule names (the action is keyed by it).', {}),
    str('annotationPrefix', 'The annotation prefix your load balancer controller is configured with.', {}),
    obj('stickinessConfig', 'Target-group stickiness for the weighted action.', [
      bool('enabled', 'Turn stickiness on.', { required: true }),
      int('durationSeconds', 'How long a client sticks to one target group, 1 to 604800 seconds.', { required: true, min: 1, max: 604800 }),
    ]),
  ],
  { link: `${TM}/alb/`, example: 'alb:\n  ingress: checkout-ingress\n  servicePort: 80' },
);

const smi = obj(
  'smi',
  'Service Mesh Interface (e.g. Linkerd): Argo manages a TrafficSplit between canaryService and stableService. The embedded controller of this extension drives it too (on the local cluster as well).',
  [
    str('rootService', 'The Service that clients call; the TrafficSplit is attached to it.', { example: 'rootService: checkout' }),
    str('trafficSplitName', 'Name of the TrafficSplit Argo creates.', { defaultNote: "the Rollout's name" }),
  ],
  { link: `${TM}/smi/`, example: 'smi:\n  rootService: checkout' },
);

const ambassador = obj(
  'ambassador',
  'Ambassador / Emissary: Argo creates a canary Mapping beside each listed Mapping with the canary weight (`<mapping>-canary`, deleted again at weight 0); the embedded controller of this extension does the same.',
  [list('mappings', 'Names of the Ambassador Mappings to split.', str('mapping', 'A Mapping name.'), { required: true })],
  { link: `${TM}/ambassador/`, example: 'ambassador:\n  mappings:\n  - checkout-mapping' },
);

const appMesh = obj(
  'appMesh',
  "AWS App Mesh: Argo sets the weights of a VirtualRouter's routes between two VirtualNodes. It also points each VirtualNode's pod selector at its ReplicaSet's pods; the embedded controller of this extension does the same.",
  [
    obj('virtualService', 'The App Mesh VirtualService (and its VirtualRouter) to manage.', [
      str('name', 'Name of the VirtualService.', { required: true }),
      list('routes', 'Route names in the VirtualRouter to manage; may be omitted when there is one.', str('route', 'A route name.')),
    ]),
    obj('virtualNodeGroup', 'The VirtualNodes that receive canary and stable traffic.', [
      obj(
        'canaryVirtualNodeRef',
        'The VirtualNode Argo points at the canary pods.',
        [str('name', 'VirtualNode name.', { required: true })],
        { required: true },
      ),
      obj(
        'stableVirtualNodeRef',
        'The VirtualNode Argo points at the stable pods.',
        [str('name', 'VirtualNode name.', { required: true })],
        { required: true },
      ),
    ]),
  ],
  {
    link: `${TM}/app-mesh/`,
    example:
      'appMesh:\n  virtualService:\n    name: checkout\n  virtualNodeGroup:\n    canaryVirtualNodeRef:\n      name: checkout-canary\n    stableVirtualNodeRef:\n      name: checkout-stable',
  },
);

const traefik = obj(
  'traefik',
  'Traefik: Argo sets the weights of the canary and stable Services in a weighted TraefikService; the embedded controller of this extension does the same.',
  [str('weightedTraefikServiceName', 'Name of the weighted TraefikService.', { required: true })],
  { link: `${TM}/traefik/`, example: 'traefik:\n  weightedTraefikServiceName: checkout-weighted' },
);

const apisix = obj(
  'apisix',
  'Apache APISIX: Argo sets the backend weights of an ApisixRoute, and puts each header route in an ApisixRoute of its own; the embedded controller of this extension does the same.',
  [
    obj('route', 'The ApisixRoute to manage.', [
      str('name', 'Name of the ApisixRoute.', { required: true }),
      list('rules', 'HTTP rule names in the route to manage.', str('rule', 'A rule name.')),
    ]),
  ],
  { link: `${TM}/apisix/`, example: 'apisix:\n  route:\n    name: checkout-route\n    rules:\n    - rule1' },
);

export const trafficRouting = obj(
  'trafficRouting',
  'Splits traffic by weight with a mesh or ingress instead of by pod counts, so `setWeight: 5` sends 5% of requests to the canary whatever the replica count. Configure one router (several are allowed together, e.g. nginx + smi). With trafficRouting the stable ReplicaSet stays at full size unless `dynamicStableScale` is on.',
  [
    istio,
    nginx,
    alb,
    smi,
    ambassador,
    appMesh,
    traefik,
    apisix,
    map(
      'plugins',
      "Traffic router plugins, keyed by plugin name (e.g. `argoproj-labs/gatewayAPI`); each value is the plugin's own configuration. The plugin must be registered in the controller's ConfigMap. The embedded controller of this extension drives `argoproj-labs/gatewayAPI` itself (the weights of the named routes, and the rules of header routes) and only records the weights for other plugins.",
      any('config', 'Plugin configuration, passed to the plugin as it is.'),
      {
        link: `${TM}/plugins/`,
        example: 'plugins:\n  argoproj-labs/gatewayAPI:\n    httpRoute: checkout-route\n    namespace: default',
      },
    ),
    list(
      'managedRoutes',
      'Routes Argo may add for `setHeaderRoute` and `setMirrorRoute` steps, in precedence order. Every route a step names must be listed here.',
      obj('route', 'A managed route.', [str('name', 'Route name, as named by the steps.', { required: true })]),
      {
        link: `${TM}/#traffic-routing-with-managed-routes-and-route-based-traffic-management`,
        example: 'managedRoutes:\n- name: header-route',
      },
    ),
    int(
      'maxTrafficWeight',
      'The total weight that `setWeight` values are out of (e.g. 1000 for per-mille steps). Only allowed with nginx or plugins.',
      { min: 1, link: `${TM}/`, example: 'maxTrafficWeight: 1000  # then setWeight: 5 means 0.5%' },
    ),
  ],
  { link: `${TM}/`, example: 'trafficRouting:\n  nginx:\n    stableIngress: checkout-ingress' },
);
