// The webview's test bench: the built page (dist/webview.js, dist/webview.css, the codicons)
// served on loopback exactly as webviewHtml() builds it, CSP included, in Debian's headless
// Chromium driven by playwright-core, with a stand-in for VS Code's acquireVsCodeApi that records
// what the page posts and keeps its state across reloads as VS Code does.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { webviewHtml } from '../../webview/page';

export const CHROMIUM = '/usr/bin/chromium';
/** How long a test waits for the page to show something: generous, since a busy 2-core machine is slow, not wrong. */
export const WAIT_MS = 20_000;
const root = join(__dirname, '..', '..');

/** The files the page may load, and nothing else. */
const SERVED: Record<string, string> = {
  '/dist/webview.js': 'dist/webview.js',
  '/dist/webview.css': 'dist/webview.css',
  '/dist/codicons/codicon.css': 'dist/codicons/codicon.css',
  '/dist/codicons/codicon.ttf': 'dist/codicons/codicon.ttf',
};
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.ttf': 'font/ttf', '.html': 'text/html' };

// Runs in the page before its own script (playwright injects it outside the page's CSP).
const STAND_IN = `(() => {
  window.__posted = [];
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi called twice');
    acquired = true;
    return {
      postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
      getState: () => { const s = sessionStorage.getItem('vscode-state'); return s === null ? undefined : JSON.parse(s); },
      setState: (s) => sessionStorage.setItem('vscode-state', JSON.stringify(s)),
    };
  };
})();`;

/** Colours of VS Code's Dark Modern and Light Modern themes, as the editor sets them on the page. */
export const THEMES = {
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      'font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
      'font-size': '13px',
      'editor-font-family': '"Droid Sans Mono", "monospace", monospace',
      foreground: '#cccccc',
      descriptionForeground: '#9d9d9d',
      'editor-background': '#1f1f1f',
      'editorWidget-background': '#202020',
      'panel-border': '#2b2b2b',
      'widget-border': '#313131',
      focusBorder: '#0078d4',
      'button-background': '#0078d4',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#026ec1',
      'button-secondaryBackground': '#313131',
      'button-secondaryForeground': '#cccccc',
      'button-secondaryHoverBackground': '#3c3c3c',
      'button-border': '#ffffff12',
      'badge-background': '#616161',
      'badge-foreground': '#f8f8f8',
      errorForeground: '#f85149',
      'editorWarning-foreground': '#cca700',
      'testing-iconPassed': '#73c991',
      'charts-blue': '#3794ff',
      'charts-orange': '#d18616',
      'charts-purple': '#b180d7',
      'charts-green': '#89d185',
      disabledForeground: '#cccccc80',
      'list-activeSelectionBackground': '#04395e',
      'list-activeSelectionForeground': '#ffffff',
      'textBlockQuote-background': '#2b2b2b',
      'icon-foreground': '#cccccc',
      'sideBar-background': '#181818',
      'sideBarSectionHeader-background': '#181818',
      'sideBarTitle-foreground': '#cccccc',
    },
  },
  light: {
    bodyClass: 'vscode-light',
    vars: {
      'font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
      'font-size': '13px',
      'editor-font-family': '"Droid Sans Mono", "monospace", monospace',
      foreground: '#3b3b3b',
      descriptionForeground: '#3b3b3b',
      'editor-background': '#ffffff',
      'editorWidget-background': '#f8f8f8',
      'panel-border': '#e5e5e5',
      'widget-border': '#e5e5e5',
      focusBorder: '#005fb8',
      'button-background': '#005fb8',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#0258a8',
      'button-secondaryBackground': '#e5e5e5',
      'button-secondaryForeground': '#3b3b3b',
      'button-secondaryHoverBackground': '#cccccc',
      'button-border': '#0000001a',
      'badge-background': '#cccccc',
      'badge-foreground': '#3b3b3b',
      errorForeground: '#f85149',
      'editorWarning-foreground': '#bf8803',
      'testing-iconPassed': '#388a34',
      'charts-blue': '#1a85ff',
      'charts-orange': '#d18616',
      'charts-purple': '#652d90',
      'charts-green': '#388a34',
      disabledForeground: '#61616180',
      'list-activeSelectionBackground': '#e8e8e8',
      'list-activeSelectionForeground': '#000000',
      'textBlockQuote-background': '#f8f8f8',
      'icon-foreground': '#3b3b3b',
      'sideBar-background': '#f8f8f8',
      'sideBarSectionHeader-background': '#f8f8f8',
      'sideBarTitle-foreground': '#3b3b3b',
    },
  },
  highContrast: {
    bodyClass: 'vscode-high-contrast',
    vars: {
      'font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
      'font-size': '13px',
      'editor-font-family': '"Droid Sans Mono", "monospace", monospace',
      foreground: '#ffffff',
      descriptionForeground: '#ffffffb3',
      'editor-background': '#000000',
      'editorWidget-background': '#0c141f',
      'panel-border': '#6fc3df',
      'widget-border': '#6fc3df',
      contrastBorder: '#6fc3df',
      focusBorder: '#f38518',
      'button-background': '#000000',
      'button-foreground': '#ffffff',
      'button-border': '#6fc3df',
      'button-secondaryBackground': '#000000',
      'button-secondaryForeground': '#ffffff',
      'badge-background': '#000000',
      'badge-foreground': '#ffffff',
      errorForeground: '#f48771',
      'editorWarning-foreground': '#ffd370',
      'testing-iconPassed': '#73c991',
      'charts-blue': '#3794ff',
      'charts-orange': '#d18616',
      'charts-purple': '#b180d7',
      'charts-green': '#89d185',
      disabledForeground: '#a5a5a5',
      'list-activeSelectionBackground': '#000000',
      'list-activeSelectionForeground': '#ffffff',
      'textBlockQuote-background': '#000000',
      'icon-foreground': '#ffffff',
      'sideBar-background': '#000000',
      'sideBarSectionHeader-background': '#000000',
      'sideBarTitle-foreground': '#ffffff',
    },
  },
} as const;
export type ThemeName = keyof typeof THEMES;

