/**
 * `rollouts lint --format sarif`: the lint report as SARIF 2.1.0 (OASIS), the format code scanning
 * (GitHub, Azure DevOps, ...) reads. Every diagnostic code is a rule of the driver, with its help
 * from DIAGNOSTIC_CODES; a finding a disable comment silences is a result suppressed in source.
 * test/cli/sarif.test.ts validates the output against the official schema.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { codeHelpUri, DIAGNOSTIC_CODES, PROJECT_URL, plainHelp, type Severity } from '../schema';
import { rolloutsVersion } from './commands/version';
import type { LintDiagnostic, LintReport, SuppressedDiagnostic } from './commands/lint';

/** The base of the relative artifact URIs: the working directory lint ran in. */
export const SARIF_BASE_ID = '%SRCROOT%';

const LEVELS: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/** A file as lint names it, as a SARIF artifact location: relative to the working directory when inside it. */
function artifactLocation(file: string, cwd: string): { uri: string; uriBaseId?: string } {
  const absolute = resolve(cwd, file);
  const rel = relative(cwd, absolute);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return { uri: pathToFileURL(absolute).href };
  return { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: SARIF_BASE_ID };
}

const region = (d: { line: number; column: number; endLine: number; endColumn: number }) => ({
  startLine: d.line,
  startColumn: d.column,
  endLine: d.endLine,
  endColumn: d.endColumn,
});

export function formatSarif(report: LintReport, cwd: string): object {
  const ruleIndex = new Map(DIAGNOSTIC_CODES.map((c, i) => [c.code, i]));
  const result = (file: string, d: LintDiagnostic | SuppressedDiagnostic, suppressed: boolean) => {
    const index = ruleIndex.get(d.code);
    const justification = suppressed ? (d as SuppressedDiagnostic).justification : undefined;
    return {
      ruleId: d.code,
      ...(index !== undefined ? { ruleIndex: index } : {}),
      level: LEVELS[d.severity],
      message: { text: d.path ? `${d.message} (${d.path})` : d.message },
      locations: [{ physicalLocation: { artifactLocation: artifactLocation(file, cwd), region: region(d) } }],
      ...(d.related?.length
        ? {
            relatedLocations: d.related.map((r, id) => ({
              id,
              message: { text: r.message },
              physicalLocation: { artifactLocation: artifactLocation(r.file, cwd), region: region(r) },
            })),
          }
        : {}),
      ...(suppressed ? { suppressions: [{ kind: 'inSource', ...(justification ? { justification } : {}) }] } : {}),
    };
  };
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'rollouts',
            fullName: 'rollouts lint (Argo Rollouts for VS Code)',
            version: rolloutsVersion(),
            informationUri: PROJECT_URL,
            rules: DIAGNOSTIC_CODES.map((c) => ({
              id: c.code,
              name: c.code.replace(/(^|-)([a-z0-9])/g, (_m, _d, ch: string) => ch.toUpperCase()),
              shortDescription: { text: c.summary.replace(/`/g, '') },
              fullDescription: { text: plainHelp(c.help) },
              help: { text: plainHelp(c.help), markdown: `**${c.code}**: ${c.summary}\n\n${c.help}` },
              helpUri: codeHelpUri(c.code),
              defaultConfiguration: { level: LEVELS[c.severity] },
              properties: { tags: [c.group] },
            })),
          },
        },
        originalUriBaseIds: { [SARIF_BASE_ID]: { uri: `${pathToFileURL(cwd).href.replace(/\/?$/, '/')}` } },
        results: report.files.flatMap((f) => [
          ...f.diagnostics.map((d) => result(f.file, d, false)),
          ...(f.suppressed ?? []).map((d) => result(f.file, d, true)),
        ]),
      },
    ],
  };
}
