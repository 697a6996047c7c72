/**
 * RBAC, as kube-apiserver's authorizer evaluates it: Roles and ClusterRoles hold rules, RoleBindings
 * and ClusterRoleBindings give them to users, groups and ServiceAccounts; a request is allowed when
 * any rule that reaches its user covers its verb, API group, resource/subresource and name (or its
 * non-resource path). Members of `system:masters` are allowed everything, bindings or not, as the
 * real API server's privileged-group authorizer does. Also here: the ClusterRoles and bindings a
 * new cluster starts with (Kubernetes' defaults that matter here, and Argo Rollouts' aggregated
 * roles), the aggregation of ClusterRoles by label, and the 403 kube-apiserver answers.
 */
import type { Api } from './api';
import { ApiError } from './errors';
import type { Registry } from './resources';
import type { RequestAttributes } from './request-info';
import { labelSelectorRequirements, matchesRequirements } from '../kube';
import type { Store } from './store';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

interface Binding {
  metadata: { name: string; namespace?: string };
  roleRef?: { kind?: string; name?: string; apiGroup?: string };
  subjects?: Subject[];
}

export const rbacGroup = 'rbac.authorization.k8s.io';
export const mastersGroup = 'system:masters';
const keys = {
  roles: `${rbacGroup}/roles`,
  clusterRoles: `${rbacGroup}/clusterroles`,
  roleBindings: `${rbacGroup}/rolebindings`,
  clusterRoleBindings: `${rbacGroup}/clusterrolebindings`,
};

/** The username of a ServiceAccount, and the inverse. */
export const serviceAccountUsername = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`;
export function parseServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return m ? { namespace: m[1]!, name: m[2]! } : undefined;
}
export const serviceAccountGroups = (namespace: string): string[] => ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];

const has = (list: readonly string[] | undefined, value: string): boolean => !!list && (list.includes('*') || list.includes(value));

/** Whether one rule covers the request (RBAC's RuleAllows). */
export function ruleAllows(attrs: RequestAttributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, attrs.verb)) return false;
  if (!attrs.resourceRequest) return nonResourceURLMatches(rule.nonResourceURLs, attrs.path);
  if (!has(rule.apiGroups, attrs.apiGroup)) return false;
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const resourceMatches = (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (attrs.subresource !== '' && r === `*/${attrs.subresource}`),
  );
  if (!resourceMatches) return false;
  return !rule.resourceNames?.length || rule.resourceNames.includes(attrs.name);
}

function nonResourceURLMatches(urls: readonly string[] | undefined, path: string): boolean {
  return (urls ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

/** Whether a binding's subject is this user (a ServiceAccount without a namespace is in the RoleBinding's). */
function subjectIs(user: UserInfo, s: Subject, bindingNamespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === user.username;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return !!ns && user.username === serviceAccountUsername(ns, s.name);
    }
    default:
      return false;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  return s.kind === 'ServiceAccount' ? `${s.kind} "${s.name}/${s.namespace || bindingNamespace}"` : `${s.kind} "${s.name}"`;
}

export interface Decision {
  allowed: boolean;
  /** Why, as the API server says it in a SubjectAccessReview (RBAC's own wording). */
  reason: string;
}

export interface RulesReview {
  resourceRules: Array<{ verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs: string[] }>;
  incomplete: boolean;
  evaluationError?: string;
}

export class Rbac {
  constructor(private readonly store: Store) {}

  authorize(user: UserInfo, attrs: RequestAttributes): Decision {
    if (user.groups.includes(mastersGroup)) return { allowed: true, reason: '' };
    const errors: string[] = [];
    let allowedBy: string | undefined;
    this.visitRules(user, attrs.resourceRequest ? attrs.namespace : '', errors, (rule, source) => {
      if (ruleAllows(attrs, rule)) {
        allowedBy = source();
        return true;
      }
      return false;
    });
    if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ${allowedBy}` };
    return { allowed: false, reason: errors.length ? `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` : '' };
  }

  /** Every rule that reaches the user in a namespace (SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string): RulesReview {
    const out: RulesReview = { resourceRules: [], nonResourceRules: [], incomplete: false };
    if (user.groups.includes(mastersGroup)) {
      out.resourceRules.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
      out.nonResourceRules.push({ verbs: ['*'], nonResourceURLs: ['*'] });
    }
    const errors: string[] = [];
    this.visitRules(user, namespace, errors, (rule) => {
      if (rule.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs] });
      if (rule.resources?.length) {
        out.resourceRules.push({
          verbs: [...rule.verbs],
          apiGroups: [...(rule.apiGroups ?? [])],
          resources: [...rule.resources],
          ...(rule.resourceNames?.length ? { resourceNames: [...rule.resourceNames] } : {}),
        });
      }
      return false;
    });
    if (errors.length) {
      out.incomplete = true;
      out.evaluationError = errors.join(', ');
    }
    return out;
  }

  /** Calls `visit` with each rule that reaches the user (cluster bindings, then the namespace's) until it returns true. */
  private visitRules(
    user: UserInfo,
    namespace: string,
    errors: string[],
    visit: (rule: PolicyRule, source: () => string) => boolean,
  ): void {
    const walk = (binding: Binding, bindingNamespace: string): boolean => {
      const subject = (binding.subjects ?? []).find((s) => subjectIs(user, s, bindingNamespace));
      if (!subject) return false;
      const ref = binding.roleRef ?? {};
      const rules = this.roleRules(ref.kind, ref.name ?? '', bindingNamespace, errors);
      const source = () =>
        bindingNamespace
          ? `RoleBinding "${binding.metadata.name}/${bindingNamespace}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject, bindingNamespace)}`
          : `ClusterRoleBinding "${binding.metadata.name}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject, '')}`;
      return rules.some((r) => visit(r, source));
    };
    for (const b of this.store.list(keys.clusterRoleBindings) as Binding[]) if (walk(b, '')) return;
    if (!namespace) return;
    for (const b of this.store.list(keys.roleBindings, namespace) as Binding[]) if (walk(b, namespace)) return;
  }

  private roleRules(kind: string | undefined, name: string, namespace: string, errors: string[]): PolicyRule[] {
    const role =
      kind === 'ClusterRole'
        ? this.store.get(keys.clusterRoles, undefined, name)
        : kind === 'Role' && namespace
          ? this.store.get(keys.roles, namespace, name)
          : undefined;
    if (!role) {
      errors.push(`${kind === 'ClusterRole' ? 'clusterrole' : 'role'}.${rbacGroup} "${name}" not found`);
      return [];
    }
    return Array.isArray(role.rules) ? (role.rules as PolicyRule[]) : [];
  }
}

