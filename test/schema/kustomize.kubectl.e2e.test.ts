// What we say kustomize does to a Rollout (kustomizedFiles) against what the real `kubectl kustomize` builds from
// the same kustomizations: the selector and pod labels of each built Rollout must be its own with the labels we say
// are added, and each field we say a patch gives must be in it.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kustomizedFiles, readKustomization, type Kustomization } from '../../src/schema';
import { skipWithoutKubectl } from '../localcluster/helpers';

/**
 * Teaches kustomize where a Rollout keeps its selector and pod labels, as Argo's rollout transform for kustomize v5
 * does (`templateLabels` is what `includeTemplates` reads).
 */
const TRANSFORM = [
  'commonLabels:',
  '- {path: spec/selector/matchLabels, create: true, kind: Rollout}',
  '- {path: spec/template/metadata/labels, create: true, kind: Rollout}',
  'templateLabels:',
  '- {path: spec/template/metadata/labels, create: true, kind: Rollout}',
  '',
].join('\n');

const rollout = (selector?: Record<string, string>, labels?: Record<string, string>) =>
  JSON.stringify({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'shop' },
    spec: {
      ...(selector ? { selector: { matchLabels: selector } } : {}),
      template: { ...(labels ? { metadata: { labels } } : {}), spec: { containers: [{ name: 'shop', image: 'shop:1' }] } },
    },
  });

interface Case {
  title: string;
  files: Record<string, string>;
  /** The folder `kubectl kustomize` builds. */
  build: string;
}

const cases: Case[] = [
  {
    title: "an overlay's commonLabels reach a base that configures the transform",
    files: {
      'base/kustomization.yaml': 'configurations: [transform.yaml]\nresources: [rollout.yaml]\n',
      'base/transform.yaml': TRANSFORM,
      'base/rollout.yaml': rollout(),
      'overlay/kustomization.yaml': 'resources: [../base]\ncommonLabels: {app: shop}\n',
    },
    build: 'overlay',
  },
  {
    title: 'without configurations, commonLabels and labels leave the selector and pod labels alone',
    files: {
      'plain/kustomization.yaml':
        'resources: [rollout.yaml]\ncommonLabels: {app: shop}\nlabels:\n- pairs: {tier: web}\n  includeSelectors: true\n',
      'plain/rollout.yaml': rollout({ app: 'old' }, { app: 'old' }),
    },
    build: 'plain',
  },
  {
    title: "labels with includeSelectors reach both, includeTemplates the pod labels only, over the Rollout's own",
    files: {
      'app/kustomization.yaml':
        'configurations: [transform.yaml]\nresources: [rollout.yaml]\nlabels:\n- pairs: {app: new, tier: web}\n  includeSelectors: true\n- pairs: {version: v2}\n  includeTemplates: true\n- pairs: {owner: me}\n',
      'app/transform.yaml': TRANSFORM,
      'app/rollout.yaml': rollout({ app: 'old' }, { app: 'old', extra: 'kept' }),
    },
    build: 'app',
  },
  {
    title: "a base's labels and an overlay's add up",
    files: {
      'base/kustomization.yaml': 'configurations: [transform.yaml]\nresources: [rollout.yaml]\ncommonLabels: {app: shop}\n',
      'base/transform.yaml': TRANSFORM,
      'base/rollout.yaml': rollout(),
      'overlays/prod/kustomization.yaml': 'resources: [../../base]\ncommonLabels: {env: prod}\n',
    },
    build: 'overlays/prod',
  },
];

function kustomize(folder: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('kubectl', ['kustomize', folder], { timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`kubectl kustomize ${folder}: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
}

describe('Kustomize labels and patches against the real kubectl kustomize', function () {
  before(function () {
    skipWithoutKubectl(this);
  });
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'rollouts-kustomize-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const c of cases) {
    it(c.title, async () => {
      const known = new Map<string, Kustomization>();
      for (const [path, text] of Object.entries(c.files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
        if (path.endsWith('kustomization.yaml')) known.set(join(dir, path), readKustomization(join(dir, path), text));
      }
      const file = join(dir, Object.keys(c.files).find((p) => p.endsWith('rollout.yaml'))!);
      const own = JSON.parse(readFileSync(file, 'utf8')) as {
        spec: { selector?: { matchLabels: Record<string, string> }; template: { metadata?: { labels: Record<string, string> } } };
      };
      const added = kustomizedFiles(known, () => undefined).get(file)?.labels;

      const built = parseAllDocuments(await kustomize(join(dir, c.build)))
        .map((d) => d.toJS())
        .find((o) => o?.kind === 'Rollout');
      assert.ok(built, 'kustomize built the Rollout');
      assert.deepEqual(built.spec.selector?.matchLabels ?? {}, { ...own.spec.selector?.matchLabels, ...added?.selector }, 'selector');
      assert.deepEqual(
        built.spec.template.metadata?.labels ?? {},
        { ...own.spec.template.metadata?.labels, ...added?.template },
        'pod labels',
      );
    });
  }

  it("every field we say an overlay's patches give a base's Rollout is in the Rollout kustomize builds", async () => {
    const files: Record<string, string> = {
      'base/kustomization.yaml': 'resources: [rollout.yaml]\n',
      'base/rollout.yaml': rollout({ app: 'shop' }, { app: 'shop' }),
      'overlays/prod/kustomization.yaml': [
        'resources: [../../base]',
        'patchesStrategicMerge: [strategy.yaml]',
        'patches:',
        '- target: {kind: Rollout, name: shop}',
        '  patch: |-',
        '    - op: add',
        '      path: /spec/strategy/canary/steps',
        '      value: [{setWeight: 20}, {pause: {duration: 1m}}]',
        '    - op: add',
        '      path: /spec/template/metadata/labels/app.kubernetes.io~1name',
        '      value: shop',
        '- path: replicas.yaml',
        '  target: {kind: Rollout}',
        '',
      ].join('\n'),
      'overlays/prod/strategy.yaml':
        'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: shop\nspec:\n  strategy:\n    canary:\n      maxSurge: 1\n      canaryMetadata:\n        labels: {role: canary}\n',
      'overlays/prod/replicas.yaml': 'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: shop\nspec:\n  replicas: 3\n',
    };
    const known = new Map<string, Kustomization>();
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
      if (path.endsWith('kustomization.yaml')) known.set(join(dir, path), readKustomization(join(dir, path), text));
    }
    const patched = kustomizedFiles(known, (file) => readFileSync(file, 'utf8')).get(join(dir, 'base/rollout.yaml'))?.patched?.shop ?? [];
    assert.ok(
      patched.includes('["spec","strategy","canary","steps",1,"pause","duration"]') && patched.includes('["spec","replicas"]'),
      patched.join('\n'),
    );
    const built = parseAllDocuments(await kustomize(join(dir, 'overlays/prod')))
      .map((d) => d.toJS())
      .find((o) => o?.kind === 'Rollout');
    for (const field of patched) {
      const path = JSON.parse(field) as (string | number)[];
      const value = path.reduce<unknown>(
        (at, key) => (at === null || typeof at !== 'object' ? undefined : (at as Record<string | number, unknown>)[key]),
        built,
      );
      assert.notEqual(value, undefined, `${field} is not in the built Rollout`);
    }
  });
});
