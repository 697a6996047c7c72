/**
 * Server-side printing: the `Table` kubectl asks for (`Accept: ...;as=Table;g=meta.k8s.io`),
 * with the columns `kubectl get` shows for each built-in kind and a CRD's printer columns.
 */
import { formatLabels, getOwn } from '../kube';
import type { PrinterColumn, ResourceType } from './resources';

interface Column {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  description: string;
  cell(obj: any, now: number): unknown;
}

/** Kubernetes' short human durations: 45s, 3m20s, 5h, 12d... */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 192) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 730) return `${d}d`;
  const y = Math.floor(d / 365);
  if (d < 2920) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}

const age = (t: string | undefined, now: number): string => (t ? humanDuration(now - Date.parse(t)) : '<unknown>');

const nameColumn: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  cell: (o) => o.metadata.name,
};
const ageColumn: Column = {
  name: 'Age',
  type: 'string',
  description: 'Time since the object was created.',
  cell: (o, now) => age(o.metadata.creationTimestamp, now),
};
const col = (name: string, cell: Column['cell'], extra: Partial<Column> = {}): Column => ({
  name,
  type: 'string',
  description: name,
  cell,
  ...extra,
});
const int = (v: unknown) => (typeof v === 'number' ? v : 0);
const wide = { priority: 1 };

function podStatus(p: any): string {
  if (p.metadata.deletionTimestamp) return 'Terminating';
  for (const c of p.status?.containerStatuses ?? []) if (c.state?.waiting?.reason) return c.state.waiting.reason;
  return p.status?.phase ?? 'Pending';
}