/**
 * The 403 kube-apiserver answers, word for word: `rollouts.argoproj.io is forbidden: User "u"
 * cannot list resource "rollouts" in API group "argoproj.io" in the namespace "team-b"`.
 */
export function forbidden(user: UserInfo, attrs: RequestAttributes, reason = ''): ApiError {
  let what: string;
  if (!attrs.resourceRequest) what = `User "${user.username}" cannot ${attrs.verb} path "${attrs.path}"`;
  else {
    const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
    what = `User "${user.username}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" ${scope}`;
  }
  if (reason) what = `${what}: ${reason}`;
  if (!attrs.resourceRequest || !attrs.resource) return new ApiError(403, 'Forbidden', `forbidden: ${what}`, {});
  const qualified = attrs.apiGroup ? `${attrs.resource}.${attrs.apiGroup}` : attrs.resource;
  const subject = attrs.name ? `${qualified} "${attrs.name}"` : qualified;
  // As Go writes StatusDetails: empty fields are left out (the core group's "" too).
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${what}`, {
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(attrs.apiGroup ? { group: attrs.apiGroup } : {}),
    kind: attrs.resource,
  });
}

// --- The policy a new cluster starts with -------------------------------------------------------

const bootstrapMeta = (name: string, labels: Record<string, string> = {}) => ({
  name,
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels },
});
const read = ['get', 'list', 'watch'];
const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const readWrite = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const aggregateTo = (role: string) => ({ [`${rbacGroup}/aggregate-to-${role}`]: 'true' });
const aggregated = (role: string) => ({ clusterRoleSelectors: [{ matchLabels: aggregateTo(role) }] });

/**
 * Kubernetes' default ClusterRoles as v1.32 ships them, those that concern the kinds served here
 * (the aggregated user-facing roles with their system:aggregate-to-* parts, discovery, basic-user,
 * public-info-viewer), and Argo Rollouts' aggregate-to-admin/edit/view roles from its install.
 */
export function defaultClusterRoles(): Record<string, unknown>[] {
  const clusterRole = (metadata: object, rules: PolicyRule[] | null, aggregationRule?: object) => ({
    apiVersion: `${rbacGroup}/v1`,
    kind: 'ClusterRole',
    metadata,
    ...(aggregationRule ? { aggregationRule } : {}),
    rules,
  });
  const argoKinds = ['rollouts', 'rollouts/scale', 'experiments', 'analysistemplates', 'clusteranalysistemplates', 'analysisruns'];
  const argoEditKinds = [
    'rollouts',
    'rollouts/scale',
    'rollouts/status',
    'experiments',
    'analysistemplates',
    'clusteranalysistemplates',
    'analysisruns',
  ];
  const argoMeta = (role: string) => ({
    name: `argo-rollouts-aggregate-to-${role}`,
    labels: {
      ...aggregateTo(role),
      'app.kubernetes.io/component': 'aggregate-cluster-role',
      'app.kubernetes.io/name': `argo-rollouts-aggregate-to-${role}`,
      'app.kubernetes.io/part-of': 'argo-rollouts',
    },
  });
  return [
    clusterRole(bootstrapMeta('cluster-admin'), [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole(bootstrapMeta('admin'), null, aggregated('admin')),
    clusterRole(bootstrapMeta('edit', aggregateTo('admin')), null, aggregated('edit')),
    clusterRole(bootstrapMeta('view', aggregateTo('edit')), null, aggregated('view')),
    clusterRole(bootstrapMeta('system:aggregate-to-admin', aggregateTo('admin')), [
      { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] },
      { apiGroups: [rbacGroup], resources: ['rolebindings', 'roles'], verbs: readWrite },
    ]),
    clusterRole(bootstrapMeta('system:aggregate-to-edit', aggregateTo('edit')), [
      {
        apiGroups: [''],
        resources: ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'],
        verbs: read,
      },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], verbs: write },
      { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
      {
        apiGroups: [''],
        resources: [
          'configmaps',
          'events',
          'persistentvolumeclaims',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'secrets',
          'serviceaccounts',
          'services',
          'services/proxy',
        ],
        verbs: write,
      },
      { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
      {
        apiGroups: ['apps'],
        resources: [
          'daemonsets',
          'deployments',
          'deployments/rollback',
          'deployments/scale',
          'replicasets',
          'replicasets/scale',
          'statefulsets',
          'statefulsets/scale',
        ],
        verbs: write,
      },
      { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: write },
      { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: write },
      {
        apiGroups: ['extensions'],
        resources: [
          'daemonsets',
          'deployments',
          'deployments/rollback',
          'deployments/scale',
          'ingresses',
          'networkpolicies',
          'replicasets',
          'replicasets/scale',
          'replicationcontrollers/scale',
        ],
        verbs: write,
      },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: write },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: write },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: readWrite },
    ]),
    clusterRole(bootstrapMeta('system:aggregate-to-view', aggregateTo('view')), [
      {
        apiGroups: [''],
        resources: [
          'configmaps',
          'endpoints',
          'persistentvolumeclaims',
          'persistentvolumeclaims/status',
          'pods',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/status',
        ],
        verbs: read,
      },
      {
        apiGroups: [''],
        resources: [
          'bindings',
          'events',
          'limitranges',
          'namespaces/status',
          'pods/log',
          'pods/status',
          'replicationcontrollers/status',
          'resourcequotas',
          'resourcequotas/status',
        ],
        verbs: read,
      },
      { apiGroups: [''], resources: ['namespaces'], verbs: read },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
      {
        apiGroups: ['apps'],
        resources: [
          'controllerrevisions',
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'statefulsets',
          'statefulsets/scale',
          'statefulsets/status',
        ],
        verbs: read,
      },
      { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], verbs: read },
      { apiGroups: ['batch'], resources: ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], verbs: read },
      {
        apiGroups: ['extensions'],
        resources: [
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'ingresses',
          'ingresses/status',
          'networkpolicies',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'replicationcontrollers/scale',
        ],
        verbs: read,
      },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets', 'poddisruptionbudgets/status'], verbs: read },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingresses/status', 'networkpolicies'], verbs: read },
    ]),
    clusterRole(bootstrapMeta('system:basic-user'), [
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ]),
    clusterRole(bootstrapMeta('system:discovery'), [
      {
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
        verbs: ['get'],
      },
    ]),
    clusterRole(bootstrapMeta('system:public-info-viewer'), [
      { nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] },
    ]),
    clusterRole(argoMeta('view'), [{ apiGroups: ['argoproj.io'], resources: argoKinds, verbs: read }]),
    clusterRole(argoMeta('edit'), [{ apiGroups: ['argoproj.io'], resources: argoEditKinds, verbs: readWrite }]),
    clusterRole(argoMeta('admin'), [{ apiGroups: ['argoproj.io'], resources: argoEditKinds, verbs: readWrite }]),
  ];
}

/** Kubernetes' default ClusterRoleBindings for the roles above. */
export function defaultClusterRoleBindings(): Record<string, unknown>[] {
  const binding = (name: string, role: string, groups: string[]) => ({
    apiVersion: `${rbacGroup}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMeta(name),
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: rbacGroup, kind: 'Group', name: g })),
  });
  return [
    binding('cluster-admin', 'cluster-admin', [mastersGroup]),
    binding('system:basic-user', 'system:basic-user', ['system:authenticated']),
    binding('system:discovery', 'system:discovery', ['system:authenticated']),
    binding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  ];
}

