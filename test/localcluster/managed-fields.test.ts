// Field ownership (metadata.managedFields) and server-side apply: the pure rules, then the API
// server's handling of fieldManager, force, the User-Agent, the status subresource and restarts.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyConfiguration,
  checkWriteOptions,
  compareObjects,
  conflictError,
  fieldPath,
  fieldsOf,
  fieldsV1ToSet,
  managerFromUserAgent,
  ownable,
  pathString,
  lastAppliedAnnotation,
  setToFieldsV1,
  syncLastApplied,
  updateManagedFields,
  type ApplyResult,
  type ManagedFieldsEntry,
  type Writer,
} from '../../src/localcluster/managed-fields';
import { builtInListTypes, schemaListTypes } from '../../src/localcluster/list-types';
import { createManualClock, startLocalCluster } from '../../src/localcluster';
import { awaitEvent, isReady, raw, startHarness, type Harness } from './helpers';

const t0 = '2026-01-01T00:00:00Z';
const t1 = '2026-01-01T00:01:00Z';
const t2 = '2026-01-01T00:02:00Z';

const writer = (manager: string, extra: Partial<Writer> = {}): Writer => ({
  manager,
  apiVersion: 'v1',
  scope: 'object',
  builtIn: true,
  ...extra,
});
const cm = (data: Record<string, string>, labels?: Record<string, string>): Record<string, any> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'default', ...(labels ? { labels } : {}) },
  data,
});
/** The stored object as the API would keep it: the object with its managedFields. */
const stored = (obj: Record<string, any>, managedFields: ManagedFieldsEntry[] | undefined) => ({
  ...obj,
  metadata: { ...obj.metadata, ...(managedFields ? { managedFields } : {}) },
});
const entry = (mf: ManagedFieldsEntry[] | undefined, manager: string) => mf?.find((e) => e.manager === manager);
function applied(r: ApplyResult) {
  assert.ok(
    r.ok,
    `expected the apply to succeed, got conflicts: ${r.ok ? '' : r.conflicts.map((c) => `${c.owner.manager} ${pathString(c.path)}`).join(', ')}`,
  );
  return r;
}

describe('managed fields: the fieldsV1 format', () => {
  it('reads and writes the server\'s tree: "." for a map owned itself, {} for a leaf, "." first and fields in order', () => {
    const tree = {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
        'f:replicas': {},
      },
    };
    const set = fieldsV1ToSet(tree)!;
    assert.ok(set.has(fieldPath('metadata', 'labels')));
    assert.ok(set.has(fieldPath('metadata', 'labels', 'app')));
    assert.ok(!set.has(fieldPath('metadata')), 'a map with fields and no "." is not owned itself');
    assert.equal(
      JSON.stringify(setToFieldsV1(set)),
      JSON.stringify({
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': {
          'f:replicas': {},
          'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
        },
      }),
    );
  });

  it('refuses what is not a fieldsV1 tree', () => {
    assert.equal(fieldsV1ToSet({ 'f:a': 'x' }), undefined);
    assert.equal(fieldsV1ToSet([]), undefined);
  });

  it('prints paths as the API server does in conflicts', () => {
    assert.equal(pathString(fieldPath('data', 'a')), '.data.a');
    assert.equal(pathString(fieldPath('metadata', 'labels', 'app.kubernetes.io/name')), '.metadata.labels.app.kubernetes.io/name');
  });

  it("an applied configuration owns its leaves and lists whole, not its maps, and never the server's metadata", () => {
    const set = ownable(fieldsOf({ ...cm({ a: '1' }, { app: 'x' }), spec: { ports: [{ port: 80 }], selector: {} } }), 'object');
    assert.deepEqual(setToFieldsV1(set), {
      'f:data': { 'f:a': {} },
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': { 'f:ports': {} },
    });
  });

  it('a comparison names leaves added, changed and removed, and maps that appear or go away', () => {
    const c = compareObjects({ data: { a: '1', b: '2' }, spec: { x: 1 } }, { data: { a: '9' }, spec: { x: 1 }, extra: { y: 2 } });
    assert.deepEqual([...c.modified], [fieldPath('data', 'a')]);
    assert.deepEqual([...c.removed], [fieldPath('data', 'b')]);
    assert.deepEqual(new Set(c.added), new Set([fieldPath('extra'), fieldPath('extra', 'y')]));
  });
});

