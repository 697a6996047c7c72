// The registry of which files kustomizations use as patches.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { createKustomizePatches, isKustomizationFile } from '../../src/server/kustomize-patches';

describe('kustomize patch registry', () => {
  const root = '/ws';
  const prod = join(root, 'overlays/prod/kustomization.yaml');
  const staging = join(root, 'overlays/staging/kustomization.yml');
  const shared = join(root, 'overlays/shared/replicas.yaml');

  it('resolves patch paths against the kustomization\'s folder and counts each kustomization that lists a file', () => {
    const patches = createKustomizePatches();
    assert.equal(patches.set(prod, 'patches:\n- path: ../shared/replicas.yaml\n- path: image.yaml\n'), true);
    assert.equal(patches.set(staging, 'patchesStrategicMerge:\n- ../shared/replicas.yaml\n'), true);
    assert.ok(patches.isPatch(shared) && patches.isPatch(join(root, 'overlays/prod/image.yaml')));
    assert.equal(patches.set(prod, 'patches:\n- path: ../shared/replicas.yaml\n- path: image.yaml\n'), false, 'the same text changes nothing');

    assert.equal(patches.set(prod, undefined), true);
    assert.ok(patches.isPatch(shared), 'staging still lists it');
    assert.ok(!patches.isPatch(join(root, 'overlays/prod/image.yaml')));
    assert.equal(patches.set(staging, 'resources: [../../base]\n'), true);
    assert.ok(!patches.isPatch(shared));
    assert.deepEqual(patches.kustomizations(), []);
  });

  it('knows kustomization files by name', () => {
    assert.ok(isKustomizationFile(prod) && isKustomizationFile(staging) && isKustomizationFile('/a/Kustomization'));
    assert.ok(!isKustomizationFile('/a/kustomization-notes.yaml') && !isKustomizationFile('/a/rollout.yaml'));
  });
});
