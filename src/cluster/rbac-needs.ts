/**
 * The RBAC each user-facing action needs, in one place: docs/rbac.md's table is generated from it
 * (scripts/start/rbac-table.ts), the tests of test/cluster/rbac-rows.test.ts give a ServiceAccount
 * exactly a row's rules and take each away in turn, and a 403 is explained with it
 * (`forbiddenSentence`). Pure data and text: no I/O, no vscode.
 */

import { forbiddenRequest } from '../kube';
import type { ActionName } from '../planner';
import { ACTIONS } from './action-catalog';

/** A row for rollout actions: its words are the catalog's titles. */
const forActions = (actions: readonly ActionName[]) => ({ actions, to: actions.map((a) => ACTIONS[a].title).join(', ') });

/** Some verbs on some resources of one API group. */
export interface Need {
  verbs: readonly string[];
  /** "" for the core group. */
  group: string;
  /** Plural names, with the subresource after a slash ("rollouts/status"), as RBAC names them. */
  resources: readonly string[];
  /** 'cluster': in every namespace (a ClusterRole); otherwise in the rollout's (the context's) namespace. */
  scope?: 'cluster';
  /** Needed only in this case (said in the table); absent: always needed, and each verb is proven by a test. */
  when?: string;
}

export type RbacRowId = 'tree' | 'events' | 'promote' | 'pause' | 'setImage' | 'undo' | 'apply' | 'logs' | 'controller';

export interface RbacRow {
  id: RbacRowId;
  /** The actions, as the editor and the CLI name them. */
  to: string;
  /** The rollout actions of the catalog this row covers (their titles make `to`). */
  actions?: readonly ActionName[];
  needs: readonly Need[];
  /** What the table adds in words after the verbs. */
  note?: string;
}

const ARGO = 'argoproj.io';
const APPS = 'apps';
const CORE = '';
const WORKLOADS = [
  { verbs: [], group: APPS, resources: ['deployments', 'replicasets'] },
  { verbs: [], group: CORE, resources: ['podtemplates'] },
] as const;
const onWorkload = (verbs: string[], when: string): Need[] => WORKLOADS.map((w) => ({ ...w, verbs, when }));