describe('managed fields: create, update and patch record an Update entry', () => {
  it('a create owns every field it set; the maps it created are marked "." (a ConfigMap\'s data, labels)', () => {
    const obj = cm({ a: '1', b: '2' }, { app: 'x' });
    const mf = updateManagedFields({ live: undefined, next: obj, requested: undefined, writer: writer('kubectl-create'), now: t0 });
    assert.deepEqual(mf, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: t0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ]);
  });

  it('a built-in kind\'s spec exists before the create (no "."); a custom resource\'s does not', () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { selector: { app: 'a' } } };
    const builtIn = updateManagedFields({ live: undefined, next: svc, requested: undefined, writer: writer('m'), now: t0 })!;
    assert.deepEqual(builtIn[0]!.fieldsV1, { 'f:spec': { 'f:selector': { '.': {}, 'f:app': {} } } });
    const custom = updateManagedFields({
      live: undefined,
      next: { ...svc, apiVersion: 'example.com/v1', kind: 'Thing' },
      requested: undefined,
      writer: writer('m', { builtIn: false, apiVersion: 'example.com/v1' }),
      now: t0,
    })!;
    assert.deepEqual(custom[0]!.fieldsV1, { 'f:spec': { '.': {}, 'f:selector': { '.': {}, 'f:app': {} } } });
  });

  it('another manager that changes a field takes it; a field removed leaves every entry; an empty entry disappears', () => {
    const v1 = cm({ a: '1', b: '2' });
    const mf1 = updateManagedFields({ live: undefined, next: v1, requested: undefined, writer: writer('creator'), now: t0 });
    const v2 = cm({ a: 'changed', b: '2' });
    const mf2 = updateManagedFields({ live: stored(v1, mf1), next: v2, requested: undefined, writer: writer('editor'), now: t1 })!;
    assert.deepEqual(entry(mf2, 'creator')!.fieldsV1, { 'f:data': { '.': {}, 'f:b': {} } });
    assert.deepEqual(entry(mf2, 'editor')!.fieldsV1, { 'f:data': { 'f:a': {} } });
    assert.equal(entry(mf2, 'creator')!.time, t0, 'an entry that only lost fields keeps its time');
    assert.equal(entry(mf2, 'editor')!.time, t1);
    // A third writer removes data.a: the editor owned nothing else, so its entry goes.
    const v3 = cm({ b: '2' });
    const mf3 = updateManagedFields({ live: stored(v2, mf2), next: v3, requested: undefined, writer: writer('remover'), now: t2 })!;
    assert.deepEqual(
      mf3.map((e) => e.manager),
      ['creator'],
    );
  });

  it('a write that changes nothing changes no entry, not even its time', () => {
    const v1 = cm({ a: '1' });
    const mf1 = updateManagedFields({ live: undefined, next: v1, requested: undefined, writer: writer('creator'), now: t0 });
    const mf2 = updateManagedFields({ live: stored(v1, mf1), next: v1, requested: undefined, writer: writer('other'), now: t1 });
    assert.deepEqual(mf2, mf1);
  });

  it('the managedFields a request sends replace the live ones; [{}] clears them, and updates do not start them again', () => {
    const v1 = cm({ a: '1' });
    const mf1 = updateManagedFields({ live: undefined, next: v1, requested: undefined, writer: writer('creator'), now: t0 })!;
    const sent = [{ ...mf1[0]!, manager: 'renamed' }];
    assert.deepEqual(
      updateManagedFields({ live: stored(v1, mf1), next: v1, requested: sent, writer: writer('x'), now: t1 })!.map((e) => e.manager),
      ['renamed'],
    );
    assert.equal(
      updateManagedFields({ live: stored(v1, mf1), next: cm({ a: '2' }), requested: [{}], writer: writer('x'), now: t1 }),
      undefined,
    );
    assert.equal(updateManagedFields({ live: v1, next: cm({ a: '3' }), requested: undefined, writer: writer('x'), now: t2 }), undefined);
  });

  it('beyond ten Update entries, the oldest are merged into "ancient-changes"', () => {
    let live: Record<string, any> = cm({});
    let mf = updateManagedFields({ live: undefined, next: live, requested: undefined, writer: writer('m00'), now: t0 });
    for (let i = 1; i <= 11; i++) {
      const next = cm({ ...live.data, [`k${i}`]: 'v' });
      mf = updateManagedFields({
        live: stored(live, mf),
        next,
        requested: undefined,
        writer: writer(`m${String(i).padStart(2, '0')}`),
        now: `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`,
      });
      live = next;
    }
    assert.equal(mf!.length, 10);
    const ancient = entry(mf, 'ancient-changes')!;
    assert.deepEqual(
      ancient.fieldsV1,
      { 'f:data': { '.': {}, 'f:k1': {}, 'f:k2': {} } },
      'm01 (which created data) and m02, the oldest with fields left',
    );
    assert.equal(ancient.time, '2026-01-01T00:00:02Z');
    assert.deepEqual(mf!.map((e) => e.manager).slice(1), ['m03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm10', 'm11']);
  });

  it('a write through /status is recorded with subresource "status" and owns status only', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const mf1 = updateManagedFields({
      live: undefined,
      next: pod,
      requested: undefined,
      writer: writer('kube-controller-manager', { scope: 'main' }),
      now: t0,
    });
    const running = { ...pod, status: { phase: 'Running' } };
    const mf2 = updateManagedFields({
      live: stored(pod, mf1),
      next: running,
      requested: undefined,
      writer: writer('kubelet', { scope: 'status', subresource: 'status' }),
      now: t1,
    })!;
    const kubelet = entry(mf2, 'kubelet')!;
    assert.equal(kubelet.subresource, 'status');
    assert.deepEqual(kubelet.fieldsV1, { 'f:status': { '.': {}, 'f:phase': {} } });
    assert.deepEqual(entry(mf2, 'kube-controller-manager')!.fieldsV1, { 'f:spec': { 'f:containers': {} } });
  });
});

