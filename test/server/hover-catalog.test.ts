// Hover knows every field of the catalogs: for each catalog path, a minimal Rollout (or
// AnalysisTemplate, ClusterAnalysisTemplate, Experiment) holding that field is hovered on its key, through the
// language service (the LSP suites cover the transport).
import { strict as assert } from 'node:assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  analysisTemplateCatalog,
  catalogFields,
  clusterAnalysisTemplateCatalog,
  experimentCatalog,
  rolloutCatalog,
  type FieldSpec,
} from '../../src/schema';
import { createLanguageService } from '../../src/server/service';

/** YAML with the path's keys nested (list indices become "- " items); the caret position is the last key's. */
function manifestWith(path: readonly (string | number)[], kind = 'Rollout'): { text: string; line: number; character: number } {
  const lines = ['apiVersion: argoproj.io/v1alpha1', `kind: ${kind}`];
  if (path[0] === 'apiVersion' || path[0] === 'kind')
    return { text: lines.join('\n') + '\n', line: path[0] === 'kind' ? 1 : 0, character: 1 };
  let indent = '';
  let pendingDash = false;
  let last = { line: 0, character: 0 };
  for (const seg of path) {
    if (typeof seg === 'number') {
      pendingDash = true;
      continue;
    }
    const prefix = pendingDash ? `${indent}- ` : indent;
    lines.push(`${prefix}${seg}:`);
    last = { line: lines.length - 1, character: prefix.length };
    indent = pendingDash ? `${indent}    ` : `${indent}  `;
    pendingDash = false;
  }
  return { text: lines.join('\n') + '\n', ...last };
}

describe('hover on every catalog field', () => {
  const catalogs: [string, FieldSpec, number][] = [
    ['Rollout', rolloutCatalog, 150],
    ['AnalysisTemplate', analysisTemplateCatalog, 120],
    ['ClusterAnalysisTemplate', clusterAnalysisTemplateCatalog, 120],
    ['Experiment', experimentCatalog, 60],
  ];
  for (const [kind, catalog, atLeast] of catalogs) {
    it(`shows the field name, its type and its docs (${kind})`, () => {
      const service = createLanguageService();
      let checked = 0;
      const missing: string[] = [];
      for (const { path, spec } of catalogFields(catalog)) {
        if (path.length === 0 || typeof path[path.length - 1] === 'number') continue;
        const { text, line, character } = manifestWith(path, kind);
        const doc = TextDocument.create(`file:///catalog/${kind}-${checked}.yaml`, 'yaml', 1, text);
        const h = service.hover(doc, { line, character });
        const value = h ? (h.contents as { value: string }).value : '';
        if (!value.includes(`**${spec.name}**`) || !value.includes(spec.docs.slice(0, 40)) || !value.includes(`\`${spec.type}`))
          missing.push(path.join('.'));
        checked++;
      }
      assert.deepEqual(missing, [], `no full hover for:\n${missing.join('\n')}`);
      assert.ok(checked > atLeast, `only ${checked} catalog fields`);
    });
  }
});
