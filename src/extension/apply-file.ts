/**
 * "Apply File to Cluster": the YAML file in the editor (its text as shown, unsaved edits
 * included) sent to the connected context by server-side apply, as `kubectl apply
 * --server-side` would, so a manifest can be tried on the local cluster and its embedded
 * controller without a terminal. Anywhere but the local cluster it asks first.
 */
import * as vscode from 'vscode';
import type { Connection } from '../cluster';
import { manifestObjects } from '../schema';
import { withErrorBoundary, type Ctx } from './ctx';
import { cluster } from './lazy-cluster';
import { LOCAL_CONTEXT } from './session';

export interface ApplyReport {
  ok: boolean;
  message: string;
  /** What was applied, as `Kind name` (the tests read it). */
  applied: string[];
}

/** The document to apply: the one a menu passes (a Uri), else the active editor's. */
async function documentFor(arg: unknown): Promise<vscode.TextDocument> {
  if (arg instanceof vscode.Uri) return vscode.workspace.openTextDocument(arg);
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'yaml') throw new Error('open a manifest (a YAML file) in the editor first');
  return editor.document;
}

export async function applyFile(ctx: Ctx, target: { context: string; conn: Connection }, arg: unknown): Promise<ApplyReport | undefined> {
  const document = await documentFor(arg);
  const file = vscode.workspace.asRelativePath(document.uri);
  const { objects, problems, refused } = manifestObjects(document.getText());
  const at = (line: number) => `${file}:${line}`;
  if (objects.length === 0) {
    const first = refused ?? problems[0];
    const message = first ? `Nothing applied: ${at(first.line)}: ${first.message}` : `Nothing applied: ${file} holds no Kubernetes object.`;
    for (const p of [...(refused ? [refused] : []), ...problems]) ctx.log.warn(`apply: ${at(p.line)}: ${p.message}`);
    void vscode.window.showErrorMessage(message);
    return { ok: false, message, applied: [] };
  }

  const where = `context "${target.context}" (namespace "${target.conn.namespace}" for objects without one)`;
  const list = objects.map((o) => `${o.kind} ${o.name}`).join(', ');
  if (target.context !== LOCAL_CONTEXT || problems.length > 0) {
    const skipped = problems.length ? `\n\nLeft out, as they are not Kubernetes objects: ${problems.map((p) => `line ${p.line} (${p.message})`).join('; ')}.` : '';
    const yes = 'Apply';
    const answer = await vscode.window.showWarningMessage(`Apply ${objects.length} object${objects.length === 1 ? '' : 's'} of ${file} to ${where}?\n\n${list}${skipped}`, { modal: true }, yes);
    if (answer !== yes) return undefined;
  }

  const result = await withErrorBoundary(ctx, `applying ${file} to context "${target.context}"`, async () =>
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Argo Rollouts: applying ${file}…` }, () =>
      cluster().applyObjects(target.conn.rest, objects, target.conn.namespace),
    ),
  );
  if (!result) return { ok: false, message: 'apply failed; see the log', applied: [] };
  const failed = [...problems, ...result.problems].sort((a, b) => a.line - b.line);
  const applied = result.applied.map((o) => `${o.kind} ${o.name}`);
  ctx.log.info(`applied ${file} to context "${target.context}": ${applied.join(', ') || 'nothing'}`);
  for (const p of failed) ctx.log.warn(`apply: ${at(p.line)}: ${p.message}`);

  const done = applied.length ? `Applied ${applied.join(', ')} to context "${target.context}".` : 'Nothing applied.';
  const message = failed.length ? `${done} Not applied: ${failed.map((p) => `${at(p.line)}: ${p.message}`).join('; ')}` : done;
  // A Rollout just applied is what the user wants to watch next.
  const rollout = result.applied.find((o) => o.kind === 'Rollout');
  const open = rollout ? 'Open Rollout' : undefined;
  const show = failed.length ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  void show(message, ...(open ? [open] : [])).then((choice) => {
    if (choice === open && rollout) void vscode.commands.executeCommand('rollouts.openRollout', { context: target.context, namespace: rollout.namespace, name: rollout.name });
  });
  return { ok: failed.length === 0, message, applied };
}
