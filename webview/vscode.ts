/**
 * The only file that talks to VS Code's webview API: it wires acquireVsCodeApi to the app,
 * keeps the page's state across reloads (getState/setState) and sends the `ready` handshake
 * once the app listens, so the host never sends state into a page that is not there yet.
 */
import { mountRolloutView } from './main';
import type { SavedState } from './main';
import type { ViewToHost } from './protocol';

interface VsCodeApi {
  postMessage(message: ViewToHost): void;
  getState(): unknown;
  setState(state: SavedState): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export function connectToVsCode(root: HTMLElement): void {
  const vscode = acquireVsCodeApi();
  const view = mountRolloutView({ post: (m) => vscode.postMessage(m), saveState: (s) => vscode.setState(s) }, root, vscode.getState());
  window.addEventListener('message', (ev: MessageEvent) => view.receive(ev.data));
  window.addEventListener('error', (ev) =>
    vscode.postMessage({ kind: 'viewError', message: `${ev.message} (${ev.filename}:${ev.lineno})` }),
  );
  vscode.postMessage({ kind: 'ready' });
}
