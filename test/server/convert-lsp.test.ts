// Converting a Deployment through the real server over stdio: the code actions are offered on it,
// their edit applied by the client leaves a Rollout the server finds nothing wrong with, and the
// Simulate lens is on it at once.
import { strict as assert } from 'node:assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction } from 'vscode-languageserver';
import { SIMULATE_COMMAND } from '../../src/server/protocol';
import { serverInWorkspace } from './lsp-session';
import { canaryRollout, deployment, service } from './fixtures';

describe('Convert a Deployment to a Rollout over LSP', () => {
  const ws = serverInWorkspace({
    // The Service that selects the Deployments' pods, in a file of its own on disk: blue-green takes it as the active Service.
    'services.yaml': service('web', { app: 'web' }),
    // A Rollout whose canaryService selects other pods: its mismatch is reported once the scan has read services.yaml.
    'probe.yaml': canaryRollout({ name: 'probe', canaryService: 'web', stableService: 'probe-stable' }),
  });

  before(async () => {
    const probe = ws.uri('probe.yaml');
    ws.lsp.open(probe, canaryRollout({ name: 'probe', canaryService: 'web', stableService: 'probe-stable' }));
    await ws.lsp.diagnosticsMatching(
      probe,
      (d) => d.some((x) => x.code === 'service-selector-mismatch'),
      'the scan to have read services.yaml',
    );
    ws.lsp.close(probe);
  });

  const cases = [
    { file: 'canary.yaml', name: 'web-canary', title: /^Convert to a canary Rollout$/, docIndex: 0 },
    { file: 'blue-green.yaml', name: 'web-bg', title: /^Convert to a blue-green Rollout \(adds Service 'web-preview'\)$/, docIndex: 0 },
    { file: 'workload-ref.yaml', name: 'web-ref', title: /^Manage Deployment 'web-ref' with a Rollout \(workloadRef\)$/, docIndex: 1 },
  ];
  for (const c of cases) {
    it(`${c.file}: the action's edit gives a Rollout with no diagnostics and a Simulate lens`, async () => {
      const uri = ws.uri(c.file);
      const text = deployment(c.name, 'web');
      ws.lsp.open(uri, text);
      const at = { line: 1, character: 8 }; // on `kind: Deployment`
      const actions = await ws.lsp.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: at, end: at },
        context: { diagnostics: [] },
      });
      const action = actions.find((a) => c.title.test(a.title));
      assert.ok(action, `actions: ${actions.map((a) => a.title).join(', ')}`);
      assert.equal(action.kind, 'refactor.rewrite.rollouts.convertDeployment');
      const edits = action.edit?.changes?.[uri];
      assert.ok(edits && edits.length > 0);
      const converted = TextDocument.applyEdits(TextDocument.create(uri, 'yaml', 1, text), edits);
      const version = ws.lsp.change(uri, converted);
      assert.deepEqual(await ws.lsp.diagnosticsFor(uri, version), [], converted);
      const lenses = await ws.lsp.codeLenses(uri);
      const simulate = lenses.filter((l) => l.command?.command === SIMULATE_COMMAND);
      assert.equal(simulate.length, 1, JSON.stringify(lenses));
      assert.equal(simulate[0]!.command!.title, 'Simulate rollout');
      assert.deepEqual(simulate[0]!.command!.arguments, [{ uri, docIndex: c.docIndex }]);
      // Nothing more to convert here, except the Deployment a workloadRef Rollout now manages, which is left alone.
      const again = await ws.lsp.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: at, end: at },
        context: { diagnostics: [] },
      });
      assert.deepEqual(
        again.filter((a) => a.kind === action.kind),
        [],
      );
      ws.lsp.close(uri);
    });
  }
});
