// The kubeconfig setting takes several files (merged as $KUBECONFIG is), and they are watched:
// a context added in a terminal appears without reconnecting.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { silentLog } from '../../src/cluster/log';
import { kubeconfigFiles, loadKubeconfig } from '../../src/cluster/kubeconfig';
import { Session } from '../../src/extension/session';

/** A kubeconfig with one context per name, each on its own (unreachable) cluster. */
function kubeconfig(names: string[], current?: string): string {
  const lines = ['apiVersion: v1', 'kind: Config', ...(current ? [`current-context: ${current}`] : []), 'clusters:'];
  for (const n of names) lines.push(`- name: ${n}`, '  cluster:', '    server: http://127.0.0.1:9');
  lines.push('users:');
  for (const n of names) lines.push(`- name: ${n}`, '  user:', `    token: token-${n}`);
  lines.push('contexts:');
  for (const n of names) lines.push(`- name: ${n}`, '  context:', `    cluster: ${n}`, `    user: ${n}`);
  return `${lines.join('\n')}\n`;
}

describe('kubeconfig files of the setting', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'rollouts-kubeconfigs-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('several files are merged as kubectl merges $KUBECONFIG: the first to name a context or a current-context wins, missing files are skipped', () => {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    writeFileSync(a, kubeconfig(['alpha', 'shared'], 'alpha'));
    writeFileSync(b, kubeconfig(['beta', 'shared'], 'beta').replace('token-shared', 'token-from-b'));
    const files = kubeconfigFiles({ kubeconfigPaths: [a, join(dir, 'missing'), b], env: { KUBECONFIG: '/elsewhere' } });
    assert.deepEqual(files, [a, join(dir, 'missing'), b], 'the setting wins over $KUBECONFIG');
    assert.deepEqual(
      kubeconfigFiles({ kubeconfigPaths: [`${a}${delimiter}${b}`] }),
      [a, b],
      'one string with the path delimiter is a list too',
    );
    const kc = loadKubeconfig({ kubeconfigPaths: files });
    assert.deepEqual(kc.contexts.map((c) => c.name).sort(), ['alpha', 'beta', 'shared']);
    assert.equal(kc.currentContext, 'alpha');
    assert.equal(kc.getUser('shared')?.token, 'token-shared', 'the first file to define a user wins');
    assert.throws(() => loadKubeconfig({ kubeconfigPaths: [join(dir, 'none')] }), /no kubeconfig found .*rollouts\.kubeconfig setting/);
  });

  it('a context added to a watched file (even one that did not exist) appears in the session without a reconnect', async () => {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    writeFileSync(a, kubeconfig(['alpha'], 'alpha'));
    const session = new Session({ log: silentLog, env: {}, kubeconfig: () => [a, b], kubeconfigPollMs: 50 });
    try {
      await session.connect();
      assert.deepEqual(session.contexts(), ['alpha']);
      const stateBefore = session.state;
      const changed = new Promise<void>((resolve) => {
        const sub = session.onChange(() => {
          if (session.contexts().includes('beta')) {
            sub.dispose();
            resolve();
          }
        });
      });
      writeFileSync(b, kubeconfig(['beta']));
      await changed;
      assert.deepEqual(session.contexts(), ['alpha', 'beta']);
      assert.equal(session.state, stateBefore, 'the connection was left alone');
    } finally {
      await session.close();
    }
  });
});
