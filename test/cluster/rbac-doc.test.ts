// docs/rbac.md's table is what src/cluster/rbac-needs.ts says (habit 5: a mirror with a check).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { rbacRows, rbacTable, forbiddenSentence, rbacRow, without, permissionsOf } from '../../src/cluster/rbac-needs';
import { RBAC_DOC, documentedTable } from '../../scripts/start/rbac-table';
import { ACTION_ORDER } from '../../src/cluster/action-catalog';

describe('docs/rbac.md', () => {
  it('its generated table equals what src/cluster/rbac-needs.ts declares', () => {
    const table = documentedTable(readFileSync(RBAC_DOC, 'utf8'));
    assert.ok(table !== undefined, 'docs/rbac.md has no <!-- generated:rbac --> block');
    assert.equal(table, rbacTable(), 'docs/rbac.md is out of date; regenerate with: node --import tsx scripts/start/rbac-table.ts');
  });

  it('has one line per row, each naming every resource of the row', () => {
    const lines = rbacTable().split('\n').slice(2);
    assert.equal(lines.length, rbacRows.length);
    rbacRows.forEach((row, i) => {
      for (const n of row.needs) for (const r of n.resources) assert.ok(lines[i]!.includes(r.split('/')[0]!), `${row.id}: ${r}`);
    });
  });
});

describe('RBAC rows as data', () => {
  it('every action of the catalog is covered by exactly one row', () => {
    for (const action of ACTION_ORDER) {
      assert.equal(rbacRows.filter((r) => r.actions?.includes(action)).length, 1, action);
    }
  });

  it('taking one permission away leaves every other one of the row', () => {
    for (const row of rbacRows) {
      const all = permissionsOf(row);
      for (const p of all) {
        const left = permissionsOf({ ...row, needs: without(row.needs, p) });
        assert.deepEqual(
          left.map((x) => JSON.stringify(x)).sort(),
          all
            .filter((x) => x !== p)
            .map((x) => JSON.stringify(x))
            .sort(),
          `${row.id} without ${p.verb} ${p.resource}`,
        );
      }
    }
  });

  it('a 403 names the missing verb, resource and namespace, and what the action needs', () => {
    const message =
      'rollouts.argoproj.io "web" is forbidden: User "system:serviceaccount:a:b" cannot patch resource "rollouts/status" in API group "argoproj.io" in the namespace "shop"';
    assert.equal(
      forbiddenSentence(message, rbacRow('promote')),
      `you may not patch \`rollouts.argoproj.io/status\` in namespace "shop"; Promote, Promote Full, Abort, Retry needs \`get\` on \`rollouts.argoproj.io\`; \`patch\` on \`rollouts.argoproj.io/status\`; the API server said: ${message}`,
    );
    assert.equal(
      forbiddenSentence('nodes is forbidden: User "u" cannot list resource "nodes" in API group "" at the cluster scope'),
      'you may not list `nodes` in every namespace; the API server said: nodes is forbidden: User "u" cannot list resource "nodes" in API group "" at the cluster scope',
    );
    assert.equal(forbiddenSentence('something else'), 'something else');
  });
});
