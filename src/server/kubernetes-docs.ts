/**
 * The Kubernetes descriptions of the pod template's fields, for hover and completion: the build
 * writes them (scripts/kubernetes-docs.mjs) to kubernetes-docs.json beside this bundle, which is
 * read the first time a description is needed. Without that file (the sources run unbundled) a
 * field keeps the catalog's words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { escapeMarkdown, kubernetesDescription, type FieldSpec, type KubernetesDescriptions } from '../schema';

/** Undefined until first needed; null when the file is not there (then never read again). */
let descriptions: KubernetesDescriptions | null | undefined;

function load(): KubernetesDescriptions | null {
  try {
    return JSON.parse(readFileSync(join(__dirname, 'kubernetes-docs.json'), 'utf8')) as KubernetesDescriptions;
  } catch {
    return null;
  }
}

/** A field's documentation as markdown: for a Kubernetes field its Kubernetes description, then the catalog's words. */
export function fieldDocs(spec: FieldSpec): string {
  if (!spec.kubernetesField) return spec.docs;
  if (descriptions === undefined) descriptions = load();
  const description = descriptions ? kubernetesDescription(descriptions, spec) : undefined;
  return description ? `${escapeMarkdown(description)}\n\n${spec.docs}` : spec.docs;
}