describe('managed fields: server-side apply', () => {
  const apply = (
    live: Record<string, any> | undefined,
    config: Record<string, any>,
    manager: string,
    opts: { force?: boolean; now?: string } = {},
  ) => applyConfiguration({ live, config, writer: writer(manager), force: opts.force ?? false, now: opts.now ?? t1 });

  it("the applied configuration's fields become the manager's Apply entry", () => {
    const r = applied(apply(undefined, cm({ a: '1', b: '2' }, { a: '1' }), 'kubectl', { now: t0 }));
    assert.deepEqual(r.managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: t0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } },
      },
    ]);
    assert.deepEqual(r.object.data, { a: '1', b: '2' });
  });

  it('a field the manager no longer applies is removed, data and label alike', () => {
    const first = applied(apply(undefined, cm({ a: '1', b: '2' }, { a: '1', b: '2' }), 'kubectl', { now: t0 }));
    const second = applied(apply(first.object, cm({ a: '1' }, { a: '1' }), 'kubectl'));
    assert.deepEqual(second.object.data, { a: '1' });
    assert.deepEqual(second.object.metadata.labels, { a: '1' });
    assert.deepEqual(entry(second.managedFields, 'kubectl')!.fieldsV1, {
      'f:data': { 'f:a': {} },
      'f:metadata': { 'f:labels': { 'f:a': {} } },
    });
    // Applying none of them removes the maps they leave empty.
    const third = applied(apply(second.object, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'kubectl'));
    assert.equal(third.object.data, undefined);
    assert.equal(third.object.metadata.labels, undefined);
    assert.equal(third.object.metadata.name, 'x');
  });

  it('a field the manager no longer applies stays when another manager owns it too', () => {
    const first = applied(apply(undefined, cm({ a: '1', b: '2' }), 'kubectl', { now: t0 }));
    const shared = applied(apply(first.object, cm({ b: '2' }), 'other')); // the same value: shared, no conflict
    assert.deepEqual(entry(shared.managedFields, 'other')!.fieldsV1, { 'f:data': { 'f:b': {} } });
    const second = applied(apply(shared.object, cm({ a: '1' }), 'kubectl'));
    assert.deepEqual(second.object.data, { a: '1', b: '2' });
  });

  it('changing a field another manager owns is a conflict, named as kubectl prints it', () => {
    const first = applied(apply(undefined, cm({ a: '1', b: '2' }), 'kubectl', { now: t0 }));
    const r = apply(first.object, cm({ a: 'changed' }), 'other');
    assert.ok(!r.ok);
    const err = conflictError(r.conflicts);
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl": .data.a');
    assert.deepEqual(err.details!.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.data.a' }]);
  });

  it('several conflicts are listed by manager; an Update owner is named with its API version', () => {
    const created = cm({ a: '1', b: '2' });
    const mf = updateManagedFields({ live: undefined, next: created, requested: undefined, writer: writer('kubectl-create'), now: t0 });
    const r = apply(stored(created, mf), cm({ a: '9', b: '9' }), 'kubectl');
    assert.ok(!r.ok);
    assert.equal(
      conflictError(r.conflicts).message,
      'Apply failed with 2 conflicts: conflicts with "kubectl-create" using v1:\n- .data.a\n- .data.b',
    );
  });

  it('force takes the conflicting fields over', () => {
    const first = applied(apply(undefined, cm({ a: '1', b: '2' }), 'kubectl', { now: t0 }));
    const r = applied(apply(first.object, cm({ a: 'changed' }), 'other', { force: true }));
    assert.equal(r.object.data.a, 'changed');
    assert.deepEqual(entry(r.managedFields, 'kubectl')!.fieldsV1, { 'f:data': { 'f:b': {} } });
    assert.deepEqual(entry(r.managedFields, 'other')!.fieldsV1, { 'f:data': { 'f:a': {} } });
  });

  it('an object that has no managedFields gives its fields to before-first-apply on its first apply', () => {
    const r = apply(cm({ a: '1' }), cm({ a: '2' }), 'kubectl');
    assert.ok(!r.ok);
    assert.equal(conflictError(r.conflicts).message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
  });

  it('kubectl may take over what its client-side apply annotation last set, while the value is unchanged', () => {
    const annotated = (data: Record<string, string>) => ({
      ...cm(data),
      metadata: { ...cm(data).metadata, annotations: { [lastAppliedAnnotation]: JSON.stringify(cm({ a: '1' })) } },
    });
    const live = annotated({ a: '1' });
    const mf = updateManagedFields({
      live: undefined,
      next: live,
      requested: undefined,
      writer: writer('kubectl-client-side-apply'),
      now: t0,
    });
    assert.ok(applied(apply(stored(live, mf), cm({ a: '2' }), 'kubectl')).object.data.a === '2');
    assert.ok(!apply(stored(live, mf), cm({ a: '2' }), 'someone-else').ok, 'only kubectl gets the allowance');
    const edited = annotated({ a: 'edited' }); // the value moved on since: the annotation no longer vouches for it
    const mf2 = updateManagedFields({
      live: undefined,
      next: edited,
      requested: undefined,
      writer: writer('kubectl-client-side-apply'),
      now: t0,
    });
    assert.ok(!apply(stored(edited, mf2), cm({ a: '2' }), 'kubectl').ok);
  });

  it("kubectl's server-side apply rewrites client-side apply's annotation to what it applied; others leave it", () => {
    const obj = {
      ...cm({ a: '1' }),
      metadata: { ...cm({}).metadata, annotations: { [lastAppliedAnnotation]: '{"old":true}', other: 'x' } },
    };
    const config = { ...cm({ b: '2' }), metadata: { name: 'x', annotations: { [lastAppliedAnnotation]: 'ignored' } } };
    const byOther = structuredClone(obj);
    syncLastApplied(byOther, config, 'helm');
    assert.equal(byOther.metadata.annotations[lastAppliedAnnotation], '{"old":true}');
    syncLastApplied(obj, config, 'kubectl');
    assert.equal(
      obj.metadata.annotations[lastAppliedAnnotation],
      '{"apiVersion":"v1","data":{"b":"2"},"kind":"ConfigMap","metadata":{"name":"x"}}',
    );
    assert.equal(obj.metadata.annotations.other, 'x');
  });

  it('lists are atomic: an applied list replaces the live one whole', () => {
    const svc = (ports: unknown[]) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports } });
    const first = applied(apply(undefined, svc([{ port: 80 }, { port: 81 }]), 'kubectl'));
    const second = applied(apply(first.object, svc([{ port: 90 }]), 'kubectl'));
    assert.deepEqual(second.object.spec.ports, [{ port: 90 }]);
  });
});

