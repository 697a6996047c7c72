/** Parsing: text -> YAML documents with source ranges. Never throws; errors are data. */
import { parseAllDocuments, isMap, isScalar, visit, type Document } from 'yaml';
import type { Finding } from './findings';
import { parseCommonYaml } from './fast-yaml';
import { hashBefore } from './ranges';

export interface ParsedDoc {
  readonly index: number;
  readonly doc: Document.Parsed;
  readonly kind?: string;
  readonly apiVersion?: string;
  /** apiVersion argoproj.io/v1alpha1 and kind Rollout: the documents we validate. */
  readonly isRollout: boolean;
  /** apiVersion argoproj.io/v1alpha1 and kind AnalysisTemplate or ClusterAnalysisTemplate: validated with the template catalog. */
  readonly isAnalysisTemplate: boolean;
  /** apiVersion argoproj.io/v1alpha1 and kind Experiment: validated with the Experiment catalog. */
  readonly isExperiment: boolean;
  /**
   * A kind of ours (Rollout, an analysis template, Experiment) under an argoproj.io apiVersion Argo
   * Rollouts does not serve (`argoproj.io/v1`): reported, not validated further.
   */
  readonly unservedVersion?: boolean;
  /** [start, end) offsets of the document in the text. */
  readonly range: [number, number];
}

export interface ParsedFile {
  readonly text: string;
  readonly docs: readonly ParsedDoc[];
  readonly syntaxErrors: readonly Finding[];
  /** The text holds Helm/Go template directives: it is not YAML until rendered, so it is not validated. */
  readonly templated?: boolean;
  /** The parser gave up on the text as a whole (nesting deeper than it can follow): its one syntax error says so. */
  readonly unreadable?: boolean;
}

/**
 * The text with each lone CR as LF. YAML counts CR, LF and CRLF as line breaks, as editors do;
 * the yaml package reads a lone CR as a character of the line. Same length, so every offset holds.
 */
export function normalizeLineBreaks(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
}

export const ROLLOUT_API_VERSION = 'argoproj.io/v1alpha1';
export const ANALYSIS_TEMPLATE_KINDS: readonly string[] = ['AnalysisTemplate', 'ClusterAnalysisTemplate'];
export const EXPERIMENT_KIND = 'Experiment';
/** The kinds Argo Rollouts serves, all as ROLLOUT_API_VERSION. */
export const ARGO_KINDS: readonly string[] = ['Rollout', ...ANALYSIS_TEMPLATE_KINDS, EXPERIMENT_KIND];
const ARGO_GROUP_PREFIX = 'argoproj.io/';

const PARSE_OPTIONS = { prettyErrors: false, keepSourceTokens: false, logLevel: 'error', merge: true } as const;

export function parseFile(source: string): ParsedFile {
  const text = normalizeLineBreaks(source);
  let raw: Document.Parsed[];
  try {
    // Most manifests take the fast path; it gives up on anything unusual and yaml reads it.
    raw = parseCommonYaml(text, PARSE_OPTIONS) ?? Array.from(parseAllDocuments(text, PARSE_OPTIONS) as Iterable<Document.Parsed>);
  } catch (e) {
    // The yaml package reports problems as data; this is only a guard so a library bug never reaches the editor.
    const why =
      e instanceof RangeError ? `it nests deeper than the parser can follow (${e.message})` : e instanceof Error ? e.message : String(e);
    return {
      text,
      docs: [],
      unreadable: true,
      syntaxErrors: [
        {
          code: 'yaml-syntax',
          severity: 'error',
          message: `YAML could not be parsed: ${why}`,
          path: [],
          target: 'value',
          docIndex: 0,
          offsets: [0, Math.min(text.length, 1)],
        },
      ],
    };
  }
  const docs: ParsedDoc[] = [];
  const syntaxErrors: Finding[] = [];
  const directive = templateDirective(text, raw);
  raw.forEach((doc, index) => {
    const contents = doc.contents;
    let kind: string | undefined;
    let apiVersion: string | undefined;
    if (isMap(contents)) {
      for (const pair of contents.items) {
        if (!isScalar(pair.key) || !isScalar(pair.value)) continue;
        if (pair.key.value === 'kind' && typeof pair.value.value === 'string') kind = pair.value.value;
        if (pair.key.value === 'apiVersion' && typeof pair.value.value === 'string') apiVersion = pair.value.value;
      }
    }
    const range: [number, number] = [doc.range[0], doc.range[2]];
    const argo = apiVersion === ROLLOUT_API_VERSION;
    const unservedVersion =
      !argo && kind !== undefined && ARGO_KINDS.includes(kind) && apiVersion !== undefined && apiVersion.startsWith(ARGO_GROUP_PREFIX);
    docs.push({
      index,
      doc,
      kind,
      apiVersion,
      isRollout: argo && kind === 'Rollout',
      isAnalysisTemplate: argo && kind !== undefined && ANALYSIS_TEMPLATE_KINDS.includes(kind),
      isExperiment: argo && kind === EXPERIMENT_KIND,
      ...(unservedVersion ? { unservedVersion } : {}),
      range,
    });
    for (const err of doc.errors) {
      const duplicate = err.code === 'DUPLICATE_KEY' ? duplicateKey(doc, err.pos[0]) : undefined;
      syntaxErrors.push({
        code: 'yaml-syntax',
        severity: 'error',
        message: duplicate?.message ?? oneLine(err.message),
        path: [],
        target: 'value',
        docIndex: index,
        offsets: clampRange(duplicate?.range ?? err.pos, text.length),
        ...(duplicate?.first ? { related: [{ offsets: duplicate.first, message: `the first "${duplicate.name}" of this map` }] } : {}),
      });
    }
    for (const warn of doc.warnings) {
      syntaxErrors.push({
        code: 'yaml-warning',
        severity: 'warning',
        message: oneLine(warn.message),
        path: [],
        target: 'value',
        docIndex: index,
        offsets: clampRange(warn.pos, text.length),
      });
    }
  });
  if (directive) {
    // Parse errors of a template are noise: report once that it needs rendering first.
    const start = directive.index;
    const end = text.indexOf('}}', start);
    return {
      text,
      docs,
      templated: true,
      syntaxErrors: [
        {
          code: 'helm-template',
          severity: 'info',
          message:
            'this file holds Helm/Go template directives, so it is not YAML until rendered: it is not validated (lint the output of `helm template` instead)',
          path: [],
          target: 'value',
          docIndex: 0,
          offsets: [start, end < 0 ? start + 2 : end + 2],
        },
      ],
    };
  }
  // Most pieces have no syntax error: they share one empty list, as a file of many small documents keeps a parse per document.
  return { text, docs, syntaxErrors: syntaxErrors.length > 0 ? syntaxErrors : NO_FINDINGS };
}

