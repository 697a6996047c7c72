// Every command's argument parsing (src/cli/args.ts on node:util parseArgs): what it takes, and the
// exact words and exit code of each way to get it wrong.
import { strict as assert } from 'node:assert';
import { parseOptions, parseTargetArgs } from '../../src/cli/args';
import { UsageError } from '../../src/cli/command';
import { main } from '../../src/cli/main';

/** Runs `rollouts ...args` in-process; the exit code and stderr's first line. */
async function run(args: string[]): Promise<{ code: number; first: string }> {
  let err = '';
  const io = {
    out: () => {},
    err: (t: string) => (err += `${t}\n`),
    cwd: process.cwd(),
    env: { ...process.env, KUBECONFIG: '/nonexistent' },
  };
  const code = await main(args, io);
  return { code, first: err.split('\n')[0]! };
}

const refuses = (f: () => unknown, message: string) =>
  assert.throws(f, (e: unknown) => e instanceof UsageError && e.message === message, message);

describe('command-line arguments (parseArgs)', () => {
  it('reads the target: NAME, the last -n, --context=, --kubeconfig, and the rest in order', () => {
    const t = parseTargetArgs(['get', '-n', 'a', 'web', '--namespace=b', '--context=kind', '--kubeconfig', '/k', 'x']);
    assert.deepEqual(
      { name: t.name, namespace: t.namespace, context: t.context, kubeconfig: t.kubeconfig, rest: t.rest },
      { name: 'get', namespace: 'b', context: 'kind', kubeconfig: '/k', rest: ['web', 'x'] },
    );
    assert.deepEqual(parseTargetArgs(['-nteam', 'web']).namespace, 'team');
  });

  it('takes short and long spellings, repeated and comma-listed values', () => {
    const table = {
      watch: { type: 'boolean', short: 'w' },
      file: { type: 'string', short: 'f', multiple: true },
      tag: { type: 'string', list: true },
    } as const;
    const { options, positionals } = parseOptions(['-w', '-f', 'a', '--file=b', '--tag', 'x, y', '--tag=x', '--', '-z'], table);
    assert.deepEqual(options, { watch: true, file: ['a', 'b'], tag: ['x', 'y'] });
    assert.deepEqual(positionals, ['-z']);
  });

  it('says what is wrong in our words', () => {
    refuses(() => parseTargetArgs(['web', '--watch']), 'unknown option "--watch"');
    refuses(() => parseTargetArgs(['web', '--bogus=1']), 'unknown option "--bogus"');
    refuses(() => parseTargetArgs(['web', '-x']), 'unknown option "-x"');
    refuses(() => parseTargetArgs(['web', '-n']), '-n needs a value');
    refuses(() => parseTargetArgs(['web', '--context=']), '--context needs a value');
    refuses(() => parseTargetArgs(['web', '--watch=yes'], { watch: { type: 'boolean' } }), '--watch takes no value');
    refuses(() => parseTargetArgs(['web', 'extra'], {}, { maxPositionals: 1 }), 'unexpected argument "extra"');
    refuses(() => parseOptions(['--tag', 'a,,b'], { tag: { type: 'string', list: true } }), '--tag "a,,b": an empty value');
  });

  it('a value may start with "-": the command judges it', () => {
    assert.equal(parseTargetArgs(['web', '-n', '-x']).namespace, '-x');
  });

  // Each command's parser, through main: the message after "rollouts CMD: " and exit 2 (with the usage).
  const cases: Array<[string[], string]> = [
    [['get'], 'rollouts get: name the rollout: ROLLOUT is required'],
    [['get', 'web', '--bogus'], 'rollouts get: unknown option "--bogus"'],
    [['get', 'web', 'x'], 'rollouts get: unexpected argument "x": give a rollout NAME, or rollout NAME or experiment NAME'],
    [['get', 'rollout', 'web', 'x'], 'rollouts get: unexpected argument "x"'],
    [['get', 'web', '-n'], 'rollouts get: -n needs a value'],
    [['list', '-A', '-n', 'a'], 'rollouts list: give either --all-namespaces or --namespace, not both'],
    [['list', 'pods'], 'rollouts list: unexpected argument "pods": list rollouts or list experiments'],
    [['status', 'web', '--timeout'], 'rollouts status: --timeout needs a value'],
    [['promote', 'web', '--full=yes'], 'rollouts promote: --full takes no value'],
    [['terminate'], 'rollouts terminate: say what to terminate: analysisrun NAME or experiment NAME'],
    [['terminate', 'ar', 'x', 'y'], 'rollouts terminate: unexpected argument "y"'],
    [['controller', 'web'], 'rollouts controller: unexpected argument "web"'],
    [['controller', '-n', 'a,,b'], 'rollouts controller: -n "a,,b": an empty namespace name'],
    [['apply', '-f'], 'rollouts apply: -f needs a FILE'],
    [['apply', '--filename='], 'rollouts apply: --filename needs a FILE'],
    [['apply', '-f', 'a.yaml', 'b.yaml'], 'rollouts apply: unexpected argument "b.yaml": name files with -f FILE'],
    [['apply', '-f', 'a.yaml', '--force'], 'rollouts apply: unknown option "--force"'],
    [['lint'], 'rollouts lint: give at least one FILE or DIR to lint'],
    [['lint', '--format'], 'rollouts lint: --format needs a value: text, json or sarif'],
    [['lint', '--format=xml', 'a.yaml'], 'rollouts lint: --format must be "text", "json" or "sarif", got "xml"'],
    [['lint', '--strict', 'a.yaml'], 'rollouts lint: unknown option "--strict"'],
    [['simulate'], 'rollouts simulate: FILE is missing'],
    [['simulate', 'a.yaml', 'b.yaml'], 'rollouts simulate: one FILE only, got "a.yaml" and "b.yaml"'],
    [['simulate', 'a.yaml', '--max-frames'], 'rollouts simulate: --max-frames needs a value'],
    [['simulate', 'a.yaml', '--abort-at-step', '-1'], 'rollouts simulate: --abort-at-step must be a whole number, 0 or more, got "-1"'],
    [['simulate', 'a.yaml', '--format', 'xml'], 'rollouts simulate: --format must be "table" or "json", got "xml"'],
    [['simulate', 'a.yaml', '-q'], 'rollouts simulate: unknown option "-q"'],
    [['cluster', '--port'], 'rollouts cluster: --port needs a value'],
    [['cluster', '--demo=1'], 'rollouts cluster: --demo takes no value'],
    [['cluster', 'now'], 'rollouts cluster: unexpected argument "now"'],
    [['schema', 'rollout'], 'rollouts schema: unexpected argument "rollout"'],
    [['schema', '--json'], 'rollouts schema: unknown option "--json"'],
    [['version', '--short'], 'rollouts version: unknown option "--short"'],
  ];
  for (const [args, message] of cases)
    it(`rollouts ${args.join(' ')}: exit 2, "${message}"`, async () => {
      assert.deepEqual(await run(args), { code: 2, first: message });
    });
});
