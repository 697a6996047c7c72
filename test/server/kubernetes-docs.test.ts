// The Kubernetes descriptions beside the server bundle: a field keeps the catalog's words without them, and a
// missing file is looked for once, not on every hover.
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import { fieldAt } from '../../src/schema';
import { fieldDocs } from '../../src/server/kubernetes-docs';

describe('Kubernetes descriptions in the server', () => {
  it("without kubernetes-docs.json beside the code (the sources run unbundled), keeps the catalog's words, and looks once", () => {
    const image = fieldAt(['spec', 'template', 'spec', 'containers', 0, 'image'])!;
    const replicas = fieldAt(['spec', 'replicas'])!;
    const original = fs.readFileSync;
    let reads = 0;
    fs.readFileSync = ((...args: Parameters<typeof original>) => {
      if (String(args[0]).endsWith('kubernetes-docs.json')) reads++;
      return original(...args);
    }) as typeof original;
    try {
      for (let i = 0; i < 3; i++) assert.equal(fieldDocs(image), image.docs);
      assert.equal(fieldDocs(replicas), replicas.docs);
    } finally {
      fs.readFileSync = original;
    }
    assert.ok(reads <= 1, `read ${reads} times`);
  });
});