export const rbacRows: readonly RbacRow[] = [
  {
    id: 'tree',
    to: 'see the tree (`rollouts list`, `rollouts get`)',
    needs: [
      { verbs: ['list', 'watch'], group: ARGO, resources: ['rollouts', 'analysisruns', 'experiments'] },
      { verbs: ['list', 'watch'], group: APPS, resources: ['replicasets'] },
      { verbs: ['list', 'watch'], group: CORE, resources: ['pods', 'services'] },
      {
        verbs: ['create'],
        group: 'authorization.k8s.io',
        resources: ['selfsubjectaccessreviews'],
        scope: 'cluster',
        when: 'no namespace is chosen, to find where you may look (every authenticated user has it)',
      },
      {
        verbs: ['list'],
        group: CORE,
        resources: ['namespaces'],
        scope: 'cluster',
        when: 'no namespace is chosen, to offer your namespaces',
      },
    ],
    note: 'without `list` on rollouts nothing can be shown; another kind missing is a warning row under the context, and the rest works',
  },
  {
    id: 'events',
    to: "see a rollout's Events (the tree's Warning marks, the detail view's Events, `rollouts get`)",
    needs: [{ verbs: ['list', 'watch'], group: CORE, resources: ['events'] }],
    note: 'with the tree row; one watch per namespace, of the Events about Rollouts; without it the Events are missing (said once) and the rest works',
  },
  {
    id: 'promote',
    ...forActions(['promote', 'promoteFull', 'abort', 'retry']),
    needs: [
      { verbs: ['get'], group: ARGO, resources: ['rollouts'] },
      { verbs: ['patch'], group: ARGO, resources: ['rollouts/status'] },
      {
        verbs: ['patch'],
        group: ARGO,
        resources: ['rollouts'],
        when: 'Promote or Promote Full of a rollout paused by a person, or where the CRD has no status subresource',
      },
    ],
  },
  {
    id: 'pause',
    ...forActions(['pause', 'resume', 'restart']),
    needs: [{ verbs: ['get', 'patch'], group: ARGO, resources: ['rollouts'] }],
  },
  {
    id: 'setImage',
    ...forActions(['setImage']),
    needs: [
      { verbs: ['get', 'update'], group: ARGO, resources: ['rollouts'] },
      ...onWorkload(['get', 'update'], 'the rollout has a `workloadRef`: on the kind it names'),
    ],
  },
  {
    id: 'undo',
    ...forActions(['undo']),
    needs: [
      { verbs: ['get', 'patch'], group: ARGO, resources: ['rollouts'] },
      { verbs: ['list'], group: APPS, resources: ['replicasets'] },
      ...onWorkload(['get', 'patch'], 'the rollout has a `workloadRef`: on the kind it names'),
    ],
  },
  {
    id: 'apply',
    to: 'Apply File to Cluster (`rollouts apply`)',
    needs: [
      { verbs: ['get', 'patch'], group: ARGO, resources: ['rollouts'] },
      { verbs: ['get', 'patch'], group: CORE, resources: ['services'] },
    ],
    note: "shown for a file of a Rollout and a Service: `patch` (server-side apply, which also creates) on the kind of each object in the file, and `get` for the editor's preview of what changes (`rollouts apply` needs no `get`); the discovery documents (`/api`, `/apis/...`) are readable by every authenticated user by default",
  },
  {
    id: 'logs',
    to: 'Show Logs (`rollouts logs`)',
    needs: [
      { verbs: ['get'], group: ARGO, resources: ['rollouts'] },
      { verbs: ['list'], group: APPS, resources: ['replicasets'] },
      { verbs: ['list'], group: CORE, resources: ['pods'] },
      { verbs: ['get'], group: CORE, resources: ['pods/log'] },
    ],
    note: "the editor finds the pods in what the tree already watches, so there it needs only `get` on `pods/log` beyond the tree's row",
  },
  {
    id: 'controller',
    to: 'the embedded controller (`rollouts controller`)',
    needs: [
      { verbs: ['list', 'watch', 'patch'], group: ARGO, resources: ['rollouts'] },
      { verbs: ['patch'], group: ARGO, resources: ['rollouts/status'] },
      { verbs: ['list', 'watch'], group: ARGO, resources: ['analysisruns', 'experiments'] },
      { verbs: ['list', 'watch', 'create', 'update'], group: APPS, resources: ['replicasets'] },
      { verbs: ['list', 'watch'], group: CORE, resources: ['pods', 'services'] },
      { verbs: ['get', 'create', 'update'], group: 'coordination.k8s.io', resources: ['leases'] },
      { verbs: ['list'], group: APPS, resources: ['deployments'], scope: 'cluster' },
      { verbs: ['list'], group: CORE, resources: ['pods'], scope: 'cluster' },
      { verbs: ['list'], group: 'coordination.k8s.io', resources: ['leases'], scope: 'cluster' },
      {
        verbs: ['create', 'patch'],
        group: CORE,
        resources: ['events'],
        when: "it records the rollout's Events (without it they are missing; the rest works)",
      },
      { verbs: ['delete'], group: APPS, resources: ['replicasets'], when: 'old ReplicaSets go beyond `revisionHistoryLimit`' },
      {
        verbs: ['patch'],
        group: CORE,
        resources: ['services'],
        when: 'the strategy names Services: canary and stable, active and preview',
      },
      { verbs: ['list', 'watch', 'get'], group: ARGO, resources: ['analysistemplates'], when: 'the rollout runs analysis' },
      { verbs: ['create', 'patch', 'delete'], group: ARGO, resources: ['analysisruns'], when: 'the rollout runs analysis' },
      { verbs: ['patch'], group: ARGO, resources: ['analysisruns/status'], when: 'the rollout runs analysis' },
      {
        verbs: ['get', 'list', 'watch'],
        group: ARGO,
        resources: ['clusteranalysistemplates'],
        scope: 'cluster',
        when: 'the rollout runs a ClusterAnalysisTemplate',
      },
      { verbs: ['get'], group: CORE, resources: ['secrets'], when: 'analysis args take a `secretKeyRef`' },
      { verbs: ['create', 'patch', 'delete'], group: ARGO, resources: ['experiments'], when: 'the rollout has experiment steps' },
      {
        verbs: ['patch'],
        group: ARGO,
        resources: ['experiments/status'],
        when: 'the rollout has experiment steps, or `patch` on `experiments` where the CRD has no status subresource',
      },
      { verbs: ['create', 'delete'], group: CORE, resources: ['services'], when: 'Experiment templates have a `service`' },
      { verbs: ['create'], group: CORE, resources: ['pods/eviction'], when: 'it restarts pods (`restartAt`)' },
      { verbs: ['delete'], group: CORE, resources: ['pods'], when: 'it restarts pods (`restartAt`)' },
      {
        verbs: ['patch'],
        group: CORE,
        resources: ['pods'],
        when: 'the strategy has ephemeral metadata, for the labels and annotations of running pods',
      },
      { verbs: ['list', 'watch'], group: APPS, resources: ['deployments'], when: 'a `workloadRef` names a Deployment' },
      { verbs: ['list', 'watch'], group: CORE, resources: ['podtemplates'], when: 'a `workloadRef` names a PodTemplate' },
      { verbs: ['patch'], group: APPS, resources: ['deployments'], when: 'a `workloadRef` has `scaleDown`' },
      {
        verbs: ['get', 'create', 'patch', 'delete'],
        group: 'split.smi-spec.io',
        resources: ['trafficsplits'],
        when: 'it routes traffic with SMI',
      },
      {
        verbs: ['get', 'create', 'patch', 'delete'],
        group: 'networking.k8s.io',
        resources: ['ingresses'],
        when: 'it routes traffic with NGINX or ALB',
      },
      {
        verbs: ['get', 'patch'],
        group: 'networking.istio.io',
        resources: ['virtualservices', 'destinationrules'],
        when: 'it routes traffic with Istio',
      },
      {
        verbs: ['get', 'patch'],
        group: 'gateway.networking.k8s.io',
        resources: ['httproutes', 'grpcroutes', 'tcproutes', 'tlsroutes'],
        when: 'it routes traffic with the Gateway API, on the routes its plugin config names',
      },
    ],
    note: 'the cluster-wide `list` on deployments, pods and leases is how it checks that Argo\'s own controller is not running (without it, it starts only when told to: `--force`, "Start Anyway"); `update` on leases renews its Lease',
  },
];

