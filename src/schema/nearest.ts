/**
 * Which definitions a reference means. A workspace (or a folder given to `rollouts lint`) often
 * holds several applications, and two of them may define a Service or a template of the same name:
 * a reference means the definitions nearest to it, as an application is deployed together.
 * Nearest is: the same file, then the same folder (or a file a kustomization builds with it), then
 * anywhere in the workspace; at each distance a definition in the reference's own namespace (or,
 * both without one, in the same unnamed one) before one where only one side names a namespace
 * (see nearness). The rules and the editor resolve every reference through `nearestDefinitions`,
 * so `rollouts lint` and the editor agree, and linting many applications at once gives each the
 * verdicts it gets alone.
 */

/** Where a reference is made from. */
export interface ReferenceSite {
  /** The referring document's file, as the workspace index keys it; unknown: every definition is equally far. */
  readonly file?: string;
  /** The namespace it is looked up in: the one the reference names, else the document's. */
  readonly namespace?: string;
  /** The files a kustomization builds together with the document's (Kustomized.peers): as near as its folder. */
  readonly peers?: readonly string[];
}

/** What a definition has that nearness reads. */
export interface Placed {
  readonly file: string;
  readonly namespace?: string;
}

/** The folder of a file key (a path or a URI). */
function folderOf(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i < 0 ? '' : file.slice(0, i);
}

/** Where the uncertain matches rank (`uncertainMatch`): after every other. */
const UNCERTAIN = 10;

/**
 * How near a definition is to a reference, lower is nearer; undefined when it cannot be what the
 * reference means: a definition in another namespace than the reference's never is. A document
 * that names no namespace lands wherever it is applied: a definition that names one is taken for
 * it from its own file (applied together), and elsewhere only when no definition without a
 * namespace exists, as an uncertain match (`uncertainMatch`). A cluster-scoped definition
 * (ClusterAnalysisTemplate) has no namespace to compare.
 */
export function nearness(d: Placed, site: ReferenceSite, clusterScoped = false): number | undefined {
  const sameFile = site.file !== undefined && d.file === site.file;
  const distance = sameFile
    ? 0
    : (site.file !== undefined && folderOf(d.file) === folderOf(site.file)) || site.peers?.includes(d.file)
      ? 1
      : 2;
  if (clusterScoped) return distance * 2;
  if (site.namespace && d.namespace && site.namespace !== d.namespace) return undefined;
  if (!site.namespace && d.namespace && !sameFile) return UNCERTAIN + distance;
  return distance * 2 + ((site.namespace ?? '') === (d.namespace ?? '') ? 0 : 1);
}

/**
 * The definitions a reference means among the candidates (those of its name and kind): all those
 * at the least nearness. Several equally near are judged together: a rule reports only what holds
 * for every one of them.
 */
export function nearestDefinitions<D extends Placed>(candidates: readonly D[], site: ReferenceSite, clusterScoped = false): D[] {
  let best = Infinity;
  let out: D[] = [];
  for (const d of candidates) {
    const n = nearness(d, site, clusterScoped);
    if (n === undefined || n > best) continue;
    if (n < best) {
      best = n;
      out = [];
    }
    out.push(d);
  }
  return out;
}

/**
 * Whether a definition could be meant at all from this namespace, at any distance (no namespace on
 * one side matches any): the lists a misspelled name is compared with for a "did you mean".
 */
export function inSomeNamespaceOf(d: { readonly namespace?: string }, namespace: string | undefined): boolean {
  return !namespace || !d.namespace || d.namespace === namespace;
}

/**
 * Whether the definitions a reference resolved to are an uncertain match: the document names no
 * namespace and they name one, in another file. They are what it means only if it is applied in
 * their namespace; what they say against it is information, not an error.
 */
export function uncertainMatch(found: readonly Placed[], site: ReferenceSite): boolean {
  return found.length > 0 && !site.namespace && found.every((d) => d.namespace && d.file !== site.file);
}

/** A finding judged against an uncertain match, as information that says on what it depends. */
export function asUncertain<F extends { severity: string; message: string }>(f: F, found: readonly Placed[]): F {
  const namespaces = [...new Set(found.map((d) => d.namespace))].map((n) => `"${n}"`).join(' or ');
  return {
    ...f,
    severity: 'info',
    message: `${f.message} (if this document is applied in namespace ${namespaces}, where that is defined: it names no namespace)`,
  };
}

/** The finding as judged against what the reference resolved to: information when that is an uncertain match. */
export function judged<F extends { severity: string; message: string }>(f: F, found: readonly Placed[], site: ReferenceSite): F {
  return uncertainMatch(found, site) ? asUncertain(f, found) : f;
}

/**
 * For a reference that resolves to nothing although definitions of its name and kind exist in
 * other namespaces: the words that say so, or undefined when there are none.
 */
export function elsewhereNote(named: readonly Placed[], site: ReferenceSite): string | undefined {
  const namespaces = [...new Set(named.map((d) => d.namespace).filter((n): n is string => !!n))].sort();
  if (namespaces.length === 0 || !site.namespace) return undefined;
  return `it is defined only in namespace ${namespaces.map((n) => `"${n}"`).join(', ')}, not in "${site.namespace}"`;
}
