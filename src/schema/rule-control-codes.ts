/** The codes of the disable comments themselves (rule-control.ts), with their help as every code has (diagnostic-codes.ts). */
import type { Severity } from './findings';

export const DISABLE_COMMENT_INVALID = 'disable-comment-invalid';
export const DISABLE_COMMENT_UNUSED = 'disable-comment-unused';

export const RULE_CONTROL_DIAGNOSTICS: Readonly<Record<string, { summary: string; severity: Severity; help: string }>> = {
  [DISABLE_COMMENT_INVALID]: {
    summary: 'a `# rollouts-lint-disable-...` comment that names no code, an unknown code, or an unknown directive',
    severity: 'warning',
    help: 'A disable comment reads `# rollouts-lint-disable-next-line CODE[, CODE...] [-- reason]` or `# rollouts-lint-disable-file CODE[, CODE...] [-- reason]`, with the codes of diagnostics; this one disables nothing as written. Fix the code (the quick fix offers the nearest) or the directive.',
  },
  [DISABLE_COMMENT_UNUSED]: {
    summary: 'a disable comment names a code that has no diagnostic where the comment applies',
    severity: 'info',
    help: 'Nothing the comment applies to has a diagnostic with this code (any more): the comment is stale. Remove the code from it, or the comment.',
  },
};
