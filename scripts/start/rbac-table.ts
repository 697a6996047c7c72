/**
 * docs/rbac.md's table (habit 5: a mirror with a check), generated from src/cluster/rbac-needs.ts;
 * test/cluster/rbac-doc.test.ts fails when docs/rbac.md drifts.
 * Regenerate: node --import tsx scripts/start/rbac-table.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rbacTable } from '../../src/cluster/rbac-needs';

export const RBAC_DOC = join(__dirname, '..', '..', 'docs', 'rbac.md');
const marker = /(<!-- generated:rbac -->\n)([\s\S]*?)(<!-- \/generated:rbac -->)/;

/** The table in docs/rbac.md between its markers (undefined where the markers are missing). */
export function documentedTable(doc: string): string | undefined {
  return doc.match(marker)?.[2]?.replace(/\n$/, '');
}

export function regenerate(doc: string): string {
  if (!marker.test(doc)) throw new Error('docs/rbac.md has no <!-- generated:rbac --> ... <!-- /generated:rbac --> markers');
  return doc.replace(marker, (_m, open: string, _old: string, close: string) => `${open}${rbacTable()}\n${close}`);
}

if (require.main === module) {
  writeFileSync(RBAC_DOC, regenerate(readFileSync(RBAC_DOC, 'utf8')));
  console.log('docs/rbac.md: regenerated the rbac table');
}
