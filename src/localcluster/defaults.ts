/**
 * What the API server fills in and checks for built-in kinds on create and update: the small
 * subset of defaulting and validation that clients notice (cluster IPs, pod phase, selector
 * matching the template, required containers).
 */
import { invalid } from './errors';
import type { ResourceType } from './resources';
import { labelSelectorRequirements, matchesRequirements, setOwn } from '../kube';

/** The status a built-in kind starts with, whatever the client sent. */
export function initialStatus(t: ResourceType): unknown {
  if (t.builtIn && t.group === '' && t.plural === 'pods') return { phase: 'Pending', qosClass: 'BestEffort' };
  if (t.builtIn && t.group === '' && t.plural === 'namespaces') return { phase: 'Active' };
  if (t.builtIn && t.group === '' && t.plural === 'services') return { loadBalancer: {} };
  if (t.builtIn && t.group === '' && t.plural === 'nodes') return undefined;
  return {};
}

export function applyDefaults(t: ResourceType, obj: any, allocateClusterIP: () => string): void {
  if (!t.builtIn) return;
  const spec = obj.spec;
  switch (`${t.group}/${t.plural}`) {
    case '/pods':
      defaultPodSpec(spec);
      // Scheduling is immediate: there is one node.
      if (spec && typeof spec === 'object') spec.nodeName ??= nodeName;
      break;
    case '/services':
      if (spec && typeof spec === 'object') {
        spec.type ??= 'ClusterIP';
        spec.sessionAffinity ??= 'None';
        if (spec.type !== 'ExternalName') {
          spec.clusterIP ??= allocateClusterIP();
          spec.clusterIPs ??= [spec.clusterIP];
        }
        for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
          if (p && typeof p === 'object') {
            p.protocol ??= 'TCP';
            p.targetPort ??= p.port;
          }
        }
      }
      break;
    case '/secrets':
      obj.type ??= 'Opaque';
      if (obj.stringData && typeof obj.stringData === 'object') {
        obj.data = { ...(obj.data ?? {}) };
        for (const [k, v] of Object.entries(obj.stringData)) setOwn(obj.data, k, Buffer.from(String(v)).toString('base64'));
        delete obj.stringData;
      }
      break;
    case '/namespaces':
      obj.spec = { finalizers: ['kubernetes'], ...(spec ?? {}) };
      break;
    case 'apps/replicasets':
    case 'apps/deployments':
      if (spec && typeof spec === 'object') {
        spec.replicas ??= 1;
        defaultPodSpec(spec.template?.spec);
        if (t.plural === 'deployments') defaultDeploymentSpec(spec);
      }
      break;
  }
}

/** The node every Pod runs on. */
export const nodeName = 'rollouts-local';

/** apps/v1's defaults: a rolling update of 25% each way, 10 old ReplicaSets kept, 600 s to make progress. */
function defaultDeploymentSpec(spec: any): void {
  spec.strategy = spec.strategy && typeof spec.strategy === 'object' ? spec.strategy : {};
  spec.strategy.type ??= 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    spec.strategy.rollingUpdate = { maxUnavailable: '25%', maxSurge: '25%', ...(spec.strategy.rollingUpdate ?? {}) };
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
}

