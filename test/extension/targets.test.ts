// Which rollout a command acts on (src/extension/targets.ts, the one parser of command targets).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rolloutRefFrom } from '../../src/extension/targets';
import { pickTitle } from '../../src/extension/prompt-text';
import { commandSpecs } from '../../src/extension/command-specs';

describe('rollout targets', () => {
  it('takes a rollout tree element or a plain reference, with its context when given', () => {
    assert.deepEqual(rolloutRefFrom({ kind: 'rollout', context: 'kind', namespace: 'shop', name: 'checkout' }), {
      context: 'kind',
      namespace: 'shop',
      name: 'checkout',
    });
    assert.deepEqual(rolloutRefFrom({ namespace: 'shop', name: 'checkout' }), { namespace: 'shop', name: 'checkout' });
  });

  it('leaves anything else to the palette: another kind, no namespace, nothing', () => {
    assert.equal(rolloutRefFrom({ kind: 'analysisRun', namespace: 'shop', run: 'x', name: 'x' }), undefined);
    assert.equal(rolloutRefFrom({ name: 'checkout' }), undefined);
    assert.equal(rolloutRefFrom({ namespace: 'shop', name: 7 }), undefined);
    assert.equal(rolloutRefFrom(undefined), undefined);
  });

  it('refuses an empty name, saying so (it used to be taken as a rollout named "")', () => {
    assert.throws(
      () => rolloutRefFrom({ namespace: 'shop', name: '' }),
      (e: Error) =>
        e.message === 'Cannot act on the rollout in namespace "shop": its name is empty. Name the rollout, or choose it from the list.',
    );
  });
});

describe('quick pick titles', () => {
  it('the terminate picks are titled as the palette names their commands', () => {
    assert.equal(pickTitle('rollouts.terminateAnalysisRun'), 'Argo Rollouts: Terminate AnalysisRun');
    assert.equal(pickTitle('rollouts.terminateExperiment'), 'Argo Rollouts: Terminate Experiment');
  });

  it('no source of the extension writes a command\'s title ("Argo Rollouts: Terminate Experiment") of its own: pickTitle makes it', () => {
    const dir = join(__dirname, '../../src/extension');
    const titles = Object.values(commandSpecs).map((s) => s.title);
    const own = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'command-specs.ts' && f !== 'prompt-text.ts')
      .flatMap((f) => {
        // The code, without its comment lines (which may quote a title).
        const code = readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .filter((l) => !/^\s*(\*|\/\/|\/\*)/.test(l))
          .join('\n');
        // "Argo Rollouts: Terminate ${kind}" counts too: written words that begin a command's title.
        return [...code.matchAll(/Argo Rollouts: ([A-Z][^`'"$]*)/g)]
          .map((m) => m[1]!.trim())
          .filter((words) => titles.some((t) => t === words || t.startsWith(`${words} `)))
          .map((words) => `${f}: Argo Rollouts: ${words}`);
      });
    assert.deepEqual(own, []);
  });
});
