/**
 * The Kubernetes descriptions of the pod template's fields, for hover and completion. The build
 * reads them from @kubernetes/client-node's declarations (scripts/kubernetes-docs.mjs) into
 * kubernetes-docs.json beside this bundle; it is read the first time a description is needed.
 * Without that file (the sources run unbundled) a field keeps the catalog's words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FieldSpec } from '../schema';

type Descriptions = Readonly<Record<string, Readonly<Record<string, string>>>>;

let descriptions: Descriptions | null | undefined;

function load(): Descriptions | null {
  try {
    return JSON.parse(readFileSync(join(__dirname, 'kubernetes-docs.json'), 'utf8')) as Descriptions;
  } catch {
    return null;
  }
}

const own = (o: Readonly<Record<string, string>> | undefined, key: string) => (o && Object.hasOwn(o, key) ? o[key] : undefined);

/** The Kubernetes description of a field of a Kubernetes type: its own, or else that of the type it holds. */
function kubernetesDescription(spec: FieldSpec): string | undefined {
  const at = spec.kubernetesField;
  if (!at) return undefined;
  descriptions ??= load();
  if (!descriptions) return undefined;
  return own(descriptions[at.model], at.field) ?? (at.holds ? own(descriptions[at.holds], '$') : undefined);
}

/** Kubernetes' prose is plain text: characters that markdown would read as markup are shown as they are. */
const escapeMarkdown = (text: string) => text.replace(/[\\`*_[\]<>]/g, (c) => `\\${c}`);

/** A field's documentation as markdown: for a Kubernetes field its Kubernetes description, then the catalog's words. */
export function fieldDocs(spec: FieldSpec): string {
  const description = kubernetesDescription(spec);
  return description ? `${escapeMarkdown(description)}\n\n${spec.docs}` : spec.docs;
}