/**
 * The rules an aggregated ClusterRole should hold: those of every ClusterRole its selectors match
 * (by name, each rule once), or undefined when it has no aggregationRule.
 */
export function aggregatedRules(role: any, all: readonly any[]): PolicyRule[] | undefined {
  const selectors = role?.aggregationRule?.clusterRoleSelectors;
  if (!Array.isArray(selectors)) return undefined;
  const requirements = selectors.map((s) => labelSelectorRequirements(s ?? {}));
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  const sources = all.filter(
    (r) =>
      r.metadata.name !== role.metadata.name && requirements.some((req) => req.length > 0 && matchesRequirements(r.metadata.labels, req)),
  );
  sources.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  for (const source of sources) {
    for (const rule of Array.isArray(source.rules) ? source.rules : []) {
      const key = JSON.stringify(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(rule);
    }
  }
  return out;
}

/** Creates the default ClusterRoles and bindings a cluster lacks (a restored one keeps what it has, edits included). */
export function seedDefaultPolicy(api: Api, registry: Registry): void {
  const clusterRoles = registry.find(rbacGroup, 'v1', 'clusterroles')!;
  const bindings = registry.find(rbacGroup, 'v1', 'clusterrolebindings')!;
  for (const [t, objects] of [
    [clusterRoles, defaultClusterRoles()],
    [bindings, defaultClusterRoleBindings()],
  ] as const) {
    for (const obj of objects) {
      const name = (obj.metadata as { name: string }).name;
      if (!api.find(t, undefined, name)) api.create(t, undefined, obj, { manager: 'kube-apiserver' });
    }
  }
}

/**
 * The ClusterRole aggregation controller: keeps each aggregated ClusterRole's rules the union of
 * those of the roles its selectors match, now and whenever a ClusterRole changes.
 */
export function startAggregation(api: Api, store: Store, registry: Registry, onError: (message: string) => void = () => {}): () => void {
  const t = registry.find(rbacGroup, 'v1', 'clusterroles')!;
  const reconcile = () => {
    // An aggregated role can be a source of another (view into edit into admin): repeat until nothing changes.
    for (let round = 0; round < 10; round++) {
      let changed = false;
      const all = store.list(keys.clusterRoles);
      for (const role of all) {
        const rules = aggregatedRules(role, all);
        if (!rules || JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
        api.update(t, undefined, role.metadata.name, { ...role, rules }, { manager: 'clusterrole-aggregation-controller' });
        changed = true;
      }
      if (!changed) return;
    }
  };
  reconcile();
  let scheduled: NodeJS.Immediate | undefined;
  const unsubscribe = store.watch(keys.clusterRoles, () => {
    scheduled ??= setImmediate(() => {
      scheduled = undefined;
      try {
        reconcile();
      } catch (e) {
        onError(`aggregating ClusterRoles: ${(e as Error).message}`);
      }
    });
  });
  return () => {
    unsubscribe();
    if (scheduled) clearImmediate(scheduled);
  };
}

// --- Escalation prevention -----------------------------------------------------------------------

const resourceRequest = (attrs: Partial<RequestAttributes>): RequestAttributes => ({
  verb: '',
  resourceRequest: true,
  path: '',
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
  ...attrs,
});

/** One permission: a verb on one group/resource (and name), or on one non-resource URL. */
type Atom = { verb: string; group: string; resource: string; name?: string } | { verb: string; url: string };

function atoms(rule: PolicyRule): Atom[] {
  const out: Atom[] = [];
  for (const verb of rule.verbs ?? []) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ verb, url });
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        if (rule.resourceNames?.length) for (const name of rule.resourceNames) out.push({ verb, group, resource, name });
        else out.push({ verb, group, resource });
      }
    }
  }
  return out;
}

