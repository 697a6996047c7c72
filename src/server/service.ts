/**
 * The Rollout language service: a plain object over TextDocuments. No Connection, no editor:
 * everything it needs is passed in, so the server, the CLI and tests call the same code.
 */
import type {
  CodeAction,
  CodeLens,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  Hover,
  InlayHint,
  Location,
  Position,
  Range,
} from 'vscode-languageserver-types';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createWorkspaceIndex, type Kustomized, type MutableWorkspaceIndex, type RuleOverrides } from '../schema';
import { createParseCache, definitionsOf as fileDefinitions, parseWhole, type FileParse, type ParseCache } from './documents';
import { controlDiagnostics, createPieceValidator, fileDiagnostics } from './diagnostics';
import { disableFixes } from './disable-fixes';
import { documentSymbols } from './symbols';
import { quickFixes } from './code-actions';
import { deploymentConversions } from './convert-actions';
import { hoverAt } from './hover';
import { completionsAt } from './completion';
import { definitionAt } from './definition';
import { simulateLenses } from './code-lens';
import { inlayHintsIn } from './inlay-hints';
import { encodeSemanticTokens, semanticTokensOf } from './semantic-tokens';
import { definitionsOf, referenceAt, referencesIn, resolvedTarget, type ReferenceTarget } from './references';
import { argumentAt, argumentReferences, sharedArgumentProblems } from './template-args';
import { fileKey } from './uri';

export interface RolloutLanguageService {
  validate(doc: TextDocument): Diagnostic[];
  hover(doc: TextDocument, at: Position): Hover | null;
  complete(doc: TextDocument, at: Position): CompletionList;
  symbols(doc: TextDocument): DocumentSymbol[];
  codeActions(doc: TextDocument, range: Range, diagnostics: readonly Diagnostic[]): CodeAction[];
  codeLenses(doc: TextDocument): CodeLens[];
  /** What each setWeight / setCanaryScale step in `range` leads to (pods and weight), as inlay hints. */
  inlayHints(doc: TextDocument, range: Range): InlayHint[];
  /** What is special in its Argo documents (strategy, step kinds, kind, durations, percentages), LSP-encoded (semantic-tokens.ts's legend). */
  semanticTokens(doc: TextDocument): { data: number[] };
  /** From a Rollout's reference (a Service, templateName, workloadRef.name) to what it names. */
  definition(doc: TextDocument, at: Position): Location[];
  /**
   * What the cursor stands for that Rollouts can name (a definition's name or a reference to one,
   * or an analysis template's argument), and where that name is.
   */
  referenceAt(doc: TextDocument, at: Position): { target: ReferenceTarget; range: Range } | undefined;
  /** The values in the document that name the target. */
  references(doc: TextDocument, target: ReferenceTarget): Location[];
  /** The same, in the text of a file that is not open (read from disk by the server). */
  referencesInText(uri: string, text: string, target: ReferenceTarget): Location[];
  /**
   * What renaming the target touches in the document: the values that name it (as `references`
   * gives them), and why the rename would break a manifest, one line per place (none when it is
   * safe; only arguments have such places: an analysis block that passes the argument to two
   * templates declaring it, template-args.ts).
   */
  renamePlaces(doc: TextDocument, target: ReferenceTarget): RenamePlaces;
  /** The same, in the text of a file that is not open (parsed once for both). */
  renamePlacesInText(uri: string, text: string, target: ReferenceTarget): RenamePlaces;
  /** Where the workspace defines the target (an object's metadata.name; an argument's name in its template's spec.args). */
  declarations(target: ReferenceTarget): Location[];
  /** The parse of the document's current version (cached by URI and version). */
  parse(doc: TextDocument): FileParse;
  /** Puts an open document's Services and analysis templates into the workspace index; returns the names that changed. */
  indexServices(doc: TextDocument): Set<string>;
  /**
   * Whether the document's diagnostics can depend on definitions with one of these names: its
   * Rollouts mention the name, or they name something not found (its "did you mean" reads every name).
   */
  dependsOn(doc: TextDocument, names: ReadonlySet<string>): boolean;
  /** Drops what is cached for a closed document. */
  forget(uri: string): void;
}

export interface ServiceDeps {
  workspace?: MutableWorkspaceIndex;
  /** False while the workspace's Services are still being found: references are then not checked yet. */
  workspaceKnown?: () => boolean;
  parses?: ParseCache;
  /** Whether a kustomization uses the file (by URI) as a patch: it then gets only the findings that hold for part of an object. */
  isPatch?: (uri: string) => boolean;
  /** What kustomizations do to the file's (by URI) Rollouts: labels they add, fields their patches give. */
  kustomized?: (uri: string) => Kustomized | undefined;
  /** The `rollouts.lint.rules` setting as read (schema/rule-control.ts): a code off, or at another severity. */
  ruleOverrides?: () => RuleOverrides;
}

