/**
 * A real LSP client for tests and the benchmark: spawns a server process, speaks JSON-RPC over
 * its stdio with vscode-jsonrpc, and turns notifications into awaitable events with deadlines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleAsBuilt } from '../support/bundle';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type {
  CodeAction,
  CodeLens,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  Hover,
  InitializeResult,
  Position,
  PublishDiagnosticsParams,
  Range,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver';

let bundle: Promise<string> | undefined;
/** Bundles src/server/main.ts once per process (only this entry, so others' work in progress cannot break it). */
export function serverBundle(): Promise<string> {
  bundle ??= bundleAsBuilt('src/server/main.ts', 'server');
  return bundle;
}

export interface SessionOptions {
  /** The server command; default: node on a fresh bundle of src/server/main.ts. */
  command?: { file: string; args: string[] };
  workspaceFolders?: string[];
  initializationOptions?: unknown;
  /** Answers to workspace/configuration, by section. */
  settings?: (section: string | undefined) => unknown;
  /** Deadline for each awaited event and request, in ms. */
  within?: number;
}

export class LspSession {
  private readonly diagnostics = new Map<string, PublishDiagnosticsParams>();
  private readonly publishCounts = new Map<string, number>();
  configurationRequests = 0;
  /** The refresh requests the server sent (`workspace/codeLens/refresh`, `workspace/inlayHint/refresh`), in order. */
  readonly refreshes: string[] = [];
  private readonly waiters: { test: () => boolean; resolve: () => void; reject: (e: Error) => void; what: string }[] = [];
  private readonly versions = new Map<string, number>();
  readonly stderr: string[] = [];
  exited: { code: number | null; signal: string | null } | undefined;
  registrations: unknown[] = [];

