/**
 * src/schema: the Rollout field catalog, validation with field paths, and the JSON Schema export.
 * Architecture invariant: pure. No I/O, no clock, no LSP types; imports only the planner (through
 * its index) and libraries. Findings carry field paths; src/server maps them to editor ranges.
 * Other parts import from this file only.
 */
export type { Finding, DocFinding, Severity } from './findings';
export { parseFile, ROLLOUT_API_VERSION, type ParsedDoc, type ParsedFile } from './parse';
export { findingRange, pathRange, pathAt, docAt, nodeAtPath, offsetToLineColumn, lineIndex, type PathAt, type LineColumn, type FieldPath } from './ranges';
export { rolloutCatalog, fieldAt, catalogFields, type FieldSpec, type FieldType } from './catalog';
export { validateFile, validateRolloutDoc, type ValidateOptions } from './validate';
export { rules, type Rule, type RuleContext } from './rules';
export { STRUCTURE_CODES, STRUCTURE_SUMMARIES, formatPath } from './structure';
export { createWorkspaceIndex, servicesInFile, type WorkspaceIndex, type WorkspaceService, type MutableWorkspaceIndex } from './workspace';
export { rolloutJsonSchema } from './json-schema';
export { closest } from './suggest';
