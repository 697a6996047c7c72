/**
 * Every diagnostic code, with its summary, default severity and help, read from where each code is
 * defined (the rules tables, the structural codes, the disable comments). The docs' code reference,
 * `rollouts lint --format sarif`'s rule metadata and the `rollouts.lint.rules` setting's schema all
 * read this list, so a new code is documented everywhere by being defined.
 */
import type { Severity } from './findings';
import { experimentRules, rules, templateRules } from './rules';
import { RULE_CONTROL_DIAGNOSTICS } from './rule-control-codes';
import { STRUCTURE_DIAGNOSTICS } from './structure';

export interface DiagnosticCode {
  readonly code: string;
  /** One line: what it checks. */
  readonly summary: string;
  /** The severity its findings have unless said otherwise (a setting or `--rule` can change it). */
  readonly severity: Severity;
  /** Why it matters and how to fix it, in light Markdown (backticks only). */
  readonly help: string;
  /** Which table defines it. */
  readonly group: 'structure' | 'rollout' | 'template' | 'experiment' | 'disable-comment' | 'internal';
}

/** Reported by the editor when validating a document failed (a bug); never by the rules themselves. */
const INTERNAL_ERROR: DiagnosticCode = {
  code: 'internal-error',
  summary: 'validating the document failed (a bug in this extension)',
  severity: 'error',
  help: 'The validator itself failed on this document; the rest of its findings may be missing. Please report it with the document that causes it.',
  group: 'internal',
};

function collect(): DiagnosticCode[] {
  const out = new Map<string, DiagnosticCode>();
  const add = (group: DiagnosticCode['group'], list: Iterable<{ code: string; summary: string; severity: Severity; help: string }>) => {
    // A code shared by two tables (an Experiment rule named as the Rollout rule) is documented once, as first defined.
    for (const { code, summary, severity, help } of list) if (!out.has(code)) out.set(code, { code, summary, severity, help, group });
  };
  add(
    'structure',
    Object.entries(STRUCTURE_DIAGNOSTICS).map(([code, d]) => ({ code, ...d })),
  );
  add('rollout', rules);
  add('template', templateRules);
  add('experiment', experimentRules);
  add(
    'disable-comment',
    Object.entries(RULE_CONTROL_DIAGNOSTICS).map(([code, d]) => ({ code, ...d })),
  );
  add('internal', [INTERNAL_ERROR]);
  return [...out.values()];
}

/** Every code, each once: structural codes, Rollout rules, template rules, Experiment rules, disable comments, internal. */
export const DIAGNOSTIC_CODES: readonly DiagnosticCode[] = Object.freeze(collect());

const byCode = new Map(DIAGNOSTIC_CODES.map((c) => [c.code, c]));

export function diagnosticCode(code: string): DiagnosticCode | undefined {
  return byCode.get(code);
}

/** Help as plain text (SARIF's help.text): the Markdown's backticks dropped. */
export const plainHelp = (markdown: string): string => markdown.replace(/`/g, '');

/** The project's home (package.json's repository.url; test/cli/sarif.test.ts checks they agree). */
export const PROJECT_URL = 'https://github.com/argo-rollouts-vscode/argo-rollouts-vscode';

/** The anchor of a code in docs/features.md's code reference (scripts/docs-tables.ts writes it). */
export const codeAnchor = (code: string): string => `code-${code}`;

/** Where a code is documented: its entry in docs/features.md's code reference. */
export const codeHelpUri = (code: string): string => `${PROJECT_URL}/blob/main/docs/features.md#${codeAnchor(code)}`;
