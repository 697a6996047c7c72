/**
 * "Apply File to Cluster": the YAML file in the editor (its text as shown, unsaved edits
 * included) sent to the connected context by server-side apply, as `kubectl apply
 * --server-side` would, so a manifest can be tried on the local cluster and its embedded
 * controller without a terminal. Anywhere but the local cluster it first shows, in a diff
 * editor, what the apply will change (the server's dry run) and asks. When fields that another
 * manager set stand in the way, it says whose they are and offers to show what forcing would
 * change, then to apply with force (kubectl's --force-conflicts).
 */
import * as vscode from 'vscode';
import { stringify } from 'yaml';
import type { ApplyProblem, Connection, ObjectChange } from '../cluster';
import { manifestObjects, type ManifestObject } from '../schema';
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
  if (!editor || editor.document.languageId !== 'yaml') throw new Error(vscode.l10n.t('open a manifest (a YAML file) in the editor first'));
  return editor.document;
}

export async function applyFile(ctx: Ctx, target: { context: string; conn: Connection }, arg: unknown): Promise<ApplyReport | undefined> {
  const document = await documentFor(arg);
  const file = vscode.workspace.asRelativePath(document.uri);
  const { objects, problems, refused } = manifestObjects(document.getText());
  const at = (line: number) => `${file}:${line}`;
  if (objects.length === 0) {
    const first = refused ?? problems[0];
    const message = first
      ? vscode.l10n.t('Nothing applied: {0}: {1}', at(first.line), first.message)
      : vscode.l10n.t('Nothing applied: {0} holds no Kubernetes object.', file);
    for (const p of [...(refused ? [refused] : []), ...problems]) ctx.log.warn(`apply: ${at(p.line)}: ${p.message}`);
    void vscode.window.showErrorMessage(message);
    return { ok: false, message, applied: [] };
  }

  const where = vscode.l10n.t('context "{0}" (namespace "{1}" for objects without one)', target.context, target.conn.namespace);
  const list = objects.map((o) => `${o.kind} ${o.name}`).join(', ');
  const remote = target.context !== LOCAL_CONTEXT;
  if (remote || problems.length > 0) {
    // On a real cluster, what will change is shown before the question.
    if (remote) await showChanges(ctx, target, objects, document.uri, { force: false });
    const skipped = problems.length
      ? `\n\n${vscode.l10n.t('Left out, as they are not Kubernetes objects: {0}.', problems.map((p) => vscode.l10n.t('line {0} ({1})', p.line, p.message)).join('; '))}`
      : '';
    const shown = remote ? `\n\n${vscode.l10n.t('The diff editor shows what changes.')}` : '';
    const yes = vscode.l10n.t('Apply');
    const question =
      objects.length === 1
        ? vscode.l10n.t('Apply 1 object of {0} to {1}?', file, where)
        : vscode.l10n.t('Apply {0} objects of {1} to {2}?', objects.length, file, where);
    const answer = await vscode.window.showWarningMessage(question + `\n\n${list}${skipped}${shown}`, { modal: true }, yes);
    if (answer !== yes) return undefined;
  }
  return send(ctx, target, document, objects, problems, { force: false });
}

