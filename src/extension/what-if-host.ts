/**
 * What-if from the live state, the host's side: a rollout panel's `whatIf` request is checked
 * (only the panel's own rollout, in its connected context), the rollout's snapshot is read from the
 * session's stores (src/cluster/live-snapshot.ts: reading only) and the planner's simulator runs it
 * in the Simulate view's worker (simulation-runner.ts), off the extension host's thread.
 */
import * as vscode from 'vscode';
import type { HostToView, ViewToHost } from '../../webview/protocol';
import type { Ctx } from './ctx';
import { cluster } from './lazy-cluster';
import { runSimulation } from './simulation-runner';
import { whatIfRefusal, type PanelState } from './webview-requests';

type WhatIfRequest = Extract<ViewToHost, { kind: 'whatIf' }>;

/** The answer to post: the timeline, or why there is none. Never rejects. */
export async function whatIfAnswer(
  ctx: Pick<Ctx, 'session'>,
  panel: PanelState,
  msg: WhatIfRequest,
  workerFile: string,
  signal?: AbortSignal,
): Promise<HostToView> {
  const none = (error: string): HostToView => ({ kind: 'whatIf', requestId: msg.requestId, choice: msg.choice, frames: [], error });
  const refused = whatIfRefusal(panel, msg);
  if (refused !== undefined || panel.kind !== 'rollout') return none(vscode.l10n.t('Cannot preview: {0}', refused ?? ''));
  const { ref } = panel;
  const s = ctx.session.stateOf(ref.context);
  if (s.kind !== 'connected') return none(vscode.l10n.t('Cannot preview: context "{0}" is not connected', ref.context));
  const snapshot = cluster().liveSnapshot(s.stores, ref.namespace, ref.name, new Date());
  if (!snapshot) return none(vscode.l10n.t('Cannot preview: rollout {0}/{1} is not in the cluster (any more)', ref.namespace, ref.name));
  const answer = await runSimulation({ snapshot, whatIf: { choice: msg.choice } }, { workerFile, ...(signal ? { signal } : {}) });
  if (!answer.ok) return none(vscode.l10n.t('Cannot preview: {0}', answer.reason));
  return {
    kind: 'whatIf',
    requestId: msg.requestId,
    choice: msg.choice,
    frames: answer.frames,
    outcome: answer.outcome,
    strategy: answer.strategy,
    ...(answer.assumptions ? { assumptions: answer.assumptions } : {}),
  };
}
