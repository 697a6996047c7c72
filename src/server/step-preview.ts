/** What the planner says a canary step does, as hover markdown. */

/** Markdown for step `index` of the Rollout (plain JSON of the manifest), or undefined when the planner cannot say. */
export function stepPreview(_rollout: unknown, _index: number): string | undefined {
  return undefined; // wired to plannedSteps() once the planner exports it
}