export function rbacRow(id: RbacRowId): RbacRow {
  const row = rbacRows.find((r) => r.id === id);
  if (!row) throw new Error(`no RBAC row "${id}"`);
  return row;
}

/** The row of an action of src/cluster/actions.ts, by its kind. */
export function rbacRowOfAction(kind: ActionName): RbacRow {
  const row = rbacRows.find((r) => r.actions?.includes(kind));
  if (!row) throw new Error(`no RBAC row covers the action "${kind}"`); // test/cluster/rbac-doc.test.ts checks every action has one
  return row;
}

/** A Role's rule, as rbac.authorization.k8s.io/v1 writes it. */
export interface PolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
}

/** The rules a Role (scope namespace) or ClusterRole (scope cluster) needs for what is always needed by a row. */
export function rulesOf(needs: readonly Need[], scope: 'namespace' | 'cluster'): PolicyRule[] {
  return needs
    .filter((n) => n.when === undefined && (n.scope ?? 'namespace') === scope)
    .map((n) => ({ verbs: [...n.verbs], apiGroups: [n.group], resources: [...n.resources] }));
}

/** One verb on one resource: the unit a test takes away, and a 403 names. */
export interface Permission {
  verb: string;
  group: string;
  resource: string;
  scope: 'namespace' | 'cluster';
}

