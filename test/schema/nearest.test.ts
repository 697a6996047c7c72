// References resolve to the nearest definitions: the same file, then the same folder, then the
// workspace; the reference's namespace first. Linting many applications together gives each one
// the verdicts it gets alone.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createWorkspaceIndex, definitionsInFile, formatPath, parseFile, validateFile, type Finding } from '../../src/schema';
import { nearestDefinitions, uncertainMatch } from '../../src/schema/nearest';
import { itRealWorld, REAL_WORLD, UPSTREAM } from '../support/peer';
import { analysisTemplate, blueGreenRollout, canaryRollout, service, summary, yamlOf } from './support';

type Obj = Record<string, unknown>;
const inNamespace = (doc: Obj, namespace: string): Obj => ({ ...doc, metadata: { ...(doc.metadata as Obj), namespace } });

/** Lints files (name -> text) as one workspace, as `rollouts lint` does; findings by file. */
function lintFiles(files: Record<string, string>): Record<string, Finding[]> {
  const ws = createWorkspaceIndex();
  const parsed = Object.entries(files).map(([file, text]) => [file, parseFile(text)] as const);
  for (const [file, p] of parsed) ws.setFile(file, definitionsInFile(file, p));
  return Object.fromEntries(parsed.map(([file, p]) => [file, validateFile(p, ws, { file })]));
}

