// `rollouts controller -n ...`: which namespaces it is given, and a clear word for a bad one.
import { strict as assert } from 'node:assert';
import { parseControllerArgs } from '../../src/cli/commands/controller';
import { parseTargetArgs } from '../../src/cli/args';
import { UsageError } from '../../src/cli/command';

const namespacesOf = (args: string[]) => parseControllerArgs(args).namespaces;

describe('rollouts controller namespaces', () => {
  it('takes -n repeated, --namespace, --namespace=, and commas, in order, once each', () => {
    assert.deepEqual(namespacesOf([]), []);
    assert.deepEqual(namespacesOf(['-n', 'a']), ['a']);
    assert.deepEqual(namespacesOf(['-n', 'a', '--namespace', 'b', '--namespace=c,d', '-n', 'a']), ['a', 'b', 'c', 'd']);
    assert.deepEqual(namespacesOf(['-n', 'team-a, team-b', '--force']), ['team-a', 'team-b']);
  });

  it('says which value is not a namespace name', () => {
    assert.throws(
      () => namespacesOf(['-n', 'a,,b']),
      (e: Error) => e instanceof UsageError && e.message === `-n "a,,b": an empty namespace name`,
    );
    assert.throws(() => namespacesOf(['-n', 'Team_A']), /-n "Team_A": "Team_A" is not a namespace name/);
    assert.throws(() => namespacesOf(['--namespace=a,Team_A']), /^Error: --namespace "a,Team_A": "Team_A" is not a namespace name/);
  });

  it('takes --force, and no positional', () => {
    assert.equal(parseControllerArgs(['--force', '-n', 'a']).force, true);
    assert.equal(parseControllerArgs([]).force, false);
    assert.throws(
      () => parseControllerArgs(['web']),
      (e: Error) => e instanceof UsageError && e.message === 'unexpected argument "web"',
    );
  });

  it("other commands keep kubectl's rule: the last -n wins", () => {
    assert.equal(parseTargetArgs(['web', '-n', 'a', '-n', 'b']).namespace, 'b');
  });
});
