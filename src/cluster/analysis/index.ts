/**
 * src/cluster/analysis: AnalysisRuns in the embedded controller. Runs resolved from their
 * templates when the rollout controller creates them (resolve.ts, pure), measured by the
 * AnalysisRun controller (web and prometheus providers, conditions on src/schema's expression
 * tree), and terminating a run by hand. (Run history limits are the planner's: analysis-history.ts.)
 * Architecture invariant: HTTP and time are injected (fetch, clock), so tests use fakes.
 */
export * from './types';
export * from './resolve';
export * from './args';
export * from './assess';
export * from './expression';
export * from './providers';
export * from './create';
export * from './terminate';
export * from './controller';
