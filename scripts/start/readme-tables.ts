/**
 * The README's generated tables (habit 5: a mirror with a check). The rule tables come from
 * src/schema's `rules`, `templateRules` and `experimentRules`; test/start/readme.test.ts fails when README.md drifts.
 * Regenerate: node --import tsx scripts/start/readme-tables.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { experimentRules, rules, templateRules } from '../../src/schema';

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

function manifest(): Manifest {
  return JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as Manifest;
}

/** Each generated block, by the name of its markers in README.md. */
export function generatedBlocks(): Record<string, string> {
  const m = manifest();
  const commands = ['| command | id |', '| --- | --- |', ...m.contributes.commands.map((c) => `| ${c.category ? `${c.category}: ` : ''}${cell(c.title)} | \`${c.command}\` |`)].join('\n');
  const settings = [
    '| setting | default | what it does |',
    '| --- | --- | --- |',
    ...Object.entries(m.contributes.configuration.properties).map(([k, p]) => `| \`${k}\` | \`${JSON.stringify(p.default)}\` | ${cell(p.markdownDescription ?? p.description ?? '')} |`),
  ].join('\n');
  return { 'rollout-rules': table(rules), 'template-rules': table(templateRules), 'experiment-rules': table(experimentRules), commands, settings };
}

const marker = (name: string) => new RegExp(`(<!-- generated:${name} -->\\n)([\\s\\S]*?)(<!-- /generated:${name} -->)`);

/** The text of README between the markers of each block (undefined where the markers are missing). */
export function readmeBlocks(readme: string): Record<string, string | undefined> {
  return Object.fromEntries(Object.keys(generatedBlocks()).map((name) => [name, readme.match(marker(name))?.[2]?.replace(/\n$/, '')]));
}

export function regenerate(readme: string): string {
  let out = readme;
  for (const [name, text] of Object.entries(generatedBlocks())) {
    if (!marker(name).test(out)) throw new Error(`README.md has no <!-- generated:${name} --> ... <!-- /generated:${name} --> markers`);
    out = out.replace(marker(name), (_m, open: string, _old: string, close: string) => `${open}${text}\n${close}`);
  }
  return out;
}

if (require.main === module) {
  const path = join(__dirname, '..', '..', 'README.md');
  writeFileSync(path, regenerate(readFileSync(path, 'utf8')));
  console.log(`README.md: regenerated ${Object.keys(generatedBlocks()).join(', ')}`);
}
