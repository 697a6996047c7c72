/**
 * What a newcomer runs first from the README: `rollouts --help` and `rollouts COMMAND --help`
 * for every command, and `rollouts lint` on the demo workspace, where only demo/mistakes.yaml
 * has problems (the ones the README's screenshot shows).
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main';
import { commands } from '../../src/cli/commands';

const ROOT = join(__dirname, '..', '..');

async function rollouts(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), cwd: ROOT, env: {} });
  return { code, out, err };
}

describe('the rollouts CLI, as the README shows it', () => {
  it("is the package's bin, built to dist/cli.js", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    assert.equal(pkg.bin.rollouts, './dist/cli.js');
  });

  it('rollouts --help lists every command and states the exit codes', async () => {
    const r = await rollouts('--help');
    assert.equal(r.code, 0);
    for (const c of commands) assert.match(r.out, new RegExp(`^  ${c.name} `, 'm'));
    assert.match(r.out, /Exit codes: 0 success, 1 the command found a problem, 2 bad usage/);
  });

  for (const c of commands) {
    it(`rollouts ${c.name} --help prints its usage and exits 0`, async () => {
      const r = await rollouts(c.name, '--help');
      assert.equal(r.code, 0);
      assert.match(r.out, new RegExp(`^Usage: rollouts ${c.name}\\b`));
      assert.equal(r.err, '');
    });
  }

  it('an unknown option exits 2 with the usage', async () => {
    const r = await rollouts('lint', '--no-such-option', 'demo/mistakes.yaml');
    assert.equal(r.code, 2);
    assert.match(r.err, /Usage: rollouts lint/);
  });
});

describe('the demo workspace', () => {
  const demo = join(ROOT, 'demo');
  const files = readdirSync(demo)
    .filter((f) => f.endsWith('.yaml'))
    .sort();

  it('lints clean except demo/mistakes.yaml', async () => {
    const r = await rollouts('lint', '--format', 'json', ...files.filter((f) => f !== 'mistakes.yaml').map((f) => join(demo, f)));
    const report = JSON.parse(r.out) as { files: Array<{ file: string; diagnostics: unknown[] }> };
    assert.deepEqual(
      report.files.filter((f) => f.diagnostics.length > 0),
      [],
    );
    assert.equal(r.code, 0);
  });

  it('demo/mistakes.yaml shows an out-of-range setWeight and a bad duration as errors (exit 1)', async () => {
    const r = await rollouts('lint', '--format', 'json', ...files.map((f) => join(demo, f)));
    assert.equal(r.code, 1);
    const report = JSON.parse(r.out) as {
      files: Array<{ file: string; diagnostics: Array<{ code: string; severity: string; line: number }> }>;
    };
    const mistakes = report.files.find((f) => f.file.endsWith('mistakes.yaml'))!;
    const errors = mistakes.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}@${d.line}`);
    // The e2e test hovers line 25 (setWeight: 150).
    assert.deepEqual(errors.sort(), ['bad-duration@26', 'set-weight-range@25']);
  });
});
