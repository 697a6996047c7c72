/** The table of semantic rules (semantics §13, Service references, surprising settings). */
import type { Rule } from './rule';
import {
  activeDeadlineUnsupported,
  namesWellFormed,
  progressDeadlineAfterMinReady,
  restartPolicyAlways,
  revisionLimitWithinHistory,
  selectorMatchesTemplate,
  selectorRequired,
  selectorWellFormed,
  strategyExactlyOne,
  templateRequired,
  workloadRefTemplate,
} from './spec-rules';
import {
  activePreviewDistinct,
  antiAffinityOneKind,
  canaryStableDistinct,
  dynamicStableScaleRules,
  ingressNamed,
  maxTrafficWeightRouter,
  pingPongRules,
  scaleDownDelayNeedsTrafficRouting,
  surgeUnavailableNotBothZero,
  trafficRoutingNeedsServices,
} from './strategy-rules';
import {
  analysisFieldRef,
  experimentWeightNeedsPorts,
  experimentWeightRouter,
  headerRouteRouter,
  mirrorRouteRouter,
  routeManaged,
  routeMatchOneOf,
  setCanaryScaleNeedsTrafficRouting,
  setWeightRange,
  stepOneAction,
} from './step-rules';
import { serviceExists, serviceSelectsPods } from './service-references';
import { analysisArgsMatch, analysisRunsForever, analysisTemplateExists } from './analysis-references';
import { workloadExists, workloadSelectorMatches } from './workload-references';
import { gatewayRouteBackends, ingressStableBackend, routerObjectExists, virtualServiceRoutes } from './router-references';
import { autoPromotionSecondsIgnored, experimentNeverEnds, noEffectWithoutTrafficRouting, scaleDownDelayZero } from './surprise-rules';

export type { Rule, RuleContext } from './rule';
export { INGRESS_FIELDS } from './rule';
export { templateRules, type TemplateRule, type TemplateRuleContext } from './analysis-template-rules';
export { experimentRules, type ExperimentRule, type ExperimentRuleContext } from './experiment-rules';
export { analysisBlocks, matchingTemplates, type AnalysisBlock, type TemplateReference } from './analysis-references';
export { documentAnalysisBlocks, documentReferences, rolloutReferences, type ReferenceKind, type RolloutReference } from './references';
export { routerReferences, type RouterReference } from './router-references';
export { isDnsSubdomain } from './spec-rules';

export const rules: readonly Rule[] = [
  // spec
  selectorRequired,
  selectorWellFormed,
  namesWellFormed,
  selectorMatchesTemplate,
  templateRequired,
  workloadRefTemplate,
  restartPolicyAlways,
  activeDeadlineUnsupported,
  progressDeadlineAfterMinReady,
  strategyExactlyOne,
  // blue-green
  activePreviewDistinct,
  revisionLimitWithinHistory,
  // both strategies
  antiAffinityOneKind,
  // canary
  surgeUnavailableNotBothZero,
  canaryStableDistinct,
  pingPongRules,
  scaleDownDelayNeedsTrafficRouting,
  dynamicStableScaleRules,
  maxTrafficWeightRouter,
  ingressNamed,
  // canary steps
  stepOneAction,
  setWeightRange,
  setCanaryScaleNeedsTrafficRouting,
  headerRouteRouter,
  mirrorRouteRouter,
  routeMatchOneOf,
  routeManaged,
  experimentWeightRouter,
  experimentWeightNeedsPorts,
  analysisFieldRef,
  // surprising settings
  autoPromotionSecondsIgnored,
  scaleDownDelayZero,
  noEffectWithoutTrafficRouting,
  experimentNeverEnds,
  // What the workspace decides comes last, so that the editor, which computes it apart (ValidateOptions.part), keeps this order.
  trafficRoutingNeedsServices,
  workloadExists,
  workloadSelectorMatches,
  serviceExists,
  serviceSelectsPods,
  analysisTemplateExists,
  analysisArgsMatch,
  analysisRunsForever,
  routerObjectExists,
  virtualServiceRoutes,
  ingressStableBackend,
  gatewayRouteBackends,
];