describe('references resolve to the nearest definitions', () => {
  const at = (file: string, namespace?: string) => ({ file, ...(namespace ? { namespace } : {}) });

  it('the same file, then the same folder, then the workspace', () => {
    const defs = [at('a/x.yaml'), at('b/y.yaml'), at('a/z.yaml'), at('a/rollout.yaml')];
    assert.deepEqual(nearestDefinitions(defs, { file: 'a/rollout.yaml' }), [at('a/rollout.yaml')]);
    assert.deepEqual(
      nearestDefinitions(defs.slice(0, 3), { file: 'a/rollout.yaml' }),
      [at('a/x.yaml'), at('a/z.yaml')],
      'equally near: both',
    );
    assert.deepEqual(nearestDefinitions(defs.slice(0, 3), { file: 'c/rollout.yaml' }), defs.slice(0, 3), 'none near: all of the workspace');
    assert.deepEqual(nearestDefinitions(defs, {}), defs, 'an unknown file: every definition equally far');
  });

  it('a file a kustomization builds with the document is as near as its folder', () => {
    const defs = [at('shared/services.yaml'), at('other/services.yaml')];
    assert.deepEqual(nearestDefinitions(defs, { file: 'apps/web/rollout.yaml', peers: ['shared/services.yaml'] }), [
      at('shared/services.yaml'),
    ]);
    assert.deepEqual(
      nearestDefinitions([...defs, at('apps/web/svc.yaml')], { file: 'apps/web/rollout.yaml', peers: ['shared/services.yaml'] }),
      [at('shared/services.yaml'), at('apps/web/svc.yaml')],
    );
  });

  it("at one distance, the reference's own namespace before one that only one side names; never another namespace", () => {
    const defs = [at('a/x.yaml'), at('a/y.yaml', 'shop'), at('a/z.yaml', 'other')];
    assert.deepEqual(nearestDefinitions(defs, { file: 'a/r.yaml', namespace: 'shop' }), [at('a/y.yaml', 'shop')]);
    assert.deepEqual(
      nearestDefinitions(defs.slice(0, 1), { file: 'a/r.yaml', namespace: 'shop' }),
      [at('a/x.yaml')],
      'one without a namespace',
    );
    assert.deepEqual(nearestDefinitions(defs.slice(2), { file: 'a/r.yaml', namespace: 'shop' }), []);
    // Nearer wins over a namespace that only one side names.
    assert.deepEqual(nearestDefinitions([at('r.yaml'), at('b/y.yaml', 'shop')], { file: 'r.yaml', namespace: 'shop' }), [at('r.yaml')]);
  });

  it('a document without a namespace takes one that names a namespace from its own file, else only where none without one exists, as an uncertain match', () => {
    assert.deepEqual(nearestDefinitions([at('a/r.yaml', 'shop'), at('a/x.yaml')], { file: 'a/r.yaml' }), [at('a/r.yaml', 'shop')]);
    assert.deepEqual(
      nearestDefinitions([at('a/x.yaml', 'shop'), at('b/y.yaml')], { file: 'a/r.yaml' }),
      [at('b/y.yaml')],
      'one without a namespace, though farther',
    );
    const far = nearestDefinitions([at('a/x.yaml', 'shop'), at('b/y.yaml', 'web')], { file: 'a/r.yaml' });
    assert.deepEqual(far, [at('a/x.yaml', 'shop')], 'the nearer of those that name a namespace');
    assert.equal(uncertainMatch(far, { file: 'a/r.yaml' }), true);
    assert.equal(uncertainMatch([at('a/r.yaml', 'shop')], { file: 'a/r.yaml' }), false, 'its own file is applied with it');
    assert.equal(uncertainMatch(far, { file: 'a/r.yaml', namespace: 'shop' }), false);
    // A cluster-scoped definition has no namespace to compare.
    assert.deepEqual(nearestDefinitions([at('a/x.yaml')], { file: 'a/r.yaml', namespace: 'shop' }, true), [at('a/x.yaml')]);
  });

  // Regression: lint-testdata/invalid-ingress-smi-multi.yml passed when another file defined its Services correctly.
  it("a Service of the Rollout's own file is judged, not a right one elsewhere", () => {
    const rollout = canaryRollout({ canaryService: 'c', stableService: 's', trafficRouting: { smi: {} } });
    const own = yamlOf(rollout, service('c', { app: 'wrong' }), service('s', { app: 'demo' }));
    const found = lintFiles({
      'app/rollout.yaml': own,
      'other/services.yaml': yamlOf(service('c', { app: 'demo' }), service('s', { app: 'demo' })),
    });
    assert.deepEqual(summary(found['app/rollout.yaml']!, 'service-selector-mismatch'), [
      'error service-selector-mismatch at spec.strategy.canary.canaryService',
    ]);
    // In the same folder, a file's own definitions still win.
    const beside = lintFiles({ 'app/rollout.yaml': own, 'app/services.yaml': yamlOf(service('c', { app: 'demo' })) });
    assert.deepEqual(summary(beside['app/rollout.yaml']!, 'service-selector-mismatch'), [
      'error service-selector-mismatch at spec.strategy.canary.canaryService',
    ]);
  });

  it('the same folder before the rest of the workspace', () => {
    const rollout = yamlOf(blueGreenRollout());
    const found = lintFiles({
      'app/rollout.yaml': rollout,
      'app/service.yaml': yamlOf(service('demo-active', { app: 'demo' })),
      'other/service.yaml': yamlOf(service('demo-active', { app: 'other' })),
    });
    assert.deepEqual(summary(found['app/rollout.yaml']!), []);
    const far = lintFiles({
      'app/rollout.yaml': rollout,
      'app/service.yaml': yamlOf(service('demo-active', { app: 'other' })),
      'other/service.yaml': yamlOf(service('demo-active', { app: 'demo' })),
    });
    assert.deepEqual(summary(far['app/rollout.yaml']!), ['error service-selector-mismatch at spec.strategy.blueGreen.activeService']);
  });

  it('equally near definitions are judged together: an error only when it holds for every one', () => {
    const rollout = yamlOf(blueGreenRollout());
    const oneFits = lintFiles({
      'app/rollout.yaml': rollout,
      'envs/a.yaml': yamlOf(service('demo-active', { app: 'demo' })),
      'envs/b.yaml': yamlOf(service('demo-active', { app: 'other' })),
    });
    assert.deepEqual(summary(oneFits['app/rollout.yaml']!), []);
    const noneFits = lintFiles({
      'app/rollout.yaml': rollout,
      'envs/a.yaml': yamlOf(service('demo-active', { app: 'x' })),
      'envs/b.yaml': yamlOf(service('demo-active', { app: 'other' })),
    });
    assert.deepEqual(summary(noneFits['app/rollout.yaml']!), ['error service-selector-mismatch at spec.strategy.blueGreen.activeService']);
  });

  // Regression: a Rollout of one repository was judged against another namespace's template (real-world corpus): an error.
  it('a Rollout without a namespace, judged against a template that names one in another file, gets information, not an error', () => {
    const rollout = canaryRollout({ steps: [{ analysis: { templates: [{ templateName: 'rate' }] } }] });
    const found = lintFiles({
      'corpus/one.yaml': yamlOf(rollout),
      'corpus/two.yaml': yamlOf(inNamespace(analysisTemplate('rate'), 'analysis-lab')),
    });
    const findings = found['corpus/one.yaml']!;
    assert.deepEqual(summary(findings), ['info analysis-args at spec.strategy.canary.steps[0].analysis.templates[0].templateName']);
    assert.match(
      findings[0]!.message,
      /requires argument "service".* \(if this document is applied in namespace "analysis-lab", where that is defined: it names no namespace\)$/,
    );
    assert.deepEqual(
      findings[0]!.related?.map((r) => ('file' in r ? r.file : '')),
      ['corpus/two.yaml'],
    );
    // In its own file it is taken as it is: the two are applied together.
    const together = lintFiles({ 'corpus/one.yaml': yamlOf(rollout, inNamespace(analysisTemplate('rate'), 'analysis-lab')) });
    assert.deepEqual(summary(together['corpus/one.yaml']!), [
      'error analysis-args at spec.strategy.canary.steps[0].analysis.templates[0].templateName',
    ]);
    // And so is one without a namespace, wherever it is.
    const plain = lintFiles({
      'corpus/one.yaml': yamlOf(rollout),
      'corpus/two.yaml': yamlOf(inNamespace(analysisTemplate('rate'), 'analysis-lab')),
      'other/three.yaml': yamlOf(analysisTemplate('rate')),
    });
    assert.deepEqual(summary(plain['corpus/one.yaml']!), [
      'error analysis-args at spec.strategy.canary.steps[0].analysis.templates[0].templateName',
    ]);
  });

  it('a Service in another namespace is named as such when not found', () => {
    const found = lintFiles({
      'r.yaml': yamlOf(inNamespace(blueGreenRollout(), 'shop')),
      's.yaml': yamlOf(service('demo-active', { app: 'demo' }, 'web')),
    });
    const [f] = found['r.yaml']!;
    assert.equal(f?.code, 'service-not-found');
    assert.match(
      f!.message,
      /Service "demo-active" is not defined where this Rollout is applied \(it is defined only in namespace "web", not in "shop"\)/,
    );
  });
});