  private constructor(
    readonly process: ChildProcess,
    readonly connection: MessageConnection,
    readonly within: number,
    private readonly settings: ((section: string | undefined) => unknown) | undefined,
  ) {
    connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      this.diagnostics.set(p.uri, p);
      this.publishCounts.set(p.uri, (this.publishCounts.get(p.uri) ?? 0) + 1);
      this.wake();
    });
    connection.onNotification('window/logMessage', (p: { message: string }) => {
      this.stderr.push(p.message);
      this.wake();
    });
    connection.onRequest('client/registerCapability', (p: { registrations: unknown[] }) => {
      this.registrations.push(...p.registrations);
      this.wake();
      return null;
    });
    connection.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => {
      this.configurationRequests++;
      setImmediate(() => this.wake());
      return p.items.map((i) => this.settings?.(i.section) ?? null);
    });
    connection.onRequest('workspace/workspaceFolders', () => null);
    for (const method of ['workspace/codeLens/refresh', 'workspace/inlayHint/refresh']) {
      connection.onRequest(method, () => {
        this.refreshes.push(method);
        this.wake();
        return null;
      });
    }
    connection.onRequest('window/workDoneProgress/create', () => null);
    process.on('exit', (code, signal) => {
      this.exited = { code, signal };
      this.wake();
    });
  }

  static async start(opts: SessionOptions = {}): Promise<LspSession> {
    const command = opts.command ?? { file: process.execPath, args: [await serverBundle(), '--stdio'] };
    const child = spawn(command.file, command.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const session = new LspSession(child, connection, opts.within ?? 10_000, opts.settings);
    child.stderr!.on('data', (d: Buffer) => session.stderr.push(d.toString()));
    connection.listen();
    const folders = (opts.workspaceFolders ?? []).map((f) => ({ uri: toUri(f), name: f }));
    await session.request<InitializeResult>('initialize', {
      processId: process.pid,
      rootUri: folders[0]?.uri ?? null,
      workspaceFolders: folders.length ? folders : null,
      initializationOptions: opts.initializationOptions,
      capabilities: {
        workspace: {
          didChangeWatchedFiles: { dynamicRegistration: true },
          workspaceFolders: true,
          configuration: true,
          didChangeConfiguration: { dynamicRegistration: true },
          codeLens: { refreshSupport: true },
          inlayHint: { refreshSupport: true },
        },
        textDocument: {
          publishDiagnostics: { versionSupport: true, dataSupport: true, relatedInformation: true },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          completion: { completionItem: { snippetSupport: true } },
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
        },
      },
    });
    void session.connection.sendNotification('initialized', {});
    return session;
  }

  request<T>(method: string, params: unknown): Promise<T> {
    return withDeadline(this.connection.sendRequest<T>(method, params), this.within, `${method} did not answer within ${this.within} ms`);
  }

  notify(method: string, params: unknown): void {
    void this.connection.sendNotification(method, params);
  }

  open(uri: string, text: string, languageId = 'yaml'): number {
    this.versions.set(uri, 1);
    this.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
    return 1;
  }

  /** Sends a whole new text, or incremental changes; returns the new version. */
  change(uri: string, change: string | TextDocumentContentChangeEvent[]): number {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    const contentChanges = typeof change === 'string' ? [{ text: change }] : change;
    this.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges });
    return version;
  }

  close(uri: string): void {
    this.versions.delete(uri);
    this.notify('textDocument/didClose', { textDocument: { uri } });
  }

  version(uri: string): number {
    return this.versions.get(uri) ?? 0;
  }

  /** The diagnostics published for the document at (at least) this version, or the current one. */
  async diagnosticsFor(uri: string, version = this.version(uri)): Promise<Diagnostic[]> {
    await this.until(() => {
      const p = this.diagnostics.get(uri);
      return p !== undefined && (p.version ?? 0) >= version;
    }, `diagnostics for ${uri} v${version}`);
    return this.diagnostics.get(uri)!.diagnostics;
  }

  /** Waits until a published set satisfies the test (for diagnostics that change because of another file). */
  async diagnosticsMatching(uri: string, test: (d: Diagnostic[]) => boolean, what: string): Promise<Diagnostic[]> {
    await this.until(() => {
      const p = this.diagnostics.get(uri);
      return p !== undefined && test(p.diagnostics);
    }, what);
    return this.diagnostics.get(uri)!.diagnostics;
  }

  /** Every document the server has published diagnostics for. */
  publishedUris(): string[] {
    return [...this.publishCounts.keys()];
  }

  /** How many times diagnostics were published for the document. */
  publishes(uri: string): number {
    return this.publishCounts.get(uri) ?? 0;
  }

  /** The first diagnostics published after the given publish count (for servers that do not send versions). */
  async diagnosticsAfter(uri: string, count: number): Promise<Diagnostic[]> {
    await this.until(() => this.publishes(uri) > count, `diagnostics for ${uri} after publish ${count}`);
    return this.diagnostics.get(uri)!.diagnostics;
  }

  /** Waits until the server has asked for its configuration (and the answer is on its way). */
  async configured(): Promise<void> {
    await this.until(() => this.configurationRequests > 0, 'a workspace/configuration request');
  }

  /** Waits for the server to register a capability dynamically. */
  async registration(method: string): Promise<unknown> {
    const find = () => this.registrations.find((r) => (r as { method: string }).method === method);
    await this.until(() => find() !== undefined, `registration of ${method}`);
    return find();
  }

  /** The last published diagnostics of a document (undefined if none yet). */
  lastDiagnostics(uri: string): PublishDiagnosticsParams | undefined {
    return this.diagnostics.get(uri);
  }

  hover(uri: string, position: Position): Promise<Hover | null> {
    return this.request('textDocument/hover', { textDocument: { uri }, position });
  }
  completion(uri: string, position: Position): Promise<CompletionList | null> {
    return this.request('textDocument/completion', { textDocument: { uri }, position });
  }
  symbols(uri: string): Promise<DocumentSymbol[]> {
    return this.request('textDocument/documentSymbol', { textDocument: { uri } });
  }
  codeActions(uri: string, range: Range, diagnostics: Diagnostic[]): Promise<CodeAction[]> {
    return this.request('textDocument/codeAction', { textDocument: { uri }, range, context: { diagnostics } });
  }
  codeLenses(uri: string): Promise<CodeLens[]> {
    return this.request('textDocument/codeLens', { textDocument: { uri } });
  }

  /** shutdown, exit, and the process ending; returns its exit code. */
  async stop(): Promise<number | null> {
    if (!this.exited) {
      await this.request('shutdown', null);
      this.notify('exit', null);
      await this.until(() => this.exited !== undefined, 'the server process to exit');
    }
    this.connection.dispose();
    return this.exited!.code;
  }

  kill(): void {
    if (!this.exited) this.process.kill();
    this.connection.dispose();
  }

  /** Resolves once the test holds (checked at each message from the server), fails at the session's deadline. */
  until(test: () => boolean, what: string): Promise<void> {
    if (test()) return Promise.resolve();
    if (this.exited)
      return Promise.reject(new Error(`server exited (${JSON.stringify(this.exited)}) while waiting for ${what}\n${this.stderr.join('')}`));
    return withDeadline(
      new Promise<void>((resolve, reject) => this.waiters.push({ test, resolve, reject, what })),
      this.within,
      `no ${what} within ${this.within} ms`,
    );
  }

  private wake(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (w.test()) {
        this.waiters.splice(i, 1);
        w.resolve();
      } else if (this.exited) {
        this.waiters.splice(i, 1);
        w.reject(new Error(`server exited (${JSON.stringify(this.exited)}) while waiting for ${w.what}\n${this.stderr.join('')}`));
      }
    }
  }
}