/** Every single permission a row always needs. */
export function permissionsOf(row: RbacRow): Permission[] {
  return row.needs
    .filter((n) => n.when === undefined)
    .flatMap((n) =>
      n.resources.flatMap((resource) =>
        n.verbs.map((verb) => ({ verb, group: n.group, resource, scope: n.scope ?? ('namespace' as const) })),
      ),
    );
}

/** The needs of a row with one permission taken away. */
export function without(needs: readonly Need[], p: Permission): Need[] {
  return needs.flatMap((n) => {
    if (
      n.when !== undefined ||
      n.group !== p.group ||
      (n.scope ?? 'namespace') !== p.scope ||
      !n.resources.includes(p.resource) ||
      !n.verbs.includes(p.verb)
    )
      return [n];
    const rest: Need[] = [];
    const otherResources = n.resources.filter((r) => r !== p.resource);
    if (otherResources.length) rest.push({ ...n, resources: otherResources });
    const otherVerbs = n.verbs.filter((v) => v !== p.verb);
    if (otherVerbs.length) rest.push({ ...n, resources: [p.resource], verbs: otherVerbs });
    return rest;
  });
}

const code = (s: string) => `\`${s}\``;
const resourceName = (group: string, resource: string) => (group ? `${resource.replace(/^([^/]+)/, `$1.${group}`)}` : resource);

/** One need in words: "`get`, `patch` on `rollouts.argoproj.io`" and where / when. */
export function needText(n: Need): string {
  const on = `${n.verbs.map(code).join(', ')} on ${n.resources.map((r) => code(resourceName(n.group, r))).join(', ')}`;
  const where = n.scope === 'cluster' ? ' in every namespace' : '';
  return `${on}${where}${n.when ? `, when ${n.when}` : ''}`;
}

/** The table of docs/rbac.md. */
export function rbacTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    '| to | always needs | also needs |',
    '| --- | --- | --- |',
    ...rbacRows.map((row) => {
      const always = row.needs
        .filter((n) => n.when === undefined)
        .map(needText)
        .join('; ');
      const also = row.needs
        .filter((n) => n.when !== undefined)
        .map(needText)
        .join('; ');
      return `| ${cell(row.to)} | ${cell(always + (row.note ? `. Note: ${row.note}` : ''))} | ${cell(also || '—')} |`;
    }),
  ].join('\n');
}

/**
 * The permission a 403 says is missing, from kube-apiserver's sentence (`User "u" cannot patch
 * resource "rollouts/status" in API group "argoproj.io" in the namespace "shop"`). Undefined when
 * the sentence is not that one.
 */
export function deniedPermission(message: string): (Permission & { namespace?: string }) | undefined {
  const refused = forbiddenRequest(message);
  return refused && { ...refused, scope: refused.namespace ? 'namespace' : 'cluster' };
}

/** "you may not patch `rollouts.argoproj.io/status` in namespace "shop"". */
export function missingText(p: Permission & { namespace?: string }): string {
  return `you may not ${p.verb} ${code(resourceName(p.group, p.resource))} ${p.namespace ? `in namespace "${p.namespace}"` : 'in every namespace'}`;
}

/** The API server's 403 sentence followed by what it means in our words (unchanged when it is not kube-apiserver's sentence). */
export function withMissing(message: string): string {
  const p = deniedPermission(message);
  return p ? `${message}; ${missingText(p)}` : message;
}

/**
 * A 403 in words: which verb on which resource in which namespace is missing and, given the row
 * of what was being done, everything that needs, so one request to an admin is enough.
 */
export function forbiddenSentence(message: string, row?: RbacRow): string {
  const p = deniedPermission(message);
  const needs = row
    ? `${row.to.replace(/ \(`.*$/, '')} needs ${row.needs
        .filter((n) => n.when === undefined)
        .map(needText)
        .join('; ')}`
    : undefined;
  const ours = [p && missingText(p), needs].filter(Boolean);
  return ours.length ? `${ours.join('; ')}; the API server said: ${message}` : message;
}