/** Applies, reports, and on conflicts offers to show what forcing changes and to force. */
async function send(
  ctx: Ctx,
  target: { context: string; conn: Connection },
  document: vscode.TextDocument,
  objects: ManifestObject[],
  problems: ApplyProblem[],
  opts: { force: boolean },
): Promise<ApplyReport> {
  const file = vscode.workspace.asRelativePath(document.uri);
  const at = (line: number) => `${file}:${line}`;
  const result = await withErrorBoundary(ctx, `applying ${file} to context "${target.context}"`, async () =>
    vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: opts.force
          ? vscode.l10n.t('Argo Rollouts: applying {0} with force…', file)
          : vscode.l10n.t('Argo Rollouts: applying {0}…', file),
      },
      () => cluster().applyObjects(target.conn.rest, objects, target.conn.namespace, { force: opts.force }),
    ),
  );
  if (!result) return { ok: false, message: vscode.l10n.t('apply failed; see the log'), applied: [] };
  const failed: ApplyProblem[] = [...problems, ...result.problems].sort((a, b) => a.line - b.line);
  const applied = result.applied.map((o) => `${o.kind} ${o.name}`);
  ctx.log.info(`applied ${file} to context "${target.context}": ${applied.join(', ') || 'nothing'}`);
  for (const p of failed) ctx.log.warn(`apply: ${at(p.line)}: ${p.message}`);

  const done = applied.length
    ? opts.force
      ? vscode.l10n.t('Applied {0} to context "{1}" with force.', applied.join(', '), target.context)
      : vscode.l10n.t('Applied {0} to context "{1}".', applied.join(', '), target.context)
    : vscode.l10n.t('Nothing applied.');
  const message = failed.length
    ? vscode.l10n.t('{0} Not applied: {1}', done, failed.map((p) => `${at(p.line)}: ${p.message}`).join('; '))
    : done;
  // A Rollout just applied is what the user wants to watch next.
  const rollout = result.applied.find((o) => o.kind === 'Rollout');
  const open = rollout ? vscode.l10n.t('Open Rollout') : undefined;
  // Objects refused for fields others set can be forced, once the user has seen what that changes.
  const conflicted = objects.filter((o) => failed.some((p) => p.line === o.line && p.conflicts?.length));
  const force = conflicted.length && !opts.force ? vscode.l10n.t('Show Changes and Force…') : undefined;
  const show = failed.length ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  void show(message, ...(force ? [force] : []), ...(open ? [open] : [])).then(async (choice) => {
    if (choice === undefined) return; // dismissed
    if (choice === open && rollout)
      void vscode.commands.executeCommand('rollouts.openRollout', {
        context: target.context,
        namespace: rollout.namespace,
        name: rollout.name,
      });
    if (choice === force) {
      await showChanges(ctx, target, conflicted, document.uri, { force: true });
      const yes = vscode.l10n.t('Apply with Force');
      const owners = [...new Set(failed.flatMap((p) => p.conflicts ?? []).map((c) => c.owner))].join(', ');
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t(
          'Apply {0} to context "{1}" with force? The fields that {2} set become yours (as kubectl apply --server-side --force-conflicts).\n\nThe diff editor shows what changes.',
          conflicted.map((o) => `${o.kind} ${o.name}`).join(', '),
          target.context,
          owners,
        ),
        { modal: true },
        yes,
      );
      if (answer === yes) await send(ctx, target, document, conflicted, [], { force: true });
    }
  });
  return { ok: failed.length === 0, message, applied };
}

/** The YAML a person compares, per change URI (the two sides of the newest diff). */
const shownText = new Map<string, string>();
let provider: vscode.Disposable | undefined;
const scheme = 'rollouts-apply';

/**
 * Opens a diff editor of the objects as they are and as the apply would leave them (the
 * server's dry run, which writes nothing). A dry run that fails is logged; the question follows anyway.
 */
async function showChanges(
  ctx: Ctx,
  target: { context: string; conn: Connection },
  objects: ManifestObject[],
  source: vscode.Uri,
  opts: { force: boolean },
): Promise<void> {
  provider ??= ctx.forWindow(
    vscode.workspace.registerTextDocumentContentProvider(scheme, {
      provideTextDocumentContent: (uri) => shownText.get(uri.toString()) ?? '',
    }),
  );
  const preview = await withErrorBoundary(ctx, `previewing the apply to context "${target.context}"`, () =>
    cluster().applyObjects(target.conn.rest, objects, target.conn.namespace, { force: opts.force, dryRun: true }),
  );
  if (!preview?.changes) return;
  shownText.clear(); // only the newest preview is kept: an open diff editor holds its own copy
  for (const p of preview.problems) ctx.log.warn(`apply preview: line ${p.line}: ${p.message}`);
  const name = source.path.split('/').pop() ?? 'manifest';
  const side = (which: 'before' | 'after') => {
    const uri = vscode.Uri.from({ scheme, path: `/${target.context}/${which}/${name}`, query: String(Date.now()) });
    shownText.set(uri.toString(), documentsText(preview.changes!, which));
    return uri;
  };
  await vscode.commands.executeCommand(
    'vscode.diff',
    side('before'),
    side('after'),
    `${name}: context "${target.context}" now ↔ after the apply${opts.force ? ' with force' : ''}`,
    { preview: true },
  );
}

/** The objects of one side as a YAML stream, in file order ("# new" where there is none yet). */
export function documentsText(changes: readonly ObjectChange[], which: 'before' | 'after'): string {
  return changes
    .map((c) => (c[which] ? stringify(c[which], { sortMapEntries: true }) : `# ${c.kind} ${c.name}: not in the cluster yet\n`))
    .join('---\n');
}
