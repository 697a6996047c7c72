// The registry of what the workspace's kustomizations say of its files: patches and added labels.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { createKustomizations, isKustomizationFile, type Kustomizations } from '../../src/server/kustomizations';

/** Records one kustomization and settles, as the server does for a single change: true when that changes what any file is validated with. */
const set = (k: Kustomizations, path: string, text: string | undefined) => {
  k.record(path, text);
  return k.settle();
};

describe('kustomization registry', () => {
  const root = join('/', 'ws');
  const prod = join(root, 'overlays/prod/kustomization.yaml');
  const staging = join(root, 'overlays/staging/kustomization.yml');
  const base = join(root, 'base/kustomization.yaml');
  const shared = join(root, 'overlays/shared/replicas.yaml');

  it("resolves patch paths against the kustomization's folder and keeps a file a patch while any kustomization lists it", () => {
    const k = createKustomizations();
    assert.equal(set(k, prod, 'patches:\n- path: ../shared/replicas.yaml\n- path: image.yaml\n'), true);
    assert.equal(set(k, staging, 'patchesStrategicMerge:\n- ../shared/replicas.yaml\n'), false, 'a file already a patch');
    assert.ok(k.isPatch(shared) && k.isPatch(join(root, 'overlays/prod/image.yaml')));
    assert.equal(set(k, prod, 'patches:\n- path: ../shared/replicas.yaml\n- path: image.yaml\n'), false, 'the same text changes nothing');

    assert.equal(set(k, prod, undefined), true);
    assert.ok(k.isPatch(shared), 'staging still lists it');
    assert.ok(!k.isPatch(join(root, 'overlays/prod/image.yaml')));
    assert.equal(set(k, staging, 'resources: [../../base]\n'), true);
    assert.ok(!k.isPatch(shared));
    assert.deepEqual(k.paths(), [staging]);
  });

  it('follows the labels kustomizations add, through the folders they list, as each one changes', () => {
    const k = createKustomizations();
    const rollout = join(root, 'base/rollout.yaml');
    assert.equal(set(k, prod, 'resources: [../../base]\ncommonLabels: {env: prod}\n'), false, 'the base is not known yet');
    assert.equal(k.kustomized(rollout)?.labels, undefined);
    assert.equal(
      set(k, base, 'configurations: [rollout-transform.yaml]\nresources: [rollout.yaml]\n'),
      true,
      'the overlay now reaches a configured base',
    );
    assert.deepEqual(k.kustomized(rollout)?.labels, { selector: { env: 'prod' }, template: { env: 'prod' } });
    assert.equal(set(k, prod, 'resources: [../../base]\ncommonLabels: {env: production}\n'), true);
    assert.deepEqual(k.kustomized(rollout)?.labels?.selector, { env: 'production' });
    assert.equal(set(k, base, undefined), true);
    assert.equal(k.kustomized(rollout)?.labels, undefined);
  });

  it('counts recorded kustomizations from the next settle, and settles once for many (as the scan does)', () => {
    const k = createKustomizations();
    const rollout = join(root, 'base/rollout.yaml');
    k.record(prod, 'resources: [../../base]\ncommonLabels: {env: prod}\npatches: [{path: image.yaml}]\n');
    k.record(base, 'configurations: [rollout-transform.yaml]\nresources: [rollout.yaml]\n');
    assert.equal(k.kustomized(rollout)?.labels, undefined, 'not before settle');
    assert.ok(!k.isPatch(join(root, 'overlays/prod/image.yaml')));
    assert.equal(k.settle(), true);
    assert.deepEqual(k.kustomized(rollout)?.labels, { selector: { env: 'prod' }, template: { env: 'prod' } });
    assert.ok(k.isPatch(join(root, 'overlays/prod/image.yaml')));
    assert.equal(k.settle(), false, 'nothing recorded since');
    k.record(base, 'configurations: [rollout-transform.yaml]\nresources: [rollout.yaml]\n');
    assert.equal(k.settle(), false, 'the same text again changes nothing');
    k.record(base, undefined);
    k.record(base, 'configurations: [rollout-transform.yaml]\nresources: [rollout.yaml]\n');
    assert.equal(k.settle(), false, 'gone and back before a settle is no change');
  });

  it("reads the fields an overlay's patch gives a base's Rollout once the patch file's text is recorded", () => {
    const k = createKustomizations();
    const rollout = join(root, 'base/rollout.yaml');
    const patch = join(root, 'overlays/prod/strategy.yaml');
    k.record(base, 'resources: [rollout.yaml]\n');
    k.record(prod, 'resources: [../../base]\npatches: [{path: strategy.yaml}]\n');
    assert.equal(k.settle(), true, 'the patch file is a patch');
    assert.deepEqual(k.unreadPatches(), [patch]);
    assert.equal(k.kustomized(rollout), undefined);
    k.recordPatch(patch, 'kind: Rollout\nmetadata: {name: web}\nspec: {strategy: {canary: {}}}\n');
    assert.deepEqual(k.unreadPatches(), []);
    assert.equal(k.settle(), true);
    assert.ok(k.kustomized(rollout)?.patched?.web?.includes('["spec","strategy"]'));
    k.recordPatch(patch, 'kind: Rollout\nmetadata: {name: web}\nspec: {replicas: 3}\n');
    assert.equal(k.settle(), true, 'the patch changed on disk');
    assert.ok(!k.kustomized(rollout)?.patched?.web?.includes('["spec","strategy"]'));
    k.record(prod, 'resources: [../../base]\n');
    assert.equal(k.settle(), true);
    assert.equal(k.kustomized(rollout), undefined, 'no longer a patch: what it gave is gone');
    assert.deepEqual(k.unreadPatches(), []);
  });

  it('knows kustomization files by name', () => {
    assert.ok(isKustomizationFile(prod) && isKustomizationFile(staging) && isKustomizationFile('/a/Kustomization'));
    assert.ok(!isKustomizationFile('/a/kustomization-notes.yaml') && !isKustomizationFile('/a/rollout.yaml'));
  });
});
