// Show Logs in the real workbench on the local cluster: on a pod row it opens a terminal named
// after the pod and container that shows the simulated container's lines; Ctrl-C stops following
// (a line says so) and closing the terminal ends it. On a revision row it asks which pods first.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension/test-api';
import type { TreeElement } from '../../../src/extension/tree-elements';
import { api, until } from './helpers';

const demo = { namespace: 'rollouts-demo', name: 'canary-demo' };

describe('Show Logs on the local cluster', function () {
  this.timeout(60_000);
  let t: TestApi;
  before(async () => {
    t = await api();
    if (!t.session.local) await vscode.commands.executeCommand('rollouts.startLocalCluster');
  });

  /** The rows under canary-demo's revisions, once one of its pods is Running. */
  const rowsOf = (kind: TreeElement['kind']) => {
    const out: TreeElement[] = [];
    for (const ctx of t.tree.getChildren().filter((e) => e.kind === 'context'))
      for (const ns of t.tree.getChildren(ctx))
        for (const r of t.tree.getChildren(ns))
          if (r.kind === 'rollout' && r.name === demo.name)
            for (const rev of t.tree.getChildren(r)) {
              if (rev.kind === 'revision' && kind === 'revision') out.push(rev);
              if (rev.kind === 'revision') for (const p of t.tree.getChildren(rev)) if (p.kind === kind) out.push(p);
            }
    return out;
  };
  const terminalNamed = (name: string) => vscode.window.terminals.find((x) => x.name === name);

  it('on a pod row: a terminal named after the pod follows its lines; Ctrl-C stops it, saying so; closing it ends it', async () => {
    const podRow = await until(
      'a running pod row of canary-demo',
      () =>
        rowsOf('pod').find((p) => p.kind === 'pod' && t.session.stores?.pods.get(p.pod, demo.namespace)?.status?.phase === 'Running') as
          | Extract<TreeElement, { kind: 'pod' }>
          | undefined,
      [t.tree.onDidRefresh],
      30_000,
    );
    assert.equal(t.tree.getTreeItem(podRow).contextValue, 'pod', 'the row the menu entry shows on');
    const title = await vscode.commands.executeCommand<string>('rollouts.showPodLogs', podRow);
    assert.equal(title, `${podRow.pod}/rollouts-demo`);
    const name = `Logs: ${podRow.pod}/rollouts-demo`;
    const record = await until(
      'the terminal to show the container started',
      () =>
        t.logTerminals().find((r) => r.name === name && r.lines.some((l) => l.startsWith('simulated container "rollouts-demo" started'))),
      [t.onDidWriteLogTerminal],
      20_000,
    );
    assert.match(record.lines[0]!, /^Following 1 container\(s\) in namespace "rollouts-demo"/);
    assert.ok(record.lines.includes('listening on port 8080'), record.lines.join('\n'));
    const terminal = terminalNamed(name);
    assert.ok(terminal, `a terminal named "${name}" among ${vscode.window.terminals.map((x) => x.name).join(', ')}`);

    terminal.sendText('\x03', false);
    await until('the stop line', () => t.logTerminals().find((r) => r.name === name && r.ended), [t.onDidWriteLogTerminal], 10_000);
    assert.match(
      t
        .logTerminals()
        .find((r) => r.name === name)!
        .lines.at(-1)!,
      /^Stopped following \(Ctrl-C\)/,
    );

    const closed = new Promise<void>((resolve) => {
      const sub = vscode.window.onDidCloseTerminal((x) => {
        if (x !== terminal) return;
        sub.dispose();
        resolve();
      });
    });
    terminal.dispose();
    await closed;
    assert.equal(
      t.logTerminals().some((r) => r.name === name),
      false,
      'a closed terminal follows nothing',
    );
  });

  it('on a revision row with several pods: a pick of all its pods or one; all pods are prefixed [pod/container]', async () => {
    // canary-demo runs 5 replicas: some revision has several pods.
    const revision = await until(
      'a revision row of canary-demo with two pods',
      () =>
        rowsOf('revision').find(
          (r) => r.kind === 'revision' && rowsOf('pod').filter((p) => p.kind === 'pod' && p.revision === r.revision).length > 1,
        ) as Extract<TreeElement, { kind: 'revision' }> | undefined,
      [t.tree.onDidRefresh],
      30_000,
    );
    const shown = new Promise<{ title: string; labels: string[] }>((resolve) => {
      const sub = t.onDidShowLogsPick((p) => {
        sub.dispose();
        resolve(p);
      });
    });
    const running = vscode.commands.executeCommand<string>('rollouts.showPodLogs', revision);
    // The pick, or the command's end without one (its error is then in the "Argo Rollouts" log).
    const first = await Promise.race([shown, running.then((r) => ({ endedWith: r }))]);
    assert.ok(!('endedWith' in first), `Show Logs ended without a pick: ${String((first as { endedWith: unknown }).endedWith)}`);
    const pick = first;
    assert.equal(pick.title, 'Argo Rollouts: Show Logs');
    assert.equal(pick.labels[0], `All pods of revision ${revision.revision}`);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    assert.equal(await running, `canary-demo revision ${revision.revision}`);
    const name = `Logs: canary-demo revision ${revision.revision}`;
    const record = await until(
      'prefixed lines of two pods',
      () => {
        const r = t.logTerminals().find((x) => x.name === name);
        const pods = new Set(r?.lines.map((l) => /^\[([^/\]]+)\/rollouts-demo\] /.exec(l)?.[1]).filter(Boolean));
        return pods.size >= 2 ? r : undefined;
      },
      [t.onDidWriteLogTerminal],
      20_000,
    );
    assert.ok(record.lines.length > 2);
    terminalNamed(name)?.dispose();
  });
});