function covers(owned: PolicyRule, atom: Atom): boolean {
  if (!has(owned.verbs, atom.verb)) return false;
  if ('url' in atom) return nonResourceURLMatches(owned.nonResourceURLs, atom.url);
  if (!has(owned.apiGroups, atom.group)) return false;
  const slash = atom.resource.indexOf('/');
  const sub = slash >= 0 ? atom.resource.slice(slash + 1) : '';
  const resourceOk = (owned.resources ?? []).some((r) => r === '*' || r === atom.resource || (sub !== '' && r === `*/${sub}`));
  if (!resourceOk) return false;
  return !owned.resourceNames?.length || (atom.name !== undefined && owned.resourceNames.includes(atom.name));
}

/** A rule as kube-apiserver prints it in an escalation error: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["create"]}`. */
function compact(atom: Atom): string {
  const q = (v: string) => `[${JSON.stringify(v)}]`;
  if ('url' in atom) return `{NonResourceURLs:${q(atom.url)}, Verbs:${q(atom.verb)}}`;
  return `{APIGroups:${q(atom.group)}, Resources:${q(atom.resource)}${atom.name !== undefined ? `, ResourceNames:${q(atom.name)}` : ''}, Verbs:${q(atom.verb)}}`;
}

/**
 * RBAC's escalation prevention, as kube-apiserver applies it to writes of Roles and bindings: a
 * user may write a Role only with rules they hold themselves (in that namespace), or with the
 * `escalate` verb on it; a binding only to a role whose rules they hold, or with the `bind` verb on
 * that role. system:masters may do anything. Writes by the cluster itself (no user) pass.
 */
