/**
 * src/server/main.ts: the language server process. A switchboard: one line per LSP method into
 * the language service (service.ts), plus the workspace bookkeeping that needs I/O (the scan
 * for Services, file events). Start: `node dist/server.js --stdio` or `--node-ipc`.
 */
import {
  CodeLensRefreshRequest,
  createConnection,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  InlayHintRefreshRequest,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  CodeActionKind,
  LSPErrorCodes,
  ResponseError,
  type Connection,
  type Location,
  type TextEdit,
  type InitializeParams,
  type MessageActionItem,
  type TextDocumentIdentifier,
} from 'vscode-languageserver/node';
import { dirname, isAbsolute, join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createLanguageService, type RenamePlaces } from './service';
import { renameProblem, type ReferenceTarget } from './references';
import { argumentRenameProblem } from './template-args';
import { createWorkspaceIndex, isYamlFileName, KUSTOMIZATION_FILE_NAMES, readRuleOverrides, type RuleOverrides } from '../schema';
import { createValidationQueue } from './validation-queue';
import { DEFAULT_SCAN_LIMITS, definitionsInPath, forEachYamlFile, readYamlFile, scanFolders } from './workspace-scan';
import { fileKey, isInside, pathToUri } from './uri';
import type { ServerOptions } from './protocol';
import { warmUp, type WarmUp } from './warm-up';
import { createInputWatch } from './input-watch';
import { semanticTokenLegend } from './semantic-tokens';
import { createKustomizations, isKustomizationFile } from './kustomizations';

const TRANSPORTS = ['--stdio', '--node-ipc', '--socket=', '--pipe='];
if (!process.argv.some((a) => TRANSPORTS.some((t) => a.startsWith(t)))) {
  process.stderr.write('usage: node dist/server.js --stdio | --node-ipc | --socket=PORT | --pipe=NAME\n');
  process.exit(2);
}

