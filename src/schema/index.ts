/**
 * src/schema: the Rollout, AnalysisTemplate and Experiment field catalogs, the condition expression parser, validation with field paths, and the JSON Schema export.
 * Architecture invariant: pure. No I/O, no clock, no LSP types; imports only the planner (through
 * its index) and libraries. Findings carry field paths; src/server maps them to editor ranges.
 * Other parts import from this file only.
 */
export { boundedMessage, formatPath, type Finding, type DocFinding, type RelatedPlace, type Severity } from './findings';
export { documentValue, isCommonYaml, readableDocumentValue } from './fast-yaml';
export {
  parseFile,
  normalizeLineBreaks,
  ROLLOUT_API_VERSION,
  ANALYSIS_TEMPLATE_KINDS,
  EXPERIMENT_KIND,
  type ParsedDoc,
  type ParsedFile,
} from './parse';
export {
  findingRange,
  relatedRange,
  pathRange,
  pathAt,
  inComment,
  inScalar,
  docAt,
  nodeAtPath,
  offsetToLineColumn,
  lineIndex,
  valueAsWritten,
  type PathAt,
  type LineColumn,
  type FieldPath,
} from './ranges';
export {
  rolloutCatalog,
  analysisTemplateCatalog,
  clusterAnalysisTemplateCatalog,
  experimentCatalog,
  catalogOf,
  isArgoDocument,
  catalogOfKind,
  fieldAt,
  fieldChildren,
  catalogFields,
  type FieldSpec,
  type FieldType,
} from './catalog';
export {
  mergeParts,
  rolloutObjectFindings,
  rolloutSpecErrors,
  validateFile,
  validateRolloutDoc,
  type PlacedError,
  validateAnalysisTemplateDoc,
  validateExperimentDoc,
  type ValidateOptions,
} from './validate';
export {
  rules,
  templateRules,
  experimentRules,
  INGRESS_FIELDS,
  isDnsSubdomain,
  analysisBlocks,
  matchingTemplates,
  documentAnalysisBlocks,
  documentReferences,
  rolloutReferences,
  routerReferences,
  type RouterReference,
  type Rule,
  type RuleContext,
  type TemplateRule,
  type TemplateRuleContext,
  type ExperimentRule,
  type ExperimentRuleContext,
  type AnalysisBlock,
  type TemplateReference,
  type ReferenceKind,
  type RolloutReference,
} from './rules';
export {
  parseExpression,
  checkExpression,
  EXPRESSION_FUNCTIONS,
  EXPRESSION_VARIABLES,
  CLOSURE_FUNCTIONS,
  type Expr,
  type BinaryOp,
  type UnaryOp,
  type ParseResult,
  type ExpressionError,
  type ExpressionProblem,
} from './analysis-expression';
export { compileRe2, re2Finds, type CompiledRe2 } from './re2';
export { STRUCTURE_CODES, STRUCTURE_DIAGNOSTICS } from './structure';
export { codeAnchor, codeHelpUri, DIAGNOSTIC_CODES, diagnosticCode, plainHelp, PROJECT_URL, type DiagnosticCode } from './diagnostic-codes';
export {
  applyRuleControl,
  controlFileFindings,
  disableComments,
  parseRuleFlag,
  readRuleOverrides,
  RULE_LEVELS,
  type ControlledItem,
  type ControlProblem,
  type DisableComment,
  type RuleControlResult,
  type RuleLevel,
  type RuleOverrides,
} from './rule-control';
export { DISABLE_COMMENT_INVALID, DISABLE_COMMENT_UNUSED } from './rule-control-codes';
export {
  createWorkspaceIndex,
  servicesInFile,
  analysisTemplatesInFile,
  workloadsInFile,
  routerObjectsInFile,
  definitionsInFile,
  isAnalysisTemplateDefinition,
  isServiceDefinition,
  isWorkloadDefinition,
  isRouterObjectDefinition,
  isIngressDefinition,
  isVirtualServiceDefinition,
  isGatewayRouteDefinition,
  ROUTER_OBJECT_KINDS,
  GATEWAY_ROUTE_KINDS,
  INGRESS_API_VERSIONS,
  isWorkloadKind,
  WORKLOAD_KINDS,
  type WorkspaceIndex,
  type WorkspaceWorkload,
  type WorkspaceIngress,
  type WorkspaceVirtualService,
  type WorkspaceGatewayRoute,
  type GatewayRouteKind,
  type WorkspaceRouterObject,
  type VirtualServiceHttpRoute,
  type RouterObjectKind,
  type WorkspaceService,
  type ServicePort,
  type WorkspaceAnalysisTemplate,
  type WorkspaceDefinition,
  type MutableWorkspaceIndex,
} from './workspace';
export { argoCrdSchemas, rolloutJsonSchema } from './json-schema';
export { manifestObjects, type ManifestObject, type ManifestObjects, type ManifestProblem } from './manifest';
export { closest } from './suggest';
export { nearestDefinitions, type ReferenceSite } from './nearest';
export {
  fieldsPatched,
  KUSTOMIZATION_FILE_NAMES,
  kustomizedFiles,
  patchFiles,
  patchFindings,
  readKustomization,
  type AddedLabels,
  type Kustomization,
  type Kustomized,
  type PatchSource,
} from './kustomize';
export { isYamlFileName, workspaceEntry, type WorkspaceEntry } from './workspace-files';
export { allowedValues } from './pod-template';
export { escapeMarkdown, kubernetesDescription, type KubernetesDescriptions } from './kubernetes-fields';