function servicePorts(s: any): string {
  const ports = s.spec?.ports ?? [];
  if (!ports.length) return '<none>';
  return ports.map((p: any) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}

const selectorText = (sel: Record<string, string> | undefined) => formatLabels(sel) || '<none>';

const builtInColumns: Record<string, Column[]> = {
  '/pods': [
    nameColumn,
    col('Ready', (p) => `${(p.status?.containerStatuses ?? []).filter((c: any) => c.ready).length}/${(p.spec?.containers ?? []).length}`),
    col('Status', podStatus),
    col('Restarts', (p) => (p.status?.containerStatuses ?? []).reduce((n: number, c: any) => n + int(c.restartCount), 0), {
      type: 'string',
    }),
    ageColumn,
    col('IP', (p) => p.status?.podIP ?? '<none>', wide),
    col('Node', (p) => p.spec?.nodeName ?? '<none>', wide),
  ],
  '/services': [
    nameColumn,
    col('Type', (s) => s.spec?.type ?? 'ClusterIP'),
    col('Cluster-IP', (s) => s.spec?.clusterIP ?? '<none>'),
    col('External-IP', (s) => (s.spec?.externalIPs ?? []).join(',') || '<none>'),
    col('Port(s)', servicePorts),
    ageColumn,
    col('Selector', (s) => selectorText(s.spec?.selector), wide),
  ],
  '/endpoints': [
    nameColumn,
    col('Endpoints', (e) => {
      const list = (e.subsets ?? []).flatMap((s: any) =>
        (s.addresses ?? []).flatMap((a: any) => (s.ports ?? [{}]).map((p: any) => (p.port ? `${a.ip}:${p.port}` : a.ip))),
      );
      return list.length ? list.slice(0, 3).join(',') + (list.length > 3 ? ` + ${list.length - 3} more...` : '') : '<none>';
    }),
    ageColumn,
  ],
  'discovery.k8s.io/endpointslices': [
    nameColumn,
    col('AddressType', (e) => e.addressType ?? ''),
    col('Ports', (e) => (e.ports ?? []).map((p: any) => p.port).join(',') || '<unset>'),
    col(
      'Endpoints',
      (e) =>
        (e.endpoints ?? [])
          .flatMap((x: any) => x.addresses ?? [])
          .slice(0, 3)
          .join(',') || '<unset>',
    ),
    ageColumn,
  ],
  '/nodes': [
    nameColumn,
    col('Status', (n) => ((n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True') ? 'Ready' : 'NotReady')),
    col(
      'Roles',
      (n) =>
        Object.keys(n.metadata.labels ?? {})
          .filter((k) => k.startsWith('node-role.kubernetes.io/'))
          .map((k) => k.split('/')[1])
          .join(',') || '<none>',
    ),
    ageColumn,
    col('Version', (n) => n.status?.nodeInfo?.kubeletVersion ?? ''),
  ],
  '/namespaces': [nameColumn, col('Status', (n) => n.status?.phase ?? 'Active'), ageColumn],
  '/configmaps': [
    nameColumn,
    col('Data', (c) => Object.keys(c.data ?? {}).length + Object.keys(c.binaryData ?? {}).length, { type: 'integer' }),
    ageColumn,
  ],
  '/secrets': [
    nameColumn,
    col('Type', (s) => s.type ?? 'Opaque'),
    col('Data', (s) => Object.keys(s.data ?? {}).length, { type: 'integer' }),
    ageColumn,
  ],
  '/events': [
    col('Last Seen', (e, now) => age(e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp, now)),
    col('Type', (e) => e.type ?? ''),
    col('Reason', (e) => e.reason ?? ''),
    col('Object', (e) => `${String(e.involvedObject?.kind ?? '').toLowerCase()}/${e.involvedObject?.name ?? ''}`),
    col('Message', (e) => e.message ?? ''),
  ],
  'apps/replicasets': [
    nameColumn,
    col('Desired', (r) => int(r.spec?.replicas), { type: 'integer' }),
    col('Current', (r) => int(r.status?.replicas), { type: 'integer' }),
    col('Ready', (r) => int(r.status?.readyReplicas), { type: 'integer' }),
    ageColumn,
    col('Containers', (r) => (r.spec?.template?.spec?.containers ?? []).map((c: any) => c.name).join(','), wide),
    col('Images', (r) => (r.spec?.template?.spec?.containers ?? []).map((c: any) => c.image).join(','), wide),
    col('Selector', (r) => selectorText(r.spec?.selector?.matchLabels), wide),
  ],
  'apps/deployments': [
    nameColumn,
    col('Ready', (d) => `${int(d.status?.readyReplicas)}/${int(d.spec?.replicas)}`),
    col('Up-to-date', (d) => int(d.status?.updatedReplicas), { type: 'integer' }),
    col('Available', (d) => int(d.status?.availableReplicas), { type: 'integer' }),
    ageColumn,
  ],
  'networking.k8s.io/ingresses': [
    nameColumn,
    col('Class', (i) => i.spec?.ingressClassName ?? '<none>'),
    col('Hosts', (i) => (i.spec?.rules ?? []).map((r: any) => r.host || '*').join(',') || '*'),
    col('Address', (i) =>
      (i.status?.loadBalancer?.ingress ?? [])
        .map((a: any) => a.ip || a.hostname)
        .filter(Boolean)
        .join(','),
    ),
    col('Ports', (i) => ((i.spec?.tls ?? []).length ? '80, 443' : '80')),
    ageColumn,
  ],
  'coordination.k8s.io/leases': [nameColumn, col('Holder', (l) => l.spec?.holderIdentity ?? ''), ageColumn],
  'apiextensions.k8s.io/customresourcedefinitions': [
    nameColumn,
    col('Created At', (c) => c.metadata.creationTimestamp ?? '', { type: 'date' }),
  ],
};

/** Reads a simple JSONPath such as `.status.replicas` or `.spec.containers[0].image`. */
function readPath(obj: any, path: string): unknown {
  const parts = path
    .replace(/^\{?\.?/, '')
    .replace(/\}$/, '')
    .split(/\.|\[(\d+)\]/)
    .filter((p) => p !== undefined && p !== '');
  let v = obj;
  for (const p of parts) v = getOwn(v, p); // own fields only: `.constructor` names a field, not Object
  return v;
}

function printerColumns(columns: PrinterColumn[]): Column[] {
  return [
    nameColumn,
    ...columns.map((c) => ({
      name: c.name,
      type: c.type === 'date' ? 'string' : c.type,
      priority: c.priority ?? 0,
      description: c.description ?? c.name,
      cell: (o: any, now: number) => {
        const v = readPath(o, c.jsonPath);
        if (c.type === 'date') return typeof v === 'string' ? age(v, now) : '<unknown>';
        if (v === undefined || v === null) return null;
        return typeof v === 'object' ? JSON.stringify(v) : v;
      },
    })),
  ];
}

function columnsFor(t: ResourceType): Column[] {
  if (t.builtIn) return builtInColumns[`${t.group}/${t.plural}`] ?? [nameColumn, ageColumn];
  return t.printerColumns?.length ? printerColumns(t.printerColumns) : [nameColumn, ageColumn];
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function toTable(
  t: ResourceType,
  objects: readonly any[],
  opts: { now: number; includeObject: IncludeObject; listMeta: Record<string, unknown>; withColumns?: boolean },
): Record<string, unknown> {
  const columns = columnsFor(t);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: opts.listMeta,
    columnDefinitions:
      opts.withColumns === false
        ? []
        : columns.map((c) => ({
            name: c.name,
            type: c.type,
            format: c.format ?? '',
            description: c.description,
            priority: c.priority ?? 0,
          })),
    rows: objects.map((o) => ({
      cells: columns.map((c) => {
        const v = c.cell(o, opts.now);
        return v === undefined ? null : v;
      }),
      object:
        opts.includeObject === 'Object'
          ? o
          : opts.includeObject === 'None'
            ? undefined
            : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
    })),
  };
}
