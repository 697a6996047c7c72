/**
 * "Compare with Current" on a revision row: VS Code's diff editor on that revision's pod template
 * and the current revision's, as YAML (src/cluster's revisionTemplateYaml: the hash label left
 * out), served read-only from the watched stores by a TextDocumentContentProvider of its own scheme.
 */
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { cluster } from './lazy-cluster';
import type { TreeElement } from './tree-elements';

export const REVISION_SCHEME = 'rollouts-revision';

type RevisionRow = Extract<TreeElement, { kind: 'revision' }>;

/** The document of one revision's template: rollouts-revision:/NAMESPACE/ROLLOUT/revision-N.yaml?context=C */
export function revisionUri(r: RevisionRow): vscode.Uri {
  return vscode.Uri.from({
    scheme: REVISION_SCHEME,
    path: `/${r.namespace}/${r.rollout}/revision-${r.revision}.yaml`,
    query: new URLSearchParams({ context: r.context }).toString(),
  });
}

function rowOf(uri: vscode.Uri): RevisionRow | undefined {
  const m = /^\/([^/]+)\/([^/]+)\/revision-(\d+)\.yaml$/.exec(uri.path);
  const context = new URLSearchParams(uri.query).get('context');
  if (!m || context === null) return undefined;
  return { kind: 'revision', context, namespace: m[1]!, rollout: m[2]!, revision: Number(m[3]) };
}

/** The rollout's ReplicaSets in the connected context's stores, or why there are none. */
function replicaSetsOf(ctx: Ctx, r: Pick<RevisionRow, 'context' | 'namespace' | 'rollout'>) {
  const s = ctx.session.stateOf(r.context);
  if (s.kind !== 'connected') return { why: vscode.l10n.t('context "{0}" is not connected', r.context) };
  const rollout = s.stores.rollouts.get(r.rollout, r.namespace);
  if (!rollout) return { why: vscode.l10n.t('rollout {0}/{1} is gone', r.namespace, r.rollout) };
  return { replicaSets: cluster().relatedObjects(s.stores, rollout).replicaSets };
}

export function registerRevisionDocuments(ctx: Ctx): void {
  const changed = ctx.forWindow(new vscode.EventEmitter<vscode.Uri>());
  ctx.forWindow(
    vscode.workspace.registerTextDocumentContentProvider(REVISION_SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent(uri) {
        const row = rowOf(uri);
        if (!row) return `# ${vscode.l10n.t('not a revision document: {0}', uri.toString())}\n`;
        const found = replicaSetsOf(ctx, row);
        if ('why' in found) return `# ${found.why}\n`;
        const t = cluster().revisionTemplateYaml(found.replicaSets, row.revision);
        return 'yaml' in t ? t.yaml : `# ${t.missing}\n`;
      },
    }),
  );
}

/** Opens the diff editor: the revision of `arg` (a revision row) on the left, the current one on the right. */
export async function compareWithCurrent(ctx: Ctx, arg: unknown): Promise<string | undefined> {
  const a = arg as Partial<RevisionRow> | undefined;
  if (
    a?.kind !== 'revision' ||
    typeof a.context !== 'string' ||
    typeof a.namespace !== 'string' ||
    typeof a.rollout !== 'string' ||
    typeof a.revision !== 'number'
  )
    throw new Error(vscode.l10n.t('Compare with Current runs on a revision row of the Rollouts view'));
  const row = a as RevisionRow;
  const found = replicaSetsOf(ctx, row);
  if ('why' in found) throw new Error(found.why);
  const current = cluster().currentRevision(found.replicaSets);
  if (current === undefined) throw new Error(vscode.l10n.t('rollout {0}/{1} has no revisions', row.namespace, row.rollout));
  if (current === row.revision) throw new Error(vscode.l10n.t('revision {0} is the current one', current));
  const title = vscode.l10n.t('{0}: revision {1} ↔ {2} (current)', row.rollout, row.revision, current);
  await vscode.commands.executeCommand('vscode.diff', revisionUri(row), revisionUri({ ...row, revision: current }), title, {
    preview: true,
  });
  return title;
}