export interface RenamePlaces {
  references: Location[];
  problems: string[];
}

function renamePlacesInFile(file: FileParse, doc: TextDocument, target: ReferenceTarget, workspace: MutableWorkspaceIndex): RenamePlaces {
  const { argument } = target;
  return {
    references: referencesInFile(file, doc, target),
    problems: argument === undefined ? [] : sharedArgumentProblems(file, doc, { ...target, argument }, workspace),
  };
}

/** Only a text that has the target's name (and its argument's) can refer to it; the rest is not parsed. */
const mayName = (text: string, target: ReferenceTarget) =>
  text.includes(target.name) && (target.argument === undefined || text.includes(target.argument));

function referencesInFile(file: FileParse, doc: TextDocument, target: ReferenceTarget): Location[] {
  const { argument } = target;
  return argument === undefined ? referencesIn(file, doc, target) : argumentReferences(file, doc, { ...target, argument });
}

export function createLanguageService(deps: ServiceDeps = {}): RolloutLanguageService {
  const workspace = deps.workspace ?? createWorkspaceIndex();
  const parses = deps.parses ?? createParseCache();
  const validator = createPieceValidator(workspace, deps.workspaceKnown);
  const mentions = new WeakMap<FileParse, ReadonlySet<string>>();
  const isPatch = (doc: TextDocument) => deps.isPatch?.(doc.uri) === true;

  const service: RolloutLanguageService = {
    validate(doc) {
      const file = parses.get(doc);
      const diagnostics = fileDiagnostics(file, doc, validator, { patch: isPatch(doc), kustomized: deps.kustomized?.(doc.uri) });
      // Only a file that is ours has its disable comments read (other YAML is left alone, as fileDiagnostics leaves it).
      return file.validated ? controlDiagnostics(doc, diagnostics, deps.ruleOverrides?.() ?? {}) : diagnostics;
    },
    hover: (doc, at) => hoverAt(parses.get(doc), doc, at, workspace),
    complete: (doc, at) =>
      completionsAt(parses.get(doc), doc, at, {
        templates: () => workspace.analysisTemplates(),
        workloads: () => workspace.workloads(),
        services: () => workspace.services(),
        routerObjects: () => workspace.routerObjects(),
      }),
    symbols: (doc) => documentSymbols(parses.get(doc), doc),
    codeActions(doc, range) {
      const file = parses.get(doc);
      const current = service.validate(doc);
      return [
        ...quickFixes(file, doc, range, current),
        ...disableFixes(file, doc, range, current),
        // A kustomization's patch is part of an object: converting it would not convert the object.
        ...(isPatch(doc) ? [] : deploymentConversions(file, doc, range, () => workspace.services())),
      ];
    },
    // A patch is not a Rollout to simulate: its replicas and steps meet the base's only in `kustomize build`.
    codeLenses: (doc) => (isPatch(doc) ? [] : simulateLenses(parses.get(doc), doc)),
    inlayHints: (doc, range) => (isPatch(doc) ? [] : inlayHintsIn(parses.get(doc), doc, range)),
    semanticTokens: (doc) => encodeSemanticTokens(semanticTokensOf(parses.get(doc)), doc),
    definition: (doc, at) => definitionAt(parses.get(doc), doc, at, workspace, deps.kustomized?.(doc.uri)?.peers),
    referenceAt(doc, at) {
      const file = parses.get(doc);
      const found = referenceAt(file, doc, at) ?? argumentAt(file, doc, at, workspace);
      return found && { ...found, target: resolvedTarget(workspace, found.target) };
    },
    references: (doc, target) => referencesInFile(parses.get(doc), doc, target),
    referencesInText: (uri, text, target) =>
      mayName(text, target) ? referencesInFile(parseWhole(uri, text), TextDocument.create(uri, 'yaml', 0, text), target) : [],
    renamePlaces: (doc, target) => renamePlacesInFile(parses.get(doc), doc, target, workspace),
    renamePlacesInText: (uri, text, target) =>
      mayName(text, target)
        ? renamePlacesInFile(parseWhole(uri, text), TextDocument.create(uri, 'yaml', 0, text), target, workspace)
        : { references: [], problems: [] },
    declarations: (target) => definitionsOf(workspace, target),
    parse: (doc) => parses.get(doc),
    indexServices: (doc) => workspace.setFile(fileKey(doc.uri), fileDefinitions(parses.get(doc))),
    dependsOn(doc, names) {
      const file = parses.get(doc);
      let mentioned = mentions.get(file);
      if (!mentioned) {
        mentioned = new Set(file.pieces.flatMap((p) => p.piece.mentions));
        mentions.set(file, mentioned);
      }
      for (const n of names) if (mentioned.has(n)) return true;
      return file.pieces.some((p) => validator.readsWholeWorkspace(p.piece));
    },
    forget: (uri) => parses.drop(uri),
  };
  return service;
}
