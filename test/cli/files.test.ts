// `rollouts lint DIR` and the language server's workspace scan read the same files of a folder.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { yamlFilesUnder } from '../../src/cli/files';
import { DEFAULT_SCAN_LIMITS, forEachYamlFile } from '../../src/server/workspace-scan';

describe('the files a folder walk reads', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'walk-'));
    const files = [
      'a.yaml',
      'b.YML',
      'notes.txt',
      'Kustomization',
      'overlay/kustomization.yaml',
      'overlay/deep/c.yml',
      '.git/config.yaml',
      '.github/workflows/ci.yaml',
      '.vscode/settings.yaml',
      'node_modules/pkg/d.yaml',
      'overlay/node_modules/e.yaml',
      'overlay/.cache/f.yaml',
    ];
    for (const f of files) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), 'kind: ConfigMap\n');
    }
    symlinkSync(join(root, 'overlay'), join(root, 'linked-folder'));
    symlinkSync(join(root, 'a.yaml'), join(root, 'linked.yaml'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('the CLI and the language server skip the same folders and read the same files', async () => {
    const cli = (await yamlFilesUnder(root)).map((p) => relative(root, p)).sort();
    const server: string[] = [];
    await forEachYamlFile([root], DEFAULT_SCAN_LIMITS, async (p) => void server.push(relative(root, p)));
    assert.deepEqual(cli, ['Kustomization', 'a.yaml', 'b.YML', 'overlay/deep/c.yml', 'overlay/kustomization.yaml']);
    assert.deepEqual(server.sort(), cli);
  });
});
