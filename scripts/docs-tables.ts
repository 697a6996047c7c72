/**
 * The documentation's generated tables (habit 5: a mirror with a check). The rule tables come from
 * src/schema's `rules`, `templateRules` and `experimentRules`, the command and settings tables from
 * package.json (its `%key%` strings resolved through package.nls.json, as VS Code shows them).
 * test/start/docs.test.ts fails when a file drifts.
 * Regenerate: node --import tsx scripts/docs-tables.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeAnchor, DIAGNOSTIC_CODES, experimentRules, rules, templateRules } from '../src/schema';

const ROOT = join(__dirname, '..');

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function table(list: ReadonlyArray<{ code: string; summary: string }>): string {
  return ['| code | what it checks |', '| --- | --- |', ...list.map((r) => `| \`${r.code}\` | ${cell(r.summary)} |`)].join('\n');
}

interface Manifest {
  contributes: {
    commands: Array<{ command: string; title: string; category?: string }>;
    configuration: { properties: Record<string, { type: string; default: unknown; description?: string; markdownDescription?: string }> };
  };
}

/** package.json with its `%key%` strings replaced by package.nls.json's (where that file exists), as VS Code reads it. */
export function localizedManifest<T = Manifest>(): T {
  const text = readFileSync(join(ROOT, 'package.json'), 'utf8');
  let nls: Record<string, string> = {};
  try {
    nls = JSON.parse(readFileSync(join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
  } catch {
    /* no package.nls.json: the strings are literal */
  }
  return JSON.parse(text, (_k, v: unknown) =>
    typeof v === 'string' && /^%[^%\s]+%$/.test(v) && nls[v.slice(1, -1)] !== undefined ? nls[v.slice(1, -1)] : v,
  ) as T;
}

/** Which documentation file holds each generated block. */
export const blockFiles = {
  'rollout-rules': 'docs/features.md',
  'template-rules': 'docs/features.md',
  'experiment-rules': 'docs/features.md',
  'diagnostic-codes': 'docs/features.md',
  commands: 'docs/features.md',
  settings: 'docs/features.md',
} as const;
export type BlockName = keyof typeof blockFiles;

/** Each generated block, by the name of its markers. */
export function generatedBlocks(): Record<BlockName, string> {
  const m = localizedManifest();
  const commands = [
    '| command | id |',
    '| --- | --- |',
    ...m.contributes.commands.map((c) => `| ${c.category ? `${c.category}: ` : ''}${cell(c.title)} | \`${c.command}\` |`),
  ].join('\n');
  const settings = [
    '| setting | default | what it does |',
    '| --- | --- | --- |',
    ...Object.entries(m.contributes.configuration.properties).map(
      ([k, p]) => `| \`${k}\` | \`${JSON.stringify(p.default)}\` | ${cell(p.markdownDescription ?? p.description ?? '')} |`,
    ),
  ].join('\n');
  return {
    'rollout-rules': table(rules),
    'template-rules': table(templateRules),
    'experiment-rules': table(experimentRules),
    // Every code with its anchor (the target of SARIF's helpUri, codeHelpUri), default severity and help.
    'diagnostic-codes': [
      '| code | default | why it matters, and how to fix it |',
      '| --- | --- | --- |',
      ...DIAGNOSTIC_CODES.map((c) => `| <a id="${codeAnchor(c.code)}"></a>\`${c.code}\` | ${c.severity} | ${cell(c.help)} |`),
    ].join('\n'),
    commands,
    settings,
  };
}

const marker = (name: string) => new RegExp(`(<!-- generated:${name} -->\\n)([\\s\\S]*?)(<!-- /generated:${name} -->)`);

/** The text between the markers of each of `names` in `text` (undefined where the markers are missing). */
export function blocksIn(text: string, names: readonly string[]): Record<string, string | undefined> {
  return Object.fromEntries(names.map((name) => [name, text.match(marker(name))?.[2]?.replace(/\n$/, '')]));
}

/** `text` with each of the named blocks replaced by its generated table. */
export function regenerate(text: string, file: string, blocks: Partial<Record<string, string>>): string {
  let out = text;
  for (const [name, table] of Object.entries(blocks)) {
    if (!marker(name).test(out)) throw new Error(`${file} has no <!-- generated:${name} --> ... <!-- /generated:${name} --> markers`);
    out = out.replace(marker(name), (_m, open: string, _old: string, close: string) => `${open}${table}\n${close}`);
  }
  return out;
}

if (require.main === module) {
  const all = generatedBlocks();
  for (const file of new Set(Object.values(blockFiles))) {
    const names = (Object.keys(blockFiles) as BlockName[]).filter((n) => blockFiles[n] === file);
    const path = join(ROOT, file);
    writeFileSync(path, regenerate(readFileSync(path, 'utf8'), file, Object.fromEntries(names.map((n) => [n, all[n]]))));
    console.log(`${file}: regenerated ${names.join(', ')}`);
  }
}