const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

/**
 * A Helm/Go template action: `{{ .Values.x }}`, `{{- include ... }}`, `{{ if ... }}`, `{{ $x := ... }}`.
 * Argo's own placeholders (`{{args.name}}`, `{{templates.x.podTemplateHash}}`) do not match.
 */
const HELM_DIRECTIVE =
  /\{\{-?\s*(?:\.|\$|"|\/\*|(?:template|include|if|else|end|range|with|define|block|toYaml|tpl|printf|default|required|quote|lookup)\b)/g;

/**
 * The first template action that stands in the YAML structure itself (`name: {{ .Release.Name }}`,
 * a `{{- if }}` line). Actions inside string values are data, as in a notifications ConfigMap whose
 * templates Argo renders itself, and leave the file valid YAML.
 */
function templateDirective(text: string, docs: readonly Document.Parsed[]): { index: number } | undefined {
  HELM_DIRECTIVE.lastIndex = 0;
  let m = HELM_DIRECTIVE.exec(text);
  if (!m) return undefined;
  const strings: [number, number][] = [];
  for (const doc of docs) {
    visit(doc, {
      Scalar(_key, node) {
        if (typeof node.value === 'string' && node.range) strings.push([node.range[0], node.range[1]]);
      },
    });
  }
  strings.sort((a, b) => a[0] - b[0]);
  const inString = (i: number) => {
    let lo = 0;
    let hi = strings.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [s, e] = strings[mid]!;
      if (i < s) hi = mid - 1;
      else if (i >= e) lo = mid + 1;
      else return true;
    }
    return false;
  };
  for (; m; m = HELM_DIRECTIVE.exec(text)) {
    if (!inString(m.index) && !hashBefore(text, m.index)) return { index: m.index };
  }
  return undefined;
}

/**
 * The key at `offset`, which its map has earlier: a message that names it, the key's range (yaml
 * points at its first character) and the range of its first place. The message has no line: the
 * server parses a file a document at a time, and this text may be one document of it.
 */
function duplicateKey(
  doc: Document,
  offset: number,
): { name: string; message: string; range: [number, number]; first?: [number, number] } | undefined {
  let found: ReturnType<typeof duplicateKey>;
  visit(doc, {
    Map(_key, map) {
      const key = map.items.find((p) => isScalar(p.key) && p.key.range?.[0] === offset)?.key;
      if (!isScalar(key) || !key.range) return undefined;
      const name = String(key.value);
      const first = map.items.find((p) => isScalar(p.key) && p.key.value === key.value)?.key;
      found = {
        name,
        message: `duplicate key "${name}": this map has "${name}" earlier. YAML forbids it; tools that read the file anyway keep only the last one`,
        range: [key.range[0], key.range[1]],
        ...(isScalar(first) && first !== key && first.range ? { first: [first.range[0], first.range[1]] as [number, number] } : {}),
      };
      return visit.BREAK;
    },
  });
  return found;
}

function oneLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

function clampRange(pos: [number, number], length: number): [number, number] {
  const start = Math.max(0, Math.min(pos[0], length));
  const end = Math.max(start, Math.min(pos[1], length));
  return [start, end];
}
