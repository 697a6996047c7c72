/**
 * AWS App Mesh (upstream `rollout/trafficrouting/appmesh/appmesh.go`), `appmesh.k8s.aws/v1beta2`:
 * - the two VirtualNodes of `appMesh.virtualNodeGroup` select their ReplicaSet's pods: their
 *   `spec.podSelector.matchLabels` get `rollouts-pod-template-hash` (the stable's, or `stable-hash`
 *   while there is none; the canary's, or `canary-hash` when it is the stable's too, which App
 *   Mesh's admission would refuse), and the managed-by annotation (upstream `UpdateHash`);
 * - the VirtualRouter that the VirtualService `appMesh.virtualService.name` is provided by: in its
 *   routes (those named in `virtualService.routes`, else all), the weighted targets of the canary
 *   and stable VirtualNodes get the canary weight and the rest of 100 (upstream `SetWeight`).
 * The mesh objects are the user's: only those fields are patched, nothing is created.
 */
import { cloneJson, isObject } from '../../kube';
import { canonicalJson } from '../hash';
import { ANNOTATION_MANAGED_BY, LABEL_POD_TEMPLATE_HASH, type Rollout, type TrafficWeights } from '../types';
import {
  describeRef,
  routerObjectKey,
  type ObservedRouterObjects,
  type RouterDecision,
  type RouterObject,
  type RouterObjectRef,
  type RouterWrite,
} from './types';

export const APP_MESH_API_VERSION = 'appmesh.k8s.aws/v1beta2';
/** The route kinds whose weighted targets upstream splits, in the order it looks for them. */
const ROUTE_TYPES = ['httpRoute', 'tcpRoute', 'http2Route', 'grpcRoute'] as const;

const meshRef = (
  kind: 'VirtualService' | 'VirtualRouter' | 'VirtualNode',
  plural: string,
  namespace: string,
  name: string,
): RouterObjectRef => ({ apiVersion: APP_MESH_API_VERSION, kind, plural, namespace, name });

interface AppMeshConfig {
  virtualService: string;
  /** Route names to split; empty: all. */
  routes: string[];
  canaryNode: string;
  stableNode: string;
}

function appMeshConfig(rollout: Rollout): AppMeshConfig | { problem: string } {
  const config: unknown = rollout.spec?.strategy?.canary?.trafficRouting?.appMesh;
  const vs = isObject(config) && isObject(config.virtualService) ? config.virtualService : undefined;
  if (typeof vs?.name !== 'string' || vs.name === '') return { problem: 'virtualService.name must name the App Mesh VirtualService' };
  const routes = vs.routes ?? [];
  if (!Array.isArray(routes) || !routes.every((r) => typeof r === 'string'))
    return { problem: 'virtualService.routes must be a list of route names' };
  const group = isObject(config) && isObject(config.virtualNodeGroup) ? config.virtualNodeGroup : undefined;
  const nodeName = (key: string) => {
    const ref = group?.[key];
    return isObject(ref) && typeof ref.name === 'string' && ref.name !== '' ? ref.name : undefined;
  };
  const canaryNode = nodeName('canaryVirtualNodeRef');
  const stableNode = nodeName('stableVirtualNodeRef');
  if (!canaryNode || !stableNode) return { problem: 'virtualNodeGroup must name the canaryVirtualNodeRef and the stableVirtualNodeRef' };
  if (canaryNode === stableNode)
    return { problem: `the canary and the stable VirtualNode are both "${canaryNode}": they select different pods, so they must be two` };
  return { virtualService: vs.name, routes: routes as string[], canaryNode, stableNode };
}

export function appMeshReads(rollout: Rollout): RouterObjectRef[] {
  const config = appMeshConfig(rollout);
  if ('problem' in config) return [];
  const ns = rollout.metadata?.namespace ?? 'default';
  return [
    meshRef('VirtualService', 'virtualservices', ns, config.virtualService),
    meshRef('VirtualNode', 'virtualnodes', ns, config.canaryNode),
    meshRef('VirtualNode', 'virtualnodes', ns, config.stableNode),
  ];
}

/** The VirtualRouter the VirtualService is provided by, or why there is none. */
function virtualRouterOf(service: RouterObject, rolloutNamespace: string): RouterObjectRef | { problem: string } {
  const ref: unknown = service.spec?.provider?.virtualRouter?.virtualRouterRef;
  if (!isObject(ref) || typeof ref.name !== 'string' || ref.name === '')
    return { problem: 'is not provided by a VirtualRouter (spec.provider.virtualRouter.virtualRouterRef), so there is no route to split' };
  return meshRef(
    'VirtualRouter',
    'virtualrouters',
    typeof ref.namespace === 'string' && ref.namespace !== '' ? ref.namespace : rolloutNamespace,
    ref.name,
  );
}