function defaultPodSpec(spec: any): void {
  if (!spec || typeof spec !== 'object') return;
  spec.securityContext ??= {};
  spec.restartPolicy ??= 'Always';
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ??= 'default-scheduler';
  for (const c of [
    ...(Array.isArray(spec.initContainers) ? spec.initContainers : []),
    ...(Array.isArray(spec.containers) ? spec.containers : []),
  ]) {
    if (!c || typeof c !== 'object') continue;
    if (typeof c.image === 'string')
      c.imagePullPolicy ??= /:latest$|^[^:]*$/.test(c.image.split('/').pop() ?? '') ? 'Always' : 'IfNotPresent';
    c.terminationMessagePath ??= '/dev/termination-log';
    c.terminationMessagePolicy ??= 'File';
    for (const p of Array.isArray(c.ports) ? c.ports : []) if (p && typeof p === 'object') p.protocol ??= 'TCP';
  }
}

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Throws a 422 Invalid ApiError for the first problem found. */
export function validate(t: ResourceType, obj: any): void {
  const name: string = obj.metadata.name;
  const fail = (field: string, message: string) => invalid(t.kind, t.group, name, field, message);
  const labelNames = t.builtIn && ['namespaces', 'services'].includes(t.plural);
  if (t.builtIn && t.group === 'rbac.authorization.k8s.io') {
    // RBAC names are path segments (system:discovery), not DNS names.
    if (name === '.' || name === '..' || /[/%]/.test(name))
      throw fail('metadata.name', `Invalid value: "${name}": may not be '.' or '..' or contain '/' or '%'`);
  } else if (labelNames ? !dnsLabel.test(name) || name.length > 63 : !dnsSubdomain.test(name) || name.length > 253) {
    throw fail(
      'metadata.name',
      `Invalid value: "${name}": a lowercase RFC 1123 ${labelNames ? 'label' : 'subdomain'} must consist of lower case alphanumeric characters, '-'${labelNames ? '' : " or '.'"}, and must start and end with an alphanumeric character`,
    );
  }
  for (const field of ['labels', 'annotations'] as const) {
    const m = obj.metadata[field];
    if (m === undefined || m === null) continue;
    if (typeof m !== 'object' || Array.isArray(m)) throw fail(`metadata.${field}`, 'Invalid value: must be a map of strings');
    for (const [k, v] of Object.entries(m))
      if (typeof v !== 'string') throw fail(`metadata.${field}.${k}`, `Invalid value: ${JSON.stringify(v)}: must be a string`);
  }
  if (!t.builtIn) return;
  const spec = obj.spec;
  switch (`${t.group}/${t.plural}`) {
    case '/pods': {
      const containers = spec?.containers;
      if (!Array.isArray(containers) || containers.length === 0) throw fail('spec.containers', 'Required value');
      containers.forEach((c: any, i: number) => {
        if (!c?.name) throw fail(`spec.containers[${i}].name`, 'Required value');
        if (!c?.image) throw fail(`spec.containers[${i}].image`, 'Required value');
      });
      break;
    }
    case '/services':
      (Array.isArray(spec?.ports) ? spec.ports : []).forEach((p: any, i: number) => {
        if (!Number.isInteger(p?.port) || p.port < 1 || p.port > 65535)
          throw fail(`spec.ports[${i}].port`, `Invalid value: ${JSON.stringify(p?.port)}: must be between 1 and 65535, inclusive`);
      });
      break;
    case 'rbac.authorization.k8s.io/rolebindings':
    case 'rbac.authorization.k8s.io/clusterrolebindings': {
      const ref = obj.roleRef;
      const kinds = t.plural === 'rolebindings' ? ['Role', 'ClusterRole'] : ['ClusterRole'];
      if (!ref || typeof ref !== 'object') throw fail('roleRef', 'Required value');
      if (!kinds.includes(ref.kind))
        throw fail(
          'roleRef.kind',
          `Unsupported value: ${JSON.stringify(ref.kind ?? '')}: supported values: ${kinds.map((k) => `"${k}"`).join(', ')}`,
        );
      if (typeof ref.name !== 'string' || !ref.name) throw fail('roleRef.name', 'Required value');
      (Array.isArray(obj.subjects) ? obj.subjects : []).forEach((s: any, i: number) => {
        if (!['User', 'Group', 'ServiceAccount'].includes(s?.kind))
          throw fail(
            `subjects[${i}].kind`,
            `Unsupported value: ${JSON.stringify(s?.kind ?? '')}: supported values: "ServiceAccount", "User", "Group"`,
          );
        if (typeof s.name !== 'string' || !s.name) throw fail(`subjects[${i}].name`, 'Required value');
        if (s.kind === 'ServiceAccount' && t.plural === 'clusterrolebindings' && !s.namespace)
          throw fail(`subjects[${i}].namespace`, 'Required value');
      });
      break;
    }
    case 'rbac.authorization.k8s.io/roles':
    case 'rbac.authorization.k8s.io/clusterroles':
      if (obj.rules !== undefined && obj.rules !== null && !Array.isArray(obj.rules))
        throw fail('rules', 'Invalid value: must be a list of PolicyRules');
      (obj.rules ?? []).forEach((r: any, i: number) => {
        if (!Array.isArray(r?.verbs) || r.verbs.length === 0)
          throw fail(`rules[${i}].verbs`, 'Required value: verbs must contain at least one value');
        if (r.nonResourceURLs?.length && t.plural === 'roles')
          throw fail(`rules[${i}].nonResourceURLs`, 'Invalid value: namespaced rules cannot apply to non-resource URLs');
        if (!r.nonResourceURLs?.length && (!Array.isArray(r.apiGroups) || r.apiGroups.length === 0)) {
          throw fail(`rules[${i}].apiGroups`, 'Required value: resource rules must supply at least one api group');
        }
        if (!r.nonResourceURLs?.length && (!Array.isArray(r.resources) || r.resources.length === 0)) {
          throw fail(`rules[${i}].resources`, 'Required value: resource rules must supply at least one resource');
        }
      });
      break;
    case 'apps/replicasets':
    case 'apps/deployments': {
      if (!spec?.selector) throw fail('spec.selector', 'Required value');
      if (!Number.isInteger(spec.replicas) || spec.replicas < 0)
        throw fail('spec.replicas', `Invalid value: ${JSON.stringify(spec.replicas)}: must be greater than or equal to 0`);
      const requirements = labelSelectorRequirements(spec.selector);
      if (requirements.length === 0) throw fail('spec.selector', 'Invalid value: empty selector is invalid for deployment');
      if (!matchesRequirements(spec.template?.metadata?.labels, requirements)) {
        throw fail(
          'spec.template.metadata.labels',
          `Invalid value: ${JSON.stringify(spec.template?.metadata?.labels ?? {})}: \`selector\` does not match template \`labels\``,
        );
      }
      break;
    }
  }
}
