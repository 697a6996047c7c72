// Show Logs' quick pick (src/extension/log-picks.ts): all pods of each revision, each pod with
// several containers as a whole, each container; nothing to pick when there is one container.
import { strict as assert } from 'node:assert';
import { logPickItems, type LogPickWords } from '../../src/extension/log-picks';

const words: LogPickWords = {
  allOfRevision: (r) => `All pods of revision ${r}`,
  allContainers: (p) => `${p} (all containers)`,
  counts: (p, c) => `${p} pods, ${c} containers`,
  revision: (r) => `revision ${r}`,
};

describe('Show Logs: the choices of a revision or a rollout', () => {
  it('revisions first (newest first), then each pod and container, each naming what the terminal follows', () => {
    const items = logPickItems(
      'shop',
      'web',
      [
        { pod: 'web-b-1', container: 'app', revision: 2 },
        { pod: 'web-b-1', container: 'proxy', revision: 2 },
        { pod: 'web-a-1', container: 'app', revision: 1 },
        { pod: 'web-a-2', container: 'app', revision: 1 },
      ],
      words,
    );
    assert.deepEqual(
      items.map((i) => [i.label, i.description, i.scope.shows, i.scope.targets.map((t) => `${t.pod}/${t.container}`).join(' ')]),
      [
        ['All pods of revision 2', '1 pods, 2 containers', 'web revision 2', 'web-b-1/app web-b-1/proxy'],
        ['All pods of revision 1', '2 pods, 2 containers', 'web revision 1', 'web-a-1/app web-a-2/app'],
        ['web-b-1 (all containers)', 'revision 2', 'web-b-1', 'web-b-1/app web-b-1/proxy'],
        ['web-b-1/app', 'revision 2', 'web-b-1/app', 'web-b-1/app'],
        ['web-b-1/proxy', 'revision 2', 'web-b-1/proxy', 'web-b-1/proxy'],
        ['web-a-1', 'app · revision 1', 'web-a-1/app', 'web-a-1/app'],
        ['web-a-2', 'app · revision 1', 'web-a-2/app', 'web-a-2/app'],
      ],
    );
    assert.ok(items.every((i) => i.scope.namespace === 'shop'));
  });

  it("a pod row's containers (no revision): the pod as a whole and each container; one container: no pick", () => {
    const items = logPickItems(
      'shop',
      'web-b-1',
      [
        { pod: 'web-b-1', container: 'app', revision: 0 },
        { pod: 'web-b-1', container: 'proxy', revision: 0 },
      ],
      words,
    );
    assert.deepEqual(
      items.map((i) => [i.label, i.description]),
      [
        ['web-b-1 (all containers)', ''],
        ['web-b-1/app', ''],
        ['web-b-1/proxy', ''],
      ],
    );
    assert.deepEqual(logPickItems('shop', 'web', [{ pod: 'web-b-1', container: 'app', revision: 2 }], words), []);
  });
});