export function appMeshFollowReads(rollout: Rollout, observed: ObservedRouterObjects): RouterObjectRef[] {
  const refs = appMeshReads(rollout);
  const service = refs[0] && observed.get(routerObjectKey(refs[0]));
  if (!service) return [];
  const router = virtualRouterOf(service, rollout.metadata?.namespace ?? 'default');
  return 'problem' in router ? [] : [router];
}

export function appMeshWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const config = appMeshConfig(rollout);
  if ('problem' in config) return config;
  const ns = rollout.metadata?.namespace ?? 'default';
  const [serviceRef, canaryRef, stableRef] = appMeshReads(rollout) as [RouterObjectRef, RouterObjectRef, RouterObjectRef];
  const writes: RouterWrite[] = [];

  const stableHash = weights.stable.podTemplateHash || 'stable-hash';
  const canaryHash =
    !weights.canary.podTemplateHash || weights.canary.podTemplateHash === stableHash ? 'canary-hash' : weights.canary.podTemplateHash;
  for (const [ref, hash] of [
    [stableRef, stableHash],
    [canaryRef, canaryHash],
  ] as const) {
    const node = observed.get(routerObjectKey(ref));
    if (!node) return { problem: `${describeRef(ref)} was not found` };
    const labels = isObject(node.spec?.podSelector?.matchLabels) ? node.spec.podSelector.matchLabels : {};
    const managed = node.metadata?.annotations?.[ANNOTATION_MANAGED_BY] === rollout.metadata?.name;
    if (labels[LABEL_POD_TEMPLATE_HASH] === hash && managed) continue;
    writes.push({
      action: 'patch',
      ref,
      patch: {
        metadata: {
          resourceVersion: node.metadata?.resourceVersion,
          annotations: { [ANNOTATION_MANAGED_BY]: rollout.metadata?.name ?? '' },
        },
        spec: { podSelector: { matchLabels: { [LABEL_POD_TEMPLATE_HASH]: hash } } },
      },
    });
  }

  const service = observed.get(routerObjectKey(serviceRef));
  if (!service) return { problem: `${describeRef(serviceRef)} was not found` };
  const routerRef = virtualRouterOf(service, ns);
  if ('problem' in routerRef) return { problem: `${describeRef(serviceRef)} ${routerRef.problem}` };
  const router = observed.get(routerObjectKey(routerRef));
  if (!router) return { problem: `${describeRef(routerRef)} (the provider of ${describeRef(serviceRef)}) was not found` };
  if (!Array.isArray(router.spec?.routes)) return { problem: `${describeRef(routerRef)} has no spec.routes` };
  const routes = cloneJson(router.spec.routes) as unknown[];
  for (const [i, route] of routes.entries()) {
    if (!isObject(route) || typeof route.name !== 'string') return { problem: `${describeRef(routerRef)}: spec.routes[${i}] has no name` };
    if (config.routes.length > 0 && !config.routes.includes(route.name)) continue;
    const type = ROUTE_TYPES.find((t) => isObject(route[t]));
    const targets =
      type && isObject(route[type]) && isObject((route[type] as Record<string, unknown>).action)
        ? ((route[type] as { action: Record<string, unknown> }).action.weightedTargets as unknown)
        : undefined;
    if (!Array.isArray(targets))
      return {
        problem: `${describeRef(routerRef)}: route "${route.name}" has no ${type ?? 'httpRoute, tcpRoute, http2Route or grpcRoute'} action.weightedTargets`,
      };
    for (const target of targets.filter(isObject)) {
      const node = isObject(target.virtualNodeRef) ? target.virtualNodeRef : undefined;
      // A target in another namespace is another mesh's node, whatever its name.
      if (!node || (typeof node.namespace === 'string' && node.namespace !== '' && node.namespace !== ns)) continue;
      if (node.name === config.stableNode) target.weight = 100 - weights.canary.weight;
      else if (node.name === config.canaryNode) target.weight = weights.canary.weight;
    }
  }
  if (canonicalJson(routes) !== canonicalJson(router.spec.routes)) {
    writes.push({
      action: 'patch',
      ref: routerRef,
      patch: { metadata: { resourceVersion: router.metadata?.resourceVersion }, spec: { routes } },
    });
  }
  return { writes };
}