const connection: Connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
const workspace = createWorkspaceIndex();
/** Until the start-up scan is done, Service references are not checked (rather than reported missing). */
let scanning = false;
/** What kustomizations say of files: patches are validated as parts of objects, resources with the labels they add. */
const kustomizations = createKustomizations();
/** The `rollouts.lint.rules` setting, as last read from the client (workspace/configuration). */
let ruleOverrides: RuleOverrides = {};
const service = createLanguageService({
  ruleOverrides: () => ruleOverrides,
  workspace,
  workspaceKnown: () => !scanning,
  isPatch: (uri) => kustomizations.isPatch(fileKey(uri)),
  kustomized: (uri) => kustomizations.kustomized(fileKey(uri)),
});
const log = (what: string, e: unknown) => connection.console.error(`${what}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);

let options: ServerOptions = {};
let folders: string[] = [];
let watchFilesDynamically = false;
/** The client asks again for code lenses and inlay hints when told to (they change when a file becomes a patch or stops being one). */
let refreshLenses = false;
let refreshHints = false;

/** What was last published per document, so a re-validation that changes nothing sends nothing. */
const published = new Map<string, { version: number; json: string }>();
const newQueue = (delayMs: number) =>
  createValidationQueue({ delayMs, run: (uri) => validateOpen(uri), onError: (e) => log('validation failed', e) });
let queue = newQueue(0);
/** The client's bytes (over stdio): idle work gives way to a message that is arriving. */
const input = createInputWatch();
/** The idle warm-up while it may run: the first opened document ends it. */
let warming: WarmUp | undefined;
let folderEvents = false;
/** The client answers workspace/configuration, and tells of changes once registered for them. */
let configurationPull = false;
let configurationEvents = false;

/** Validates an open document at its current version and re-queues the documents that depend on its Services. */
function validateOpen(uri: string): void {
  const doc = documents.get(uri);
  if (!doc) return;
  const changed = service.indexServices(doc);
  const diagnostics = service.validate(doc);
  const json = JSON.stringify(diagnostics);
  const last = published.get(uri);
  if (!last || last.version !== doc.version || last.json !== json) {
    published.set(uri, { version: doc.version, json });
    void connection.sendDiagnostics({ uri, version: doc.version, diagnostics });
  }
  if (changed.size > 0) scheduleDependents(changed, uri);
}

/** Queues every open document whose diagnostics can depend on definitions with these names. */
function scheduleDependents(names: ReadonlySet<string>, except?: string): void {
  if (names.size === 0) return;
  for (const doc of documents.all()) {
    if (doc.uri !== except && service.dependsOn(doc, names)) queue.schedule(doc.uri);
  }
}

const openDocument = (path: string) => documents.all().find((d) => fileKey(d.uri) === path);
const isOpen = (path: string) => openDocument(path) !== undefined;
/** What a kustomization or patch file says is what the editor shows: an open document's text, else the file on disk. */
const currentText = (path: string): Promise<string | undefined> => {
  const doc = openDocument(path);
  return doc ? Promise.resolve(doc.getText()) : readYamlFile(path, scanLimits().maxFileBytes);
};
const inFolders = (path: string) => folders.some((f) => isInside(path, f));

async function reindexFromDisk(path: string): Promise<void> {
  if (isOpen(path)) return; // an open document's text wins over the disk
  const definitions = await definitionsInPath(path);
  if (isOpen(path)) return;
  scheduleDependents(workspace.setFile(path, definitions));
}

const scanLimits = () => ({ ...DEFAULT_SCAN_LIMITS, maxFiles: options.maxScannedFiles ?? DEFAULT_SCAN_LIMITS.maxFiles });

async function scan(roots: readonly string[]): Promise<void> {
  if (options.scanWorkspace === false || roots.length === 0) return;
  const limits = scanLimits();
  const changed = new Set<string>();
  const result = await scanFolders(roots, {
    found: (path, definitions) => {
      // A folder removed while its scan ran contributes nothing.
      if (!isOpen(path) && inFolders(path)) for (const n of workspace.setFile(path, definitions)) changed.add(n);
    },
    limits,
    skip: isOpen,
    kustomization: (path, text) => {
      if (inFolders(path) && !isOpen(path)) kustomizations.record(path, text);
    },
    pause: input.untilQuiet,
  });
  if (result.truncated)
    connection.console.warn(`workspace scan stopped after ${result.files} YAML files; Services in the rest are not known`);
  scheduleDependents(changed);
  await kustomizationsRecorded();
}

const scheduleAll = () => {
  for (const doc of documents.all()) queue.schedule(doc.uri);
};

/**
 * Kustomizations were recorded: works out what they say of files, with the patch files they name
 * read first, and validates again if that changed.
 */
async function kustomizationsRecorded(): Promise<void> {
  let changed = kustomizations.settle();
  const unread = kustomizations.unreadPatches();
  if (unread.length > 0) {
    for (const file of unread) kustomizations.recordPatch(file, await currentText(file));
    changed = kustomizations.settle() || changed;
  }
  if (changed) kustomizeChanged();
}

/** What kustomizations say of files changed (which are patches, what they add to Rollouts): diagnostics, lenses and hints may change. */
function kustomizeChanged(): void {
  scheduleAll();
  if (refreshLenses) void connection.sendRequest(CodeLensRefreshRequest.type).catch((e) => log('code lens refresh failed', e));
  if (refreshHints) void connection.sendRequest(InlayHintRefreshRequest.type).catch((e) => log('inlay hint refresh failed', e));
}

/** A kustomization changed (in the editor, or on disk) or went: the open documents are validated again if that changes what it says of files. */
async function rereadKustomization(path: string, deleted: boolean): Promise<void> {
  kustomizations.record(path, deleted ? undefined : await currentText(path));
  await kustomizationsRecorded();
}

/** A patch file changed (in the editor, or on disk) or went: the Rollouts it gives fields to may be validated again. */
async function rereadPatch(path: string, deleted: boolean): Promise<void> {
  kustomizations.recordPatch(path, deleted ? undefined : await currentText(path));
  await kustomizationsRecorded();
}

/** A kustomization of the workspace (with no folders, any the editor shows). */
const isWorkspaceKustomization = (path: string) => isKustomizationFile(path) && (folders.length === 0 || inFolders(path));

/** A file changed, was closed, or went: if it is a kustomization or a patch, what it says is read again (its text as the editor shows it). */
function kustomizeFileChanged(path: string, deleted: boolean): void {
  if (isWorkspaceKustomization(path)) void rereadKustomization(path, deleted).catch((err) => log('reading a kustomization failed', err));
  if (kustomizations.isPatch(path)) void rereadPatch(path, deleted).catch((err) => log('reading a kustomize patch failed', err));
}

/** The sentence last shown about the setting, so that each problem is told once, not on every change. */
let ruleSettingProblems = '';

/** Takes the `rollouts.lint.rules` value: what is wrong in it is shown; a change validates the open documents again. */
function setRuleSetting(value: unknown): void {
  const { overrides, problems } = readRuleOverrides(value);
  const told = problems.join('; ');
  if (told && told !== ruleSettingProblems)
    // A request (window/showMessageRequest) whichever overload is called: its failure is logged, not left unhandled.
    void connection.window
      .showWarningMessage<MessageActionItem>(`Setting rollouts.lint.rules: ${told}.`)
      .catch((e: unknown) => log('showing a message failed', e));
  ruleSettingProblems = told;
  if (JSON.stringify(overrides) === JSON.stringify(ruleOverrides)) return;
  ruleOverrides = overrides;
  scheduleAll();
}

/** Asks the client for `rollouts.lint` (workspace/configuration), when it answers such requests. */
async function readRuleSetting(): Promise<void> {
  if (!configurationPull) return;
  const section = (await connection.workspace.getConfiguration('rollouts.lint')) as { rules?: unknown } | null;
  setRuleSetting(section?.rules);
}

// Lifecycle
connection.onInitialize((params: InitializeParams) => {
  options = (params.initializationOptions ?? {}) as ServerOptions;
  folders = (params.workspaceFolders ?? (params.rootUri ? [{ uri: params.rootUri, name: '' }] : []))
    .filter((f) => f.uri.startsWith('file:'))
    .map((f) => fileKey(f.uri));
  watchFilesDynamically = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
  refreshLenses = params.capabilities.workspace?.codeLens?.refreshSupport === true;
  refreshHints = params.capabilities.workspace?.inlayHint?.refreshSupport === true;
  folderEvents = params.capabilities.workspace?.workspaceFolders === true;
  configurationPull = params.capabilities.workspace?.configuration === true;
  configurationEvents = params.capabilities.workspace?.didChangeConfiguration?.dynamicRegistration === true;
  queue = newQueue(Math.max(0, Number(options.validationDelayMs ?? 0)) || 0);
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      hoverProvider: true,
      completionProvider: { triggerCharacters: [' ', '.', '{'] }, // after "- " and "key: "; in a condition, after `result[0].` and `{{`
      documentSymbolProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite] },
      codeLensProvider: { resolveProvider: false },
      definitionProvider: true,
      referencesProvider: true,
      renameProvider: { prepareProvider: true },
      inlayHintProvider: true,
      semanticTokensProvider: { legend: semanticTokenLegend, full: true },
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'argo-rollouts-language-server' },
  };
});
connection.onInitialized(() => {
  if (configurationEvents) void connection.client.register(DidChangeConfigurationNotification.type, { section: 'rollouts' });
  void readRuleSetting().catch((e) => log('reading rollouts.lint.rules failed', e));
  if (watchFilesDynamically) {
    void connection.client.register(DidChangeWatchedFilesNotification.type, {
      watchers: [{ globPattern: '**/*.{yaml,yml}' }, { globPattern: '**/Kustomization' }],
    });
  }
  // The connection listens by now, so its reader has every byte this listener sees.
  if (process.argv.includes('--stdio')) input.watch(process.stdin);
  // Until a document opens, the idle server validates a sample so that the first file meets compiled code.
  if (options.warmUp !== false) {
    const started = performance.now();
    warming = warmUp({
      stop: () => documents.all().length > 0,
      inputQuietFor: input.quietFor,
      done: (slices) =>
        connection.console.log(`warm-up: ${slices} sample slices validated in ${Math.round(performance.now() - started)} ms`),
      failed: (e) => log('warm-up failed', e),
    });
  }
  // Open documents are validated at once; their Service references are checked when the scan is done.
  scanning = folders.length > 0 && options.scanWorkspace !== false;
  void scan(folders)
    .catch((e) => log('workspace scan failed', e))
    .finally(() => {
      scanning = false;
      scheduleAll();
    });
  if (folderEvents)
    connection.workspace.onDidChangeWorkspaceFolders((e) => {
      const added = e.added.filter((f) => f.uri.startsWith('file:')).map((f) => fileKey(f.uri));
      const removed = e.removed.map((f) => fileKey(f.uri));
      folders = [...folders.filter((f) => !removed.includes(f)), ...added];
      // What the removed folders' files defined leaves the workspace (an open document keeps its text's definitions),
      // and the Rollouts that named it are validated again.
      const changed = new Set<string>();
      for (const path of workspace.files()) {
        if (isOpen(path) || inFolders(path) || !removed.some((r) => isInside(path, r))) continue;
        for (const n of workspace.removeFile(path)) changed.add(n);
      }
      scheduleDependents(changed);
      for (const k of kustomizations.paths()) if (!inFolders(k)) kustomizations.record(k, undefined);
      void kustomizationsRecorded().catch((err) => log('reading kustomize patches failed', err));
      void scan(added).catch((err) => log('workspace scan failed', err));
    });
});

// A client that pushes its settings sends them here; one that is asked for them is asked again.
connection.onDidChangeConfiguration((p) => {
  if (configurationPull) void readRuleSetting().catch((e) => log('reading rollouts.lint.rules failed', e));
  else setRuleSetting((p.settings as { rollouts?: { lint?: { rules?: unknown } } } | null)?.rollouts?.lint?.rules);
});

// Documents
documents.onDidChangeContent((e) => {
  queue.schedule(e.document.uri);
  // An open kustomization or patch counts as typed, saved or not, as an open manifest's Services do.
  kustomizeFileChanged(fileKey(e.document.uri), false);
});
// The kustomization beside an opened file is read at once, not when the scan reaches it (or, with no folders, never).
documents.onDidOpen((e) => {
  warming?.stop();
  const path = fileKey(e.document.uri);
  if (!isAbsolute(path)) return;
  for (const name of KUSTOMIZATION_FILE_NAMES) kustomizeFileChanged(join(dirname(path), name), false);
});
documents.onDidClose((e) => {
  service.forget(e.document.uri);
  published.delete(e.document.uri);
  void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  const path = fileKey(e.document.uri);
  // A closed kustomization or patch: its text on disk counts again (undefined, as gone, when it was never saved).
  kustomizeFileChanged(path, false);
  // The closed text may never have been saved: what counts now is the disk, if the file is in the workspace
  // (with no folders at all, every file the editor showed is).
  if (folders.length > 0 && !inFolders(path)) scheduleDependents(workspace.removeFile(path));
  else if (path.startsWith('/') || /^[A-Za-z]:/.test(path))
    void reindexFromDisk(path).catch((err) => log('re-reading a closed file failed', err));
  else scheduleDependents(workspace.removeFile(path));
});
connection.onDidChangeWatchedFiles((p) => {
  for (const change of p.changes) {
    const path = fileKey(change.uri);
    // The disk counts for a kustomization or patch file that is not open (an open one counts as the editor shows it).
    if (isOpen(path)) continue;
    kustomizeFileChanged(path, change.type === FileChangeType.Deleted);
    if (!isYamlFileName(path)) continue;
    if (change.type === FileChangeType.Deleted) scheduleDependents(workspace.removeFile(path));
    else void reindexFromDisk(path).catch((e) => log('re-reading a changed file failed', e));
  }
});

// Language features: one line each.
const withDocument = <T>(id: TextDocumentIdentifier, none: T, f: (doc: TextDocument) => T): T => {
  const doc = documents.get(id.uri);
  if (!doc) return none;
  try {
    return f(doc);
  } catch (e) {
    log(`request on ${id.uri} failed`, e);
    return none;
  }
};
connection.onHover((p) => withDocument(p.textDocument, null, (doc) => service.hover(doc, p.position)));
connection.onCompletion((p) => withDocument(p.textDocument, null, (doc) => service.complete(doc, p.position)));
connection.onDocumentSymbol((p) => withDocument(p.textDocument, [], (doc) => service.symbols(doc)));
connection.onCodeAction((p) => withDocument(p.textDocument, [], (doc) => service.codeActions(doc, p.range, p.context.diagnostics)));
connection.onCodeLens((p) => withDocument(p.textDocument, [], (doc) => service.codeLenses(doc)));
connection.onDefinition((p) => withDocument(p.textDocument, [], (doc) => service.definition(doc, p.position)));
/**
 * Calls `open` on each open document and `onDisk` on the text of each of the workspace's other
 * YAML files (read now: the scan keeps only definitions).
 */
async function forEachWorkspaceText(open: (doc: TextDocument) => void, onDisk: (uri: string, text: string) => void): Promise<void> {
  for (const doc of documents.all()) withDocument(doc, undefined, () => open(doc));
  if (options.scanWorkspace === false) return;
  const limits = scanLimits();
  await forEachYamlFile(folders, limits, async (path) => {
    if (isOpen(path)) return;
    const text = await readYamlFile(path, limits.maxFileBytes);
    if (text !== undefined) onDisk(pathToUri(path), text);
  });
}
/** Every value that names the target. */
async function referencesTo(target: ReferenceTarget): Promise<Location[]> {
  const found: Location[] = [];
  await forEachWorkspaceText(
    (doc) => found.push(...service.references(doc, target)),
    (uri, text) => found.push(...service.referencesInText(uri, text, target)),
  );
  return found;
}
connection.onReferences(async (p) => {
  const at = withDocument(p.textDocument, undefined, (doc) => service.referenceAt(doc, p.position));
  if (!at) return [];
  const found = await referencesTo(at.target);
  return p.context.includeDeclaration ? [...service.declarations(at.target), ...found] : found;
});
connection.onPrepareRename((p) => withDocument(p.textDocument, null, (doc) => service.referenceAt(doc, p.position)?.range ?? null));
connection.onRenameRequest(async (p) => {
  const at = withDocument(p.textDocument, undefined, (doc) => service.referenceAt(doc, p.position));
  if (!at) {
    throw new ResponseError(
      LSPErrorCodes.RequestFailed,
      "Only the name of a Service, an analysis template, a workload, an Ingress or a VirtualService, or a Rollout value that names one, or an analysis template's argument, can be renamed here",
    );
  }
  const problem = at.target.argument === undefined ? renameProblem(at.target.kind, p.newName) : argumentRenameProblem(p.newName);
  if (problem) throw new ResponseError(LSPErrorCodes.RequestFailed, problem);
  const { target } = at;
  // The definitions and every Rollout value that names them change together, unless a value also names something else.
  const found: Location[] = [];
  const problems: string[] = [];
  const add = (places: RenamePlaces) => {
    found.push(...places.references);
    problems.push(...places.problems);
  };
  await forEachWorkspaceText(
    (doc) => add(service.renamePlaces(doc, target)),
    (uri, text) => add(service.renamePlacesInText(uri, text, target)),
  );
  if (problems.length > 0)
    throw new ResponseError(LSPErrorCodes.RequestFailed, `Cannot rename "${target.argument ?? target.name}": ${problems.join('; ')}.`);
  const changes: Record<string, TextEdit[]> = {};
  for (const l of [...service.declarations(target), ...found]) (changes[l.uri] ??= []).push({ range: l.range, newText: p.newName });
  return { changes };
});
connection.languages.inlayHint.on((p) => withDocument(p.textDocument, [], (doc) => service.inlayHints(doc, p.range)));
connection.languages.semanticTokens.on((p) => withDocument(p.textDocument, { data: [] }, (doc) => service.semanticTokens(doc)));

process.on('uncaughtException', (e) => log('uncaught exception', e));
documents.listen(connection);
connection.listen();
