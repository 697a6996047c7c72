// The words of the extension's questions and its view's title: title case like the command names,
// naming what they act on, short enough for the default side bar.
import { strict as assert } from 'node:assert';
import { localizedManifest } from '../../scripts/docs-tables';
import { commandSpecs } from '../../src/extension/command-specs';
import { containerPickTitle, onlyContextText, pickTitle, setImageInput } from '../../src/extension/prompt-text';

const pkg = localizedManifest<any>(); // as VS Code reads it: %key% strings resolved through package.nls.json

describe('prompt texts', () => {
  it("a rollout pick's title is its command's, as the palette shows it", () => {
    assert.equal(pickTitle('rollouts.promote'), 'Argo Rollouts: Promote');
    assert.equal(pickTitle('rollouts.promoteFull'), 'Argo Rollouts: Promote Full');
    assert.equal(pickTitle('rollouts.setImage'), 'Argo Rollouts: Set Image');
    assert.equal(pickTitle('rollouts.restart'), 'Argo Rollouts: Restart Pods');
    assert.equal(pickTitle('rollouts.undo'), 'Argo Rollouts: Undo (Roll Back)');
  });

  it('every command title (and so every pick title) is in title case', () => {
    // Short prepositions stay lower case, as in VS Code's own "Compare with Saved".
    const small = new Set(['to', 'of', 'in', 'on', 'with', 'that', 'the', 'a', 'an', 'and', 'or', 'for']);
    for (const spec of Object.values(commandSpecs)) {
      for (const word of spec.title.replace(/[()]/g, '').split(' ')) {
        if (!small.has(word)) assert.match(word, /^[A-Z]/, `"${word}" in "${spec.title}"`);
      }
    }
  });

  it('Set Image names the rollout and the container, says what runs now, and selects only the tag; it proposes no example', () => {
    const input = setImageInput('canary-demo', 'app', 'argoproj/rollouts-demo:blue');
    assert.equal(input.title, 'Argo Rollouts: Set Image: Rollout "canary-demo", Container "app"');
    assert.equal(input.value, 'argoproj/rollouts-demo:blue');
    assert.deepEqual(input.valueSelection, ['argoproj/rollouts-demo:'.length, 'argoproj/rollouts-demo:blue'.length]);
    assert.match(input.prompt, /^Now argoproj\/rollouts-demo:blue\./);
    assert.doesNotMatch(input.prompt, /example|yellow/);
    // A registry with a port is not a tag; a digest is selected after its "@".
    assert.equal(setImageInput('r', 'c', 'registry:5000/app').valueSelection, undefined);
    assert.deepEqual(setImageInput('r', 'c', 'app@sha256:abc').valueSelection, [4, 'app@sha256:abc'.length]);
    assert.equal(setImageInput('r', 'c', undefined).value, '');
    assert.equal(containerPickTitle('canary-demo'), 'Argo Rollouts: Set Image: Which Container of Rollout "canary-demo"?');
  });

  it('Select Context with one context says there is no other, and how to add one', () => {
    assert.match(
      onlyContextText('prod', true),
      /^The kubeconfig has one context, "prod", and it is connected: there is no other to select\. Add contexts/,
    );
    assert.match(onlyContextText('prod', false), /^The kubeconfig has one context, "prod": there is no other/);
  });
});

describe('the view title', () => {
  it('the view has the name of its container, so the header says "Argo Rollouts" once instead of "Argo Rollouts: Rollouts" cut short', () => {
    const container = pkg.contributes.viewsContainers.activitybar.find((c: { id: string }) => c.id === 'rollouts');
    const view = pkg.contributes.views.rollouts.find((v: { id: string }) => v.id === 'rollouts.view');
    // VS Code titles a container with one view "CONTAINER: VIEW" unless the two names are equal.
    assert.equal(view.name, container.title);
    assert.ok(container.title.length <= 20, container.title);
  });
});