describe('linting many applications together gives each the verdicts it gets alone', () => {
  function yamlFiles(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? yamlFiles(p) : /\.(ya?ml|json)$/.test(name) ? [p] : [];
    });
  }
  /** Each error as `file docIndex: code at path`. */
  const verdicts = (byFile: Record<string, Finding[]>) =>
    Object.entries(byFile)
      .flatMap(([file, findings]) =>
        findings.filter((f) => f.severity === 'error').map((f) => `${file} ${f.docIndex}: ${f.code} at ${formatPath(f.path)}`),
      )
      .sort();

  /**
   * The applications: upstream's lint inputs each alone (every one is a test of its own), each
   * folder of upstream's examples, and each repository of the real-world corpus (its files are
   * named `owner__repo__path`, all in one folder).
   */
  function applications(realWorld: boolean): string[][] {
    const lint = yamlFiles(join(UPSTREAM, 'lint-testdata')).map((f) => [f]);
    const byFolder = new Map<string, string[]>();
    for (const f of yamlFiles(join(UPSTREAM, 'examples'))) byFolder.set(dirname(f), [...(byFolder.get(dirname(f)) ?? []), f]);
    const byRepository = new Map<string, string[]>();
    if (realWorld) {
      for (const f of yamlFiles(REAL_WORLD)) {
        const repository = relative(REAL_WORLD, f).split('__').slice(0, 2).join('__');
        byRepository.set(repository, [...(byRepository.get(repository) ?? []), f]);
      }
    }
    return [...lint, ...byFolder.values(), ...byRepository.values()];
  }

  const check = (realWorld: boolean) => {
    const apps = applications(realWorld);
    const read = (files: string[]) => Object.fromEntries(files.map((f) => [f, readFileSync(f, 'utf8')]));
    const alone = verdicts(Object.assign({}, ...apps.map((files) => lintFiles(read(files)))));
    const together = verdicts(lintFiles(read(apps.flat())));
    assert.deepEqual(together, alone);
    // Not vacuous: upstream's invalid inputs are rejected in both.
    assert.ok(
      alone.some(
        (v) => v.includes('invalid-ingress-smi-multi.yml') && v.includes('service-selector-mismatch at spec.strategy.canary.canaryService'),
      ),
      alone.join('\n'),
    );
  };

  it("upstream's lint inputs and examples", () => check(false));
  itRealWorld('with the real-world corpus as well', () => check(true));
});