export function escalationPrevention(
  rbac: Rbac,
  store: Store,
): (t: { group: string; plural: string }, obj: any, opts: { user?: UserInfo }) => void {
  return (t, obj, opts) => {
    const user = opts.user;
    if (!user || t.group !== rbacGroup || user.groups.includes(mastersGroup)) return;
    const namespace: string = obj.metadata?.namespace ?? '';
    const name: string = obj.metadata?.name ?? '';
    const refuse = (message: string) =>
      new ApiError(403, 'Forbidden', `${t.plural}.${rbacGroup} "${name}" is forbidden: ${message}`, {
        name,
        group: rbacGroup,
        kind: t.plural,
      });
    const notHeld = (rules: PolicyRule[]) => {
      const owned = rbac.rulesFor(user, namespace);
      const held: PolicyRule[] = [...owned.resourceRules, ...owned.nonResourceRules];
      const missing = rules.flatMap(atoms).filter((a) => !held.some((r) => covers(r, a)));
      if (!missing.length) return;
      const lines = [...new Set(missing.map(compact))].sort();
      throw refuse(
        `user "${user.username}" (groups=[${user.groups.map((g) => JSON.stringify(g)).join(' ')}]) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`,
      );
    };
    if (t.plural === 'roles' || t.plural === 'clusterroles') {
      if (rbac.authorize(user, resourceRequest({ verb: 'escalate', apiGroup: rbacGroup, resource: t.plural, namespace, name })).allowed)
        return;
      if (t.plural === 'clusterroles' && obj.aggregationRule) throw refuse('must have cluster-admin privileges to use the aggregationRule');
      notHeld(Array.isArray(obj.rules) ? obj.rules : []);
      return;
    }
    if (t.plural === 'rolebindings' || t.plural === 'clusterrolebindings') {
      const ref = obj.roleRef ?? {};
      const roleResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
      if (
        rbac.authorize(user, resourceRequest({ verb: 'bind', apiGroup: rbacGroup, resource: roleResource, namespace, name: ref.name }))
          .allowed
      )
        return;
      const role = ref.kind === 'Role' ? store.get(keys.roles, namespace, ref.name) : store.get(keys.clusterRoles, undefined, ref.name);
      if (!role) throw refuse(`${roleResource.slice(0, -1)}.${rbacGroup} "${ref.name}" not found`);
      notHeld(Array.isArray(role.rules) ? role.rules : []);
    }
  };
}
