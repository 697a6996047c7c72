/**
 * webview/: the rollout detail and simulation UI inside a VS Code webview (bundled to
 * dist/webview.js and dist/webview.css).
 * Architecture invariant: only webview/ touches the DOM; it talks to the extension only through
 * the messages of protocol.ts, checked on arrival; page.ts builds the page with a strict CSP.
 */
import './elements';
import './styles.css';
import { connectToVsCode } from './vscode';

const root = document.getElementById('root');
if (root) connectToVsCode(root);
