// `rollouts version` (and `--version`): the tool's version, the package's.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string };

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t), cwd: process.cwd(), env: {} });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('rollouts version', () => {
  it('prints the version of the package, for `version` and `--version`', async () => {
    assert.match(pkg.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(await run(['version']), { code: 0, out: `rollouts: v${pkg.version}`, err: '' });
    assert.deepEqual(await run(['--version']), { code: 0, out: `rollouts: v${pkg.version}`, err: '' });
  });
  it('takes no arguments', async () => {
    const r = await run(['version', 'extra']);
    assert.equal(r.code, 2);
    assert.match(r.err, /^rollouts version: unexpected argument "extra"/);
  });
});
