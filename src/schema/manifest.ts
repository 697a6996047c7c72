/**
 * A manifest file as Kubernetes objects to send (the editor's "Apply to Cluster"): one per YAML
 * document, with the line it starts on. Read with the same parse as validation, so a YAML error
 * is placed where the editor underlines it.
 */
import { documentValue } from './fast-yaml';
import { parseFile } from './parse';
import { findingRange, lineIndex } from './ranges';

export interface ManifestObject {
  /** 1-based line of the document's first content line. */
  line: number;
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  body: Record<string, unknown>;
}

export interface ManifestProblem {
  /** 1-based. */
  line: number;
  message: string;
}

export interface ManifestObjects {
  objects: ManifestObject[];
  /** Documents that are no Kubernetes object; the others are still taken. */
  problems: ManifestProblem[];
  /** Why nothing of the file may be sent (a YAML error, template directives); then there are no objects. */
  refused?: ManifestProblem;
}

/**
 * The objects of a manifest text. A YAML error, or template directives (Helm), refuse the whole
 * file: nothing is sent from a file that does not read as its author meant. A document that is
 * no Kubernetes object (not a map, or without apiVersion, kind or metadata.name) is a problem at
 * its line, and the others are still taken. Empty documents are skipped; a v1 List gives its items.
 */
export function manifestObjects(text: string): ManifestObjects {
  const parsed = parseFile(text);
  const lineAt = lineIndex(text);
  const line = (offset: number) => lineAt(offset).line + 1;
  if (parsed.templated)
    return {
      objects: [],
      problems: [],
      refused: {
        line: line(parsed.syntaxErrors[0]?.offsets?.[0] ?? 0),
        message: 'the file holds Helm/Go template directives: render it first (helm template) and apply the output',
      },
    };
  const error = parsed.syntaxErrors.find((f) => f.severity === 'error');
  if (error)
    return { objects: [], problems: [], refused: { line: line(findingRange(parsed, error)[0]), message: `YAML error: ${error.message}` } };

  const objects: ManifestObject[] = [];
  const problems: ManifestProblem[] = [];
  for (const pd of parsed.docs) {
    const at = line(pd.doc.contents?.range?.[0] ?? pd.range[0]);
    let value: unknown;
    try {
      value = documentValue(pd.doc);
    } catch (e) {
      problems.push({ line: at, message: `the document cannot be read: ${(e as Error).message}` });
      continue;
    }
    if (value === null || value === undefined) continue;
    // A v1 List (what `kubectl get -o yaml` prints) stands for its items, as kubectl apply reads it.
    const list = value as { apiVersion?: unknown; kind?: unknown; items?: unknown };
    if (list.apiVersion === 'v1' && list.kind === 'List' && Array.isArray(list.items)) {
      list.items.forEach((item, i) => {
        const node = pd.doc.getIn(['items', i], true) as { range?: [number, number, number] } | undefined;
        take(item, node?.range ? line(node.range[0]) : at, 'the item', objects, problems);
      });
      continue;
    }
    take(value, at, 'the document', objects, problems);
  }
  return { objects, problems };
}

/** One object of the file (a document, or an item of a List), or the problem that keeps it out. */
function take(value: unknown, line: number, what: string, objects: ManifestObject[], problems: ManifestProblem[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push({ line, message: `${what} is not an object (a Kubernetes object is a map with apiVersion, kind and metadata)` });
    return;
  }
  const body = value as Record<string, unknown>;
  const metadata = body.metadata as { name?: unknown; namespace?: unknown } | undefined;
  const missing = [
    typeof body.apiVersion === 'string' && body.apiVersion ? '' : 'apiVersion',
    typeof body.kind === 'string' && body.kind ? '' : 'kind',
    typeof metadata?.name === 'string' && metadata.name ? '' : 'metadata.name',
  ].filter(Boolean);
  if (missing.length) {
    problems.push({ line, message: `${what} has no ${missing.join(', ')}` });
    return;
  }
  const object: ManifestObject = {
    line,
    apiVersion: body.apiVersion as string,
    kind: body.kind as string,
    name: metadata!.name as string,
    body,
  };
  if (typeof metadata?.namespace === 'string' && metadata.namespace) object.namespace = metadata.namespace;
  objects.push(object);
}
