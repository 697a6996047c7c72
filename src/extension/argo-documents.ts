/**
 * Which YAML documents are the extension's business: those that mention argoproj.io (a Rollout,
 * an AnalysisTemplate, an Experiment...). No `vscode` here, so plain-Node tests can check it.
 */

/** Whether `text` mentions the argoproj.io API group (`apiVersion: argoproj.io/v1alpha1` and the like). */
export function mentionsArgoproj(text: string): boolean {
  return /\bargoproj\.io\//.test(text);
}