describe('managed fields: associative lists (x-kubernetes-list-type and list-map-keys)', () => {
  const typed = (manager: string, kind: string) => writer(manager, { listTypes: builtInListTypes(kind) });
  const apply = (live: Record<string, any> | undefined, config: Record<string, any>, manager: string, opts: { force?: boolean } = {}) =>
    applyConfiguration({ live, config, writer: typed(manager, config.kind), force: opts.force ?? false, now: t1 });
  const service = (ports: unknown[]) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's', namespace: 'default' },
    spec: { selector: { app: 'a' }, ports },
  });
  const deployment = (containers: unknown[]) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers } } },
  });
  /** As a loader creates it (an Update), then as the server stores it: protocol defaulted. */
  const createdService = () => {
    const created = service([{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }]);
    return stored(
      created,
      updateManagedFields({ live: undefined, next: created, requested: undefined, writer: typed('rollouts-demo', 'Service'), now: t0 }),
    );
  };

  it("a Service's ports are owned item by item, keyed by port and the defaulted protocol", () => {
    const mf = createdService().metadata.managedFields;
    assert.deepEqual(entry(mf, 'rollouts-demo')!.fieldsV1['f:spec']['f:ports'], {
      'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} },
    });
  });

  it('applying the same ports without the defaulted protocol is no conflict (the demo files applied over the demo loader)', () => {
    const r = applied(apply(createdService(), service([{ name: 'http', port: 80, targetPort: 'http' }]), 'argo-rollouts-vscode'));
    assert.deepEqual(r.object.spec.ports, [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }]);
    assert.deepEqual(entry(r.managedFields, 'argo-rollouts-vscode')!.fieldsV1['f:spec']['f:ports'], {
      'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:targetPort': {} },
    });
  });

  it('changing a field of an item another manager owns is a conflict at that field, printed as kube-apiserver prints keys', () => {
    const r = apply(createdService(), service([{ name: 'http', port: 80, targetPort: 8080 }]), 'argo-rollouts-vscode');
    assert.ok(!r.ok);
    assert.equal(
      conflictError(r.conflicts).message,
      'Apply failed with 1 conflict: conflict with "rollouts-demo" using v1: .spec.ports[port=80,protocol="TCP"].targetPort',
    );
  });

  it("containers merge by name: another manager's container stays, and each owns its own", () => {
    const first = applied(apply(undefined, deployment([{ name: 'app', image: 'app:1' }]), 'kubectl'));
    const injected = applied(apply(first.object, deployment([{ name: 'sidecar', image: 'proxy:1' }]), 'injector'));
    assert.deepEqual(
      injected.object.spec.template.spec.containers.map((c: any) => c.name),
      ['app', 'sidecar'],
    );
    const updated = applied(apply(injected.object, deployment([{ name: 'app', image: 'app:2' }]), 'kubectl'));
    assert.deepEqual(updated.object.spec.template.spec.containers, [
      { name: 'app', image: 'app:2' },
      { name: 'sidecar', image: 'proxy:1' },
    ]);
    const containers = (m: string) =>
      Object.keys(entry(updated.managedFields, m)!.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']);
    assert.deepEqual([containers('kubectl'), containers('injector')], [['k:{"name":"app"}'], ['k:{"name":"sidecar"}']]);
  });

  it('an item the manager no longer applies is removed, unless another manager owns it', () => {
    const first = applied(
      apply(
        undefined,
        deployment([
          { name: 'app', image: 'a' },
          { name: 'debug', image: 'b' },
        ]),
        'kubectl',
      ),
    );
    const second = applied(apply(first.object, deployment([{ name: 'app', image: 'a' }]), 'kubectl'));
    assert.deepEqual(
      second.object.spec.template.spec.containers.map((c: any) => c.name),
      ['app'],
    );
    assert.deepEqual(
      first.object.spec.template.spec.containers.map((c: any) => c.name),
      ['app', 'debug'],
      'the live object is not changed',
    );
    const shared = applied(apply(first.object, deployment([{ name: 'debug', image: 'b' }]), 'other'));
    const kept = applied(apply(shared.object, deployment([{ name: 'app', image: 'a' }]), 'kubectl'));
    assert.deepEqual(
      kept.object.spec.template.spec.containers.map((c: any) => c.name),
      ['app', 'debug'],
    );
  });

  it("a container's ports are keyed by containerPort and protocol, env by name", () => {
    const r = applied(
      apply(
        undefined,
        deployment([{ name: 'app', image: 'a', ports: [{ containerPort: 8080 }], env: [{ name: 'A', value: '1' }] }]),
        'kubectl',
      ),
    );
    const app = entry(r.managedFields, 'kubectl')!.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"app"}'];
    assert.deepEqual(Object.keys(app['f:ports']), ['k:{"containerPort":8080,"protocol":"TCP"}']);
    assert.deepEqual(Object.keys(app['f:env']), ['k:{"name":"A"}']);
  });

  it('finalizers are a set: each value owned on its own', () => {
    const obj = { ...cm({ a: '1' }), metadata: { ...cm({}).metadata, finalizers: ['x/a', 'x/b'] } };
    assert.deepEqual(
      Object.keys(entry(applied(apply(undefined, obj, 'kubectl')).managedFields, 'kubectl')!.fieldsV1['f:metadata']['f:finalizers']),
      ['v:"x/a"', 'v:"x/b"'],
    );
  });

  it("a custom resource's lists follow its CRD's schema: map lists by their keys, others atomic", () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            routes: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', properties: { name: { type: 'string' }, weight: { type: 'integer' } } },
            },
            hosts: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    };
    const types = schemaListTypes(schema);
    assert.deepEqual(types(['spec', 'routes']), { type: 'map', keys: ['name'] });
    assert.deepEqual(types(['spec', 'hosts']), { type: 'atomic' });
    const cr = (routes: unknown[]) => ({
      apiVersion: 'example.com/v1',
      kind: 'Route',
      metadata: { name: 'r' },
      spec: { routes, hosts: ['a'] },
    });
    const w = (m: string): Writer => ({ ...writer(m), builtIn: false, listTypes: types });
    const first = applied(
      applyConfiguration({ live: undefined, config: cr([{ name: 'stable', weight: 100 }]), writer: w('argo'), force: false, now: t1 }),
    );
    const second = applied(
      applyConfiguration({ live: first.object, config: cr([{ name: 'canary', weight: 0 }]), writer: w('other'), force: false, now: t1 }),
    );
    assert.deepEqual(
      second.object.spec.routes.map((x: any) => x.name),
      ['stable', 'canary'],
    );
  });

  it('items without their keys, or with duplicate keys, leave the list atomic', () => {
    const r = applied(apply(undefined, service([{ port: 80 }, { port: 80 }]), 'kubectl'));
    assert.deepEqual(entry(r.managedFields, 'kubectl')!.fieldsV1['f:spec']['f:ports'], {});
    assert.deepEqual(
      compareObjects({ spec: { ports: [{ name: 'x' }] } }, { spec: { ports: [{ name: 'y' }] } }, builtInListTypes('Service')).modified,
      new Set([fieldPath('spec', 'ports')]),
    );
  });
});

