/** The table of semantic rules (semantics §13, references, surprising settings). */
import type { Rule } from './rule';

export type { Rule, RuleContext } from './rule';

export const rules: readonly Rule[] = [];
