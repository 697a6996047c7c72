// The Kubernetes descriptions of the pod template's types, for hover and completion: read at build time from the
// comments of @kubernetes/client-node's model declarations (the library ships them only in its .d.ts files) and
// written to dist/kubernetes-docs.json, which the language server reads when it first needs one.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Where the pod template's types start: src/schema/kubernetes-fields.ts reaches the same models from these. */
export const ROOT_MODELS = ['V1PodTemplateSpec', 'V1ObjectMeta', 'V1LabelSelector'];

/** A doc comment's text: its lines without the leading `*`, the generator's escapes undone. */
function commentText(body) {
  return body
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter((line) => line !== '')
    .join(' ')
    .replace(/\\(['"\\])/g, '$1');
}

/**
 * One model's declaration: `$` is the class's own description, then one entry per described field; and the models
 * it imports (its fields' types).
 */
export function readDeclaration(text) {
  const descriptions = {};
  const classDoc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export declare class \w+/.exec(text);
  if (classDoc) descriptions.$ = commentText(classDoc[1]);
  for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*'([^']+)'\??:/g)) descriptions[m[2]] = commentText(m[1]);
  const imports = [...text.matchAll(/from '\.\.\/models\/(\w+)\.js'/g)].map((m) => m[1]);
  return { descriptions, imports };
}

/** The descriptions of every model the roots reach, by model name. `read(model)` gives a declaration's text. */
export function kubernetesDocs(read, roots = ROOT_MODELS) {
  const out = {};
  const queue = [...roots];
  for (let model = queue.shift(); model !== undefined; model = queue.shift()) {
    if (Object.hasOwn(out, model)) continue;
    const { descriptions, imports } = readDeclaration(read(model));
    out[model] = descriptions;
    queue.push(...imports);
  }
  return out;
}

/** Reads the installed library's declarations. */
export function installedDeclaration(model) {
  const require = createRequire(import.meta.url);
  const models = join(dirname(require.resolve('@kubernetes/client-node/package.json')), 'dist/gen/models');
  return readFileSync(join(models, `${model}.d.ts`), 'utf8');
}

export function writeKubernetesDocs(outFile) {
  writeFileSync(outFile, JSON.stringify(kubernetesDocs(installedDeclaration)));
}