export interface Bench {
  origin: string;
  context: BrowserContext;
  /** A fresh page with the webview loaded and its `ready` posted. */
  open(opts?: { clock?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

export async function startBench(): Promise<Bench> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
      return;
    }
    const file = SERVED[url.pathname];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(join(root, file)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const page = webviewHtml({
    scriptUri: `${origin}/dist/webview.js`,
    styleUri: `${origin}/dist/webview.css`,
    codiconsUri: `${origin}/dist/codicons/codicon.css`,
    cspSource: origin,
    nonce: randomBytes(16).toString('base64'),
  });

  const userDataDir = mkdtempSync(join(tmpdir(), 'rollouts-webview-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 900, height: 1000 },
    timeout: 30_000,
  });
  await context.addInitScript({ content: STAND_IN });

  return {
    origin,
    context,
    async open(opts = {}) {
      const p = await context.newPage();
      if (opts.clock) await p.clock.install({ time: new Date('2026-03-02T10:00:45Z') });
      await p.goto(`${origin}/`);
      await p.waitForFunction(() => (window as unknown as { __posted: unknown[] }).__posted.length > 0, undefined, { timeout: WAIT_MS });
      return p;
    },
    async close() {
      await context.close().catch(() => undefined);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Sends a message to the page as the extension host does (a window message event). */
export async function send(page: Page, message: unknown): Promise<void> {
  await page.evaluate((m) => window.postMessage(m, '*'), message);
}

export async function posted(page: Page): Promise<unknown[]> {
  return page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
}

/** Waits until the page has posted at least `n` messages, and returns them. */
export async function postedAtLeast(page: Page, n: number): Promise<unknown[]> {
  await page.waitForFunction((count) => (window as unknown as { __posted: unknown[] }).__posted.length >= count, n, { timeout: WAIT_MS });
  return posted(page);
}

export async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
}

/** Applies a theme the way VS Code does: CSS variables on <html>, a class on <body>. */
export async function applyTheme(page: Page, theme: ThemeName): Promise<void> {
  const t = THEMES[theme];
  await page.evaluate(
    ({ bodyClass, vars }) => {
      for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(`--vscode-${k}`, v);
      document.body.classList.remove('vscode-dark', 'vscode-light', 'vscode-high-contrast');
      document.body.classList.add(bodyClass);
    },
    { bodyClass: t.bodyClass, vars: t.vars as Record<string, string> },
  );
}
