// The webview page the host sets once: a strict CSP, the bundle under a nonce, nothing inline.
import { strict as assert } from 'node:assert';
import { contentSecurityPolicy, webviewHtml } from '../../webview/page';

const options = {
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
  styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.css',
  codiconsUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/codicons/codicon.css',
  cspSource: 'https://*.vscode-cdn.net',
  nonce: 'q2x3UbFv0AjPfY9cZl5W1g==',
};

describe('webview page', () => {
  it("allows only the nonce'd script and the extension's own styles, fonts and images", () => {
    assert.equal(
      contentSecurityPolicy(options.cspSource, options.nonce),
      "default-src 'none'; script-src 'nonce-q2x3UbFv0AjPfY9cZl5W1g=='; style-src https://*.vscode-cdn.net; font-src https://*.vscode-cdn.net; img-src https://*.vscode-cdn.net data:",
    );
    const html = webviewHtml(options);
    assert.match(
      html,
      /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;nonce-q2x3UbFv0AjPfY9cZl5W1g==&#39;;/,
    );
  });

  it('has exactly one script, the bundle, carrying the nonce, and no inline script or style', () => {
    const html = webviewHtml(options);
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    assert.equal(scripts[0]![0], `<script nonce="${options.nonce}" src="${options.scriptUri}"></script>`);
    assert.doesNotMatch(html, /<style|\sstyle="|\son[a-z]+="/);
  });

  it('links the codicons with the id VS Code Elements looks for, and the page stylesheet', () => {
    const html = webviewHtml(options);
    assert.ok(html.includes(`<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${options.codiconsUri}">`));
    assert.ok(html.includes(`<link rel="stylesheet" href="${options.styleUri}">`));
    assert.ok(html.includes('<main id="root"></main>'));
  });

  it('escapes URIs and the title so they cannot break out of their attribute', () => {
    const html = webviewHtml({ ...options, scriptUri: 'x"><script>alert(1)</script>', title: '<b>checkout</b>' });
    assert.ok(html.includes('src="x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'));
    assert.ok(html.includes('<title>&lt;b&gt;checkout&lt;/b&gt;</title>'));
    assert.equal([...html.matchAll(/<script/g)].length, 1);
  });

  it('refuses a nonce or source that could add a directive to the policy', () => {
    assert.throws(
      () => webviewHtml({ ...options, nonce: "abc'; script-src *" }),
      /nonce "abc'; script-src \*" contains characters a CSP cannot hold/,
    );
    assert.throws(() => webviewHtml({ ...options, cspSource: 'https://x; script-src *' }), /cspSource/);
    assert.throws(() => webviewHtml({ ...options, cspSource: "'self' 'unsafe-inline'; script-src *" }), /cspSource/);
    assert.throws(() => webviewHtml({ ...options, nonce: "'self'" }), /nonce/);
    assert.throws(() => webviewHtml({ ...options, cspSource: '' }), /cspSource/);
  });

  // Regression: code-server's webview.cspSource is a quoted keyword plus a host, and the page refused it.
  it("accepts code-server's source list with the 'self' keyword", () => {
    const policy = contentSecurityPolicy("'self' https://*.vscode-cdn.net", options.nonce);
    assert.ok(policy.includes("style-src 'self' https://*.vscode-cdn.net;"), policy);
  });
});
