/** The html around dist/webview.js: webview/page.ts builds it; this only adds the codicons' URI. */
import { webviewHtml } from '../../webview/page';
import type { PageBuilder } from './webview-host';

export const webviewPage: PageBuilder = (p) =>
  webviewHtml({
    scriptUri: p.scriptUri,
    styleUri: p.styleUri,
    codiconsUri: p.codiconsUri,
    cspSource: p.cspSource,
    nonce: p.nonce,
    title: p.title,
  });
