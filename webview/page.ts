/**
 * The webview's page, for the extension host to set as `webview.html` once. Pure string
 * building (no DOM, no vscode): the host passes `webview.asWebviewUri(...)` strings for the
 * bundle files, `webview.cspSource`, and a fresh nonce (crypto.randomBytes). The CSP allows
 * only the nonce'd bundle script, styles and fonts from the extension, and images from there or
 * data: URIs: no inline script, no eval, nothing from the network.
 */
export interface PageOptions {
  /** dist/webview.js */
  scriptUri: string;
  /** dist/webview.css */
  styleUri: string;
  /** dist/codicons/codicon.css (its font codicon.ttf lies beside it) */
  codiconsUri: string;
  /** webview.cspSource */
  cspSource: string;
  /** Base64 or hex, fresh for each page. */
  nonce: string;
  title?: string;
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * A CSP source list or nonce must not be able to end the policy or add a directive. A source
 * list is host sources and quoted keywords: code-server's cspSource is "'self' https://*.vscode-cdn.net".
 */
const sourceToken = /^(?:'[a-z-]+'|[A-Za-z0-9+/=_\-.:*]+)$/;
const nonceToken = /^[A-Za-z0-9+/=_-]+$/;

function checkPolicyToken(name: string, value: string, token: RegExp): string {
  const tokens = value.trim().split(/ +/);
  if (!value.trim() || !tokens.every((t) => token.test(t))) {
    throw new Error(`webviewHtml: ${name} ${JSON.stringify(value)} contains characters a CSP cannot hold`);
  }
  return value;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  const src = checkPolicyToken('cspSource', cspSource, sourceToken);
  const n = checkPolicyToken('nonce', nonce, nonceToken);
  return [`default-src 'none'`, `script-src 'nonce-${n}'`, `style-src ${src}`, `font-src ${src}`, `img-src ${src} data:`].join('; ');
}

export function webviewHtml(o: PageOptions): string {
  const csp = contentSecurityPolicy(o.cspSource, o.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${escapeHtml(o.codiconsUri)}">
<link rel="stylesheet" href="${escapeHtml(o.styleUri)}">
<title>${escapeHtml(o.title ?? 'Argo Rollouts')}</title>
</head>
<body>
<main id="root"></main>
<script nonce="${escapeHtml(o.nonce)}" src="${escapeHtml(o.scriptUri)}"></script>
</body>
</html>
`;
}