/** What `serverInWorkspace` gives a suite; both are set once its `before` hook has run. */
export interface WorkspaceServer {
  /** The workspace's folder (a new temporary one). */
  readonly dir: string;
  readonly lsp: LspSession;
  /** The URI of a file of the workspace, by its path in the folder. */
  uri(path: string): string;
}

/**
 * A server over a workspace of the suite's own, for a mocha suite: its `before` hook writes
 * `files` (paths relative to a new temporary folder; folders are made as needed) and then starts
 * the server, so that the start-up scan reads them; its `after` hook stops the server and removes
 * the folder. `folders` are the workspace folders, relative to that folder (default: the folder).
 */
export function serverInWorkspace(files: Readonly<Record<string, string>>, options: { folders?: readonly string[] } = {}): WorkspaceServer {
  let dir: string | undefined;
  let lsp: LspSession | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rollouts-workspace-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const folders = (options.folders ?? ['.']).map((f) => join(dir!, f));
    for (const folder of folders) mkdirSync(folder, { recursive: true });
    lsp = await LspSession.start({ workspaceFolders: folders });
  });
  after(async () => {
    await lsp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`serverInWorkspace: ${what} is read before the suite's before hook ran`);
    return value;
  };
  return {
    get dir() {
      return ready(dir, 'dir');
    },
    get lsp() {
      return ready(lsp, 'lsp');
    },
    uri(path) {
      return toUri(join(ready(dir, 'dir'), path));
    },
  };
}

export function toUri(path: string): string {
  return new URL(`file://${path.startsWith('/') ? '' : '/'}${path}`).href;
}

function withDeadline<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]);
}

/** Text with one `|` caret: the text without it and the caret's position. */
export function caret(textWithCaret: string): { text: string; position: Position } {
  const at = textWithCaret.indexOf('|');
  if (at < 0) throw new Error('no | caret in the text');
  const text = textWithCaret.slice(0, at) + textWithCaret.slice(at + 1);
  const before = text.slice(0, at).split('\n');
  return { text, position: { line: before.length - 1, character: before[before.length - 1]!.length } };
}

/** A diagnostic's message as text (LSP allows a string or markup). */
export const messageOf = (d: Diagnostic): string => (typeof d.message === 'string' ? d.message : d.message.value);