describe('managed fields: request options', () => {
  it('an apply needs a fieldManager: 422 PatchOptions, as the API server answers', () => {
    const err = checkWriteOptions({ fieldManager: '', force: null, apply: true, kind: 'PatchOptions' })!;
    assert.equal(err.code, 422);
    assert.equal(err.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  });

  it('force is for applies only; a fieldManager is at most 128 bytes of printable characters', () => {
    assert.match(
      checkWriteOptions({ fieldManager: 'm', force: 'true', apply: false, kind: 'PatchOptions' })!.message,
      /force: Forbidden: may not be specified for non-apply patch/,
    );
    assert.match(
      checkWriteOptions({ fieldManager: 'x'.repeat(129), force: null, apply: false, kind: 'CreateOptions' })!.message,
      /^CreateOptions\.meta\.k8s\.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes$/,
    );
    assert.match(
      checkWriteOptions({ fieldManager: 'bad\u0007', force: null, apply: false, kind: 'UpdateOptions' })!.message,
      /invalid character U\+0007 \(at position 3\)/,
    );
    assert.equal(checkWriteOptions({ fieldManager: 'my controller', force: null, apply: false, kind: 'UpdateOptions' }), undefined);
  });

  it('without a fieldManager, the manager is the User-Agent up to its first "/"', () => {
    assert.equal(managerFromUserAgent('kubectl/v1.32.0 (linux/amd64) kubernetes/abc'), 'kubectl');
    assert.equal(managerFromUserAgent(undefined), '');
    assert.equal(managerFromUserAgent('y'.repeat(200)).length, 128);
  });
});

describe('managed fields through the API server', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.cluster.close();
  });
  const applyYaml = (path: string, body: string, query: string, headers: Record<string, string> = {}) =>
    raw(h.cluster, 'PATCH', `${path}${query}`, body, { 'Content-Type': 'application/apply-patch+yaml', ...headers });

  it("an apply without fieldManager is refused with the server's 422 and changes nothing", async () => {
    const res = await applyYaml(
      '/api/v1/namespaces/default/configmaps/nofm',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nofm}\ndata: {a: "1"}\n',
      '',
    );
    assert.equal(res.status, 422);
    assert.equal(res.body.reason, 'Invalid');
    assert.match(res.body.message, /fieldManager: Required value: is required for apply patch/);
    assert.equal((await raw(h.cluster, 'GET', '/api/v1/namespaces/default/configmaps/nofm')).status, 404);
  });

  it('an applied configuration may not carry managedFields', async () => {
    const res = await applyYaml(
      '/api/v1/namespaces/default/configmaps/withmf',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'withmf', managedFields: [{ manager: 'x' }] } }),
      '?fieldManager=me',
    );
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'metadata.managedFields must be nil');
  });

  it('a create names its manager by fieldManager, else by the User-Agent, and GET and LIST return the entries', async () => {
    const post = (name: string, query: string, headers: Record<string, string>) =>
      raw(
        h.cluster,
        'POST',
        `/api/v1/namespaces/default/configmaps${query}`,
        JSON.stringify({ metadata: { name }, data: { a: '1' } }),
        headers,
      );
    assert.equal(
      (await post('by-param', '?fieldManager=my-tool', { 'User-Agent': 'ignored/1.0' })).body.metadata.managedFields[0].manager,
      'my-tool',
    );
    assert.equal(
      (await post('by-agent', '', { 'User-Agent': 'rollouts-controller/0.1 (linux)' })).body.metadata.managedFields[0].manager,
      'rollouts-controller',
    );
    const anonymous = (await post('no-agent', '', {})).body.metadata.managedFields[0];
    assert.equal('manager' in anonymous, false, 'no User-Agent: the entry has no manager, as the server omits an empty one');
    const got = await raw(h.cluster, 'GET', '/api/v1/namespaces/default/configmaps/by-agent');
    assert.deepEqual(got.body.metadata.managedFields[0].fieldsV1, { 'f:data': { '.': {}, 'f:a': {} } });
    const list = await raw(h.cluster, 'GET', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dby-param');
    assert.equal(list.body.items[0].metadata.managedFields[0].manager, 'my-tool');
  });

  it("the workload simulator writes as kube-controller-manager and kubelet, never on the ReplicaSet's spec", async () => {
    const ready = awaitEvent(
      h.kc,
      '/api/v1/namespaces/default/pods',
      (e) => e.object?.metadata?.labels?.app === 'owners' && isReady(e.object),
      "the ReplicaSet's pod to become ready",
    );
    const rs = await h.apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: {
        metadata: { name: 'owners' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'owners' } },
          template: { metadata: { labels: { app: 'owners' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    const pod = (await ready).object;
    const managers = (o: any) =>
      (o.metadata.managedFields ?? []).map((e: any) => `${e.manager}${e.subresource ? `/${e.subresource}` : ''}`).sort();
    assert.deepEqual(managers(pod), ['kube-controller-manager', 'kubelet/status']);
    const current = await h.apps.readNamespacedReplicaSet({ name: 'owners', namespace: 'default' });
    assert.ok(managers(current).includes('kube-controller-manager/status'), managers(current).join(', '));
    const specOwners = (current.metadata!.managedFields ?? [])
      .filter((e: any) => 'f:spec' in (e.fieldsV1 ?? {}))
      .map((e: any) => e.manager);
    assert.deepEqual(specOwners, [rs.metadata!.managedFields![0]!.manager]);
  });

  it('client-node replacing an object it read, unchanged, is a no-op (its times come back as "…:00.000Z")', async () => {
    const created = await h.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'roundtrip' }, data: { a: '1' } },
    });
    const read = await h.core.readNamespacedConfigMap({ name: 'roundtrip', namespace: 'default' });
    const replaced = await h.core.replaceNamespacedConfigMap({ name: 'roundtrip', namespace: 'default', body: read });
    assert.equal(replaced.metadata!.resourceVersion, created.metadata!.resourceVersion);
  });

  it('a write through /scale is recorded with subresource "scale" and takes spec.replicas', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'scaled' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'scaled' } },
        template: { metadata: { labels: { app: 'scaled' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    const created = await raw(
      h.cluster,
      'POST',
      '/apis/apps/v1/namespaces/default/deployments?fieldManager=creator',
      JSON.stringify(deployment),
    );
    assert.equal(created.status, 201, created.text);
    const scaled = await raw(
      h.cluster,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/scaled/scale?fieldManager=kubectl-scale',
      JSON.stringify({ spec: { replicas: 3 } }),
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.equal(scaled.status, 200, scaled.text);
    const got = (await raw(h.cluster, 'GET', '/apis/apps/v1/namespaces/default/deployments/scaled')).body;
    const scaler = got.metadata.managedFields.find((e: any) => e.manager === 'kubectl-scale');
    assert.equal(scaler.subresource, 'scale');
    assert.deepEqual(scaler.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    const creator = got.metadata.managedFields.find((e: any) => e.manager === 'creator');
    assert.equal('f:replicas' in creator.fieldsV1['f:spec'], false, 'the creator lost spec.replicas to the scale');
  });

  it('a PUT with managedFields [{}] clears them', async () => {
    await raw(
      h.cluster,
      'POST',
      '/api/v1/namespaces/default/configmaps?fieldManager=a',
      JSON.stringify({ metadata: { name: 'reset' }, data: { a: '1' } }),
    );
    const res = await raw(
      h.cluster,
      'PUT',
      '/api/v1/namespaces/default/configmaps/reset',
      JSON.stringify({ metadata: { name: 'reset', managedFields: [{}] }, data: { a: '2' } }),
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.metadata.managedFields, undefined);
  });

  it('managedFields survive a restart with --data-dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mf-persist-'));
    try {
      const first = await startLocalCluster({ port: 0, dataDir });
      const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept, namespace: default}\ndata: {a: "1"}\n';
      const res = await raw(first, 'PATCH', '/api/v1/namespaces/default/configmaps/kept?fieldManager=keeper', body, {
        'Content-Type': 'application/apply-patch+yaml',
      });
      assert.equal(res.status, 201, `an apply that creates is 201 Created: ${res.text}`);
      await first.close();
      const second = await startLocalCluster({ port: 0, dataDir });
      try {
        const got = await raw(second, 'GET', '/api/v1/namespaces/default/configmaps/kept');
        assert.deepEqual(
          got.body.metadata.managedFields.map((e: any) => [e.manager, e.operation]),
          [['keeper', 'Apply']],
        );
        const conflict = await raw(
          second,
          'PATCH',
          '/api/v1/namespaces/default/configmaps/kept?fieldManager=other',
          body.replace('"1"', '"2"'),
          { 'Content-Type': 'application/apply-patch+yaml' },
        );
        assert.equal(conflict.status, 409);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("a restart with --data-dir brings Argo's CRDs to the schemas it is given, and changes nothing when they are the same", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'crd-persist-'));
    const schema = (description: string) => ({
      'rollouts.argoproj.io': { type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true },
    });
    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rollouts.argoproj.io';
    const descriptionOf = (crd: any) => crd.spec.versions[0].schema.openAPIV3Schema.description;
    try {
      const first = await startLocalCluster({ port: 0, dataDir, crdSchemas: schema('the old release') });
      const saved = (await raw(first, 'GET', crdPath)).body;
      assert.equal(descriptionOf(saved), 'the old release');
      await first.close();
      // Started seconds later: an unchanged CRD keeps its conditions' times, so nothing is written.
      const second = await startLocalCluster({
        port: 0,
        dataDir,
        crdSchemas: schema('the old release'),
        clock: createManualClock(Date.now() + 5000),
      });
      assert.equal(
        (await raw(second, 'GET', crdPath)).body.metadata.resourceVersion,
        saved.metadata.resourceVersion,
        'the same schemas: not written again',
      );
      await second.close();
      const third = await startLocalCluster({ port: 0, dataDir, crdSchemas: schema('the new release') });
      try {
        assert.equal(descriptionOf((await raw(third, 'GET', crdPath)).body), 'the new release');
      } finally {
        await third.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
