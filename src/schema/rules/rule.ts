/** What a semantic rule is: a small module with a stable code that reads the Rollout as plain data. */
import { isObject } from '../../kube';
import type { DocFinding, RelatedPlace, Severity } from '../findings';
import type { LineColumn } from '../ranges';
import type { ReferenceSite } from '../nearest';
import type { WorkspaceIndex } from '../workspace';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export interface RuleContext {
  /** The whole Rollout document as plain data (aliases resolved). */
  readonly rollout: JsonObject;
  readonly spec: JsonObject | undefined;
  readonly canary: JsonObject | undefined;
  readonly blueGreen: JsonObject | undefined;
  /** Services of the workspace, when known (editor, `rollouts lint` with several files). */
  readonly workspace?: WorkspaceIndex;
  /** The document's file, as the workspace index keys it: references resolve to the nearest definitions (nearest.ts). */
  readonly file?: string;
  /** The files a kustomization builds together with it (Kustomized.peers). */
  readonly peers?: readonly string[];
}

/** Where a reference of the document is made from, looked up in `namespace` (nearest.ts). */
export const siteOf = (
  ctx: { readonly file?: string; readonly peers?: readonly string[] },
  namespace: string | undefined,
): ReferenceSite => ({
  ...(ctx.file !== undefined ? { file: ctx.file } : {}),
  ...(namespace ? { namespace } : {}),
  ...(ctx.peers ? { peers: ctx.peers } : {}),
});

export interface Rule {
  /** Stable kebab-case code; filters, quick fixes and docs key on it. */
  readonly code: string;
  readonly summary: string;
  /** The severity its findings have unless said otherwise (SARIF's defaultConfiguration.level); some are milder, e.g. info against an uncertain match. */
  readonly severity: Severity;
  /** Why it matters and how to fix it, in light Markdown (backticks): the docs' code reference, SARIF's rule help and hover read it. */
  readonly help: string;
  /**
   * Its findings depend on ctx.workspace (the Services and templates defined elsewhere). The
   * editor re-runs only these rules when the workspace changes; test/schema/rules.test.ts checks
   * that no other rule reads it.
   */
  readonly readsWorkspace?: true;
  /**
   * Its errors judge the spec alone: it reads the workspace only for suggestions. The embedded
   * controller's spec verdict (rolloutObjectFindings) runs it too, with no workspace.
   */
  readonly judgesSpecAlone?: true;
  check(ctx: RuleContext): DocFinding[];
}

export const obj = (v: unknown): JsonObject | undefined => (isObject<Json>(v) ? v : undefined);
export const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
export const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const has = (o: JsonObject | undefined, key: string): boolean => o !== undefined && o[key] !== undefined && o[key] !== null;

export const CANARY = ['spec', 'strategy', 'canary'] as const;
export const BLUE_GREEN = ['spec', 'strategy', 'blueGreen'] as const;

type Path = (string | number)[];
/** A finding builder of one severity, so rules read as their rule: `error(code, path, message)`. */
const finding =
  (severity: Severity) =>
  (code: string, path: Path, message: string, target: 'key' | 'value' | 'missing' = 'value', data?: unknown): DocFinding => ({
    code,
    severity,
    message,
    path,
    target,
    ...(data !== undefined ? { data } : {}),
  });
export const error = finding('error');
export const warning = finding('warning');
export const info = finding('info');
/** Where each definition's metadata.name stands in its file (`Kind "name" is defined here`), as places a finding about them involves. */
export function definedHere<D extends { name: string; file: string; nameRange?: { start: LineColumn; end: LineColumn } }>(
  found: readonly D[],
  kind: (d: D) => string,
): RelatedPlace[] {
  return found.flatMap((d) =>
    d.nameRange ? [{ message: `${kind(d)} "${d.name}" is defined here`, file: d.file, range: d.nameRange }] : [],
  );
}

/** The finding with the other places it involves (the editor's related information), when there are any. */
export const withRelated = (f: DocFinding, related: readonly RelatedPlace[]): DocFinding =>
  related.length > 0 ? { ...f, related: [...related] } : f;

/**
 * For a list whose items' names must differ, read in order: `repeat(name, i, message)` notes item
 * i's name and, when an earlier item has it, gives the error at `<base>[i].name` that links the
 * first of them (`the first <what> "name"`).
 */
export function nameRepeats(
  code: string,
  base: readonly (string | number)[],
  what: string,
): (name: string, i: number, message: () => string) => DocFinding | undefined {
  const first = new Map<string, number>();
  return (name, i, message) => {
    const at = first.get(name);
    if (at === undefined) {
      first.set(name, i);
      return undefined;
    }
    return withRelated(error(code, [...base, i, 'name'], message()), [
      { message: `the first ${what} "${name}"`, path: [...base, at, 'name'] },
    ]);
  };
}

/** The traffic routers configured (keys of trafficRouting with a value), e.g. ['nginx', 'smi']. */
export const ROUTERS = ['istio', 'nginx', 'alb', 'smi', 'ambassador', 'appMesh', 'traefik', 'apisix', 'plugins'] as const;
export type Router = (typeof ROUTERS)[number];
export function routersOf(canary: JsonObject | undefined): Router[] {
  const tr = obj(canary?.trafficRouting);
  // Upstream tests plugins by count (`len(Plugins) == 0`): an empty map configures no router.
  return tr ? ROUTERS.filter((r) => (r === 'plugins' ? Object.keys(obj(tr.plugins) ?? {}).length > 0 : has(tr, r))) : [];
}

/**
 * The routers that drive Ingresses, with the field that names one and the list that names several,
 * in the order Argo's controller looks their Ingresses up (getReferencedIngresses).
 */
export const INGRESS_FIELDS = [
  { router: 'alb', one: 'ingress', many: 'ingresses' },
  { router: 'nginx', one: 'stableIngress', many: 'stableIngresses' },
] as const;

export function hasTrafficRouting(canary: JsonObject | undefined): boolean {
  return has(canary, 'trafficRouting');
}
