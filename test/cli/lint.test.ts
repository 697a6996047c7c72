// `rollouts lint` and `rollouts schema` through main(), with a captured io.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CommandIO } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { catalogFields } from '../../src/schema';
import { bundleAsBuilt } from '../support/bundle';
import { itRealWorld, peerPath } from '../support/peer';

function captured(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = { out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: {} };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

const rollout = (body: string) => `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: demo
spec:
  selector:
    matchLabels:
      app: demo
  template:
    metadata:
      labels:
        app: demo
    spec:
      containers:
      - name: demo
        image: demo:1
  strategy:
${body}`;

describe('cli lint', () => {
  it("lints this repository's examples with neither errors nor warnings", async () => {
    const root = join(__dirname, '../..');
    for (const file of ['examples/canary.yaml', 'examples/bluegreen.yaml', 'examples/traffic-routing.yaml']) {
      const c = captured(root);
      assert.equal(await main(['lint', file], c.io), 0, c.out() + c.err());
      assert.match(c.out(), /^0 errors, 0 warnings in 1 file/m, `${file}: ${c.out()}`);
    }
  });

  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'rollouts-lint-'));
    writeFileSync(
      join(dir, 'good.yaml'),
      rollout('    canary:\n      canaryService: demo-canary\n      stableService: demo-stable\n      steps:\n      - setWeight: 20\n'),
    );
    writeFileSync(join(dir, 'bad.yaml'), rollout('    canary:\n      steps:\n      - setWieght: 20\n      - setWeight: 120\n'));
    writeFileSync(
      join(dir, 'warn.yaml'),
      rollout('    blueGreen:\n      activeService: demo-active\n      autoPromotionEnabled: false\n      autoPromotionSeconds: 30\n'),
    );
    writeFileSync(
      join(dir, 'services.yaml'),
      ['demo-canary', 'demo-stable', 'demo-active']
        .map((n) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${n}\nspec:\n  selector:\n    app: demo\n`)
        .join('---\n'),
    );
    writeFileSync(
      join(dir, 'wrong-services.yaml'),
      ['demo-canary', 'demo-stable']
        .map((n) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${n}\nspec:\n  selector:\n    app: other\n`)
        .join('---\n'),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('quotes at most a short prefix of a huge value (a 10 MB value made a 20 MB message)', async () => {
    writeFileSync(join(dir, 'huge.yaml'), rollout(`    canary:\n      steps:\n      - pause: {duration: "${'9'.repeat(10_000_000)}x"}\n`));
    const c = captured(dir);
    assert.equal(await main(['lint', 'huge.yaml'], c.io), 1);
    assert.ok(c.out().length < 2_000, `${c.out().length} characters of output`);
    assert.match(c.out(), /"9{80}…" \(10000001 characters\)/);
  });

  it('exits 0 with no errors, resolving Services across the files given', async () => {
    const c = captured(dir);
    assert.equal(await main(['lint', 'good.yaml', 'services.yaml'], c.io), 0);
    assert.equal(c.out(), '0 errors, 0 warnings in 2 files\n');
  });

  it('warns when a Service is in none of the files given, and still exits 0', async () => {
    const c = captured(dir);
    assert.equal(await main(['lint', 'good.yaml'], c.io), 0);
    assert.match(c.out(), /^good\.yaml:19:22: warning: Service "demo-canary" is not defined/m);
  });

  it('exits 1 on errors, printing file:line:col: severity: message [code]', async () => {
    const c = captured(dir);
    assert.equal(await main(['lint', 'bad.yaml'], c.io), 1);
    assert.equal(
      c.out(),
      [
        'bad.yaml:20:9: error: unknown field "setWieght" in spec.strategy.canary.steps[0] (did you mean "setWeight"?) [unknown-field]',
        'bad.yaml:21:20: error: setWeight 120 is outside 0..100 [set-weight-range]',
        '2 errors, 0 warnings in 1 file',
        '',
      ].join('\n'),
    );
  });

  it('exits 1 when a Service in another file selects other pods', async () => {
    const c = captured(dir);
    assert.equal(await main(['lint', 'good.yaml', 'wrong-services.yaml'], c.io), 1);
    assert.match(
      c.out(),
      /good\.yaml:19:22: error: Service "demo-canary" does not select this Rollout's pods: it selects app: other, but the pod template has app: demo \[service-selector-mismatch\]/,
    );
  });

  it('follows a problem with a note for each other place it involves, in this file or another', async () => {
    const c = captured(dir);
    assert.equal(await main(['lint', 'good.yaml', 'wrong-services.yaml'], c.io), 1);
    const lines = c.out().split('\n');
    const mismatch = lines.findIndex((l) => l.startsWith('good.yaml:19:22: error: Service "demo-canary"'));
    assert.ok(mismatch >= 0, c.out());
    // wrong-services.yaml line 4 is `  name: demo-canary`: the Service's name is where it is defined.
    assert.equal(lines[mismatch + 1], '  wrong-services.yaml:4:9: note: Service "demo-canary" is defined here');

    const text = rollout('    canary:\n      steps:\n      - pause: {}\n')
      .replace('  replicas: 1\n', '')
      .replace('spec:\n', 'spec:\n  replicas: 2\n  replicas: 3\n');
    writeFileSync(join(dir, 'twice.yaml'), text);
    const j = captured(dir);
    assert.equal(await main(['lint', '--format', 'json', 'twice.yaml'], j.io), 1);
    const [duplicate] = JSON.parse(j.out()).files[0].diagnostics;
    assert.match(duplicate.message, /^duplicate key "replicas"/);
    assert.deepEqual([duplicate.line, duplicate.column], [7, 3]);
    assert.deepEqual(duplicate.related, [
      { file: 'twice.yaml', line: 6, column: 3, endLine: 6, endColumn: 11, message: 'the first "replicas" of this map' },
    ]);
  });

  it('warnings alone exit 0', async () => {
    const c = captured(dir);
    assert.equal(await main(['lint', 'warn.yaml', 'services.yaml'], c.io), 0);
    assert.match(c.out(), /warn\.yaml:21:7: warning: autoPromotionSeconds is ignored/);
  });

  it('prints the JSON form with 1-based positions and field paths', async () => {
    const c = captured(dir);
    assert.equal(await main(['lint', '--format', 'json', 'bad.yaml', 'good.yaml', 'services.yaml'], c.io), 1);
    const report = JSON.parse(c.out());
    assert.deepEqual(
      report.files.map((f: { file: string }) => f.file),
      ['bad.yaml', 'good.yaml', 'services.yaml'],
    );
    assert.deepEqual(report.files[0].diagnostics[1], {
      line: 21,
      column: 20,
      endLine: 21,
      endColumn: 23,
      severity: 'error',
      code: 'set-weight-range',
      message: 'setWeight 120 is outside 0..100',
      path: 'spec.strategy.canary.steps[1].setWeight',
    });
    assert.deepEqual(report.files[1].diagnostics, []);
    const c2 = captured(dir);
    assert.equal(await main(['lint', '--format=json', 'good.yaml', 'services.yaml'], c2.io), 0);
    assert.deepEqual(JSON.parse(c2.out()), {
      files: [
        { file: 'good.yaml', diagnostics: [] },
        { file: 'services.yaml', diagnostics: [] },
      ],
    });
  });

  it('a missing field is reported at the path it should have', async () => {
    writeFileSync(
      join(dir, 'noselector.yaml'),
      'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n        image: b\n  strategy:\n    canary: {}\n',
    );
    const c = captured(dir);
    assert.equal(await main(['lint', '--format', 'json', 'noselector.yaml'], c.io), 1);
    const d = JSON.parse(c.out()).files[0].diagnostics;
    assert.deepEqual(
      d.map((x: { path: string; line: number; column: number }) => [x.path, x.line, x.column]),
      [['spec.selector', 5, 1]],
    );
  });

  itRealWorld(
    'lints the upstream and real-world Experiments without errors, resolving their templates across the files given',
    async () => {
      const files = [
        peerPath('argo-rollouts/examples/experiment-with-analysis.yaml'),
        peerPath('real-world/JoshDanielWalker__argo-rollout__experiment.yaml'),
        peerPath('real-world/yohanb__argo-rollouts-examples__apps__prototype__canary__experiment.yaml'),
      ];
      const c = captured(dir);
      assert.equal(await main(['lint', '--format', 'json', ...files, peerPath('argo-rollouts/examples/analysis-templates.yaml')], c.io), 0);
      const report = JSON.parse(c.out()) as { files: { diagnostics: { severity: string; code: string; path: string }[] }[] };
      const [upstream, josh, yohanb] = report.files.map((f) => f.diagnostics.map((d) => `${d.severity} ${d.code} at ${d.path}`));
      // No duration and no required analysis: information only. Its templates are in analysis-templates.yaml.
      assert.deepEqual(upstream, ['info experiment-never-ends at spec']);
      // http-benchmark is in none of the files given.
      assert.deepEqual(josh, [
        'warning analysis-template-not-found at spec.analyses[0].templateName',
        'warning analysis-template-not-found at spec.analyses[1].templateName',
      ]);
      assert.deepEqual(yohanb, ['info experiment-never-ends at spec']);
    },
  );

  it('exits 1 on an Experiment with errors, at their lines', async () => {
    writeFileSync(
      join(dir, 'experiment.yaml'),
      'apiVersion: argoproj.io/v1alpha1\nkind: Experiment\nmetadata:\n  name: x\nspec:\n  duration: 60\n  templates:\n  - name: a\n    template:\n      spec:\n        containers:\n        - name: a\n          image: b\n',
    );
    const c = captured(dir);
    assert.equal(await main(['lint', 'experiment.yaml'], c.io), 1);
    assert.equal(
      c.out(),
      [
        'experiment.yaml:6:13: error: duration needs a unit, e.g. "60s" or "60m": a bare number is not a duration here [bad-duration]',
        'experiment.yaml:8:5: error: selector is required in spec.templates[0] [missing-field]',
        '2 errors, 0 warnings in 1 file',
        '',
      ].join('\n'),
    );
  });

  it('lints a file the kustomization beside it lists as a patch as part of a Rollout', async () => {
    const overlay = join(dir, 'overlay');
    mkdirSync(overlay);
    const patch =
      'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: demo\nspec:\n  replicas: 5\n  strategy:\n    canary:\n      steps:\n      - setWeight: 20\n';
    writeFileSync(join(overlay, 'replicas.yaml'), patch);
    writeFileSync(join(overlay, 'typo.yaml'), patch.replace('replicas: 5', 'replica: 5'));
    writeFileSync(join(overlay, 'whole.yaml'), patch);
    writeFileSync(
      join(overlay, 'kustomization.yaml'),
      'resources:\n- ../base\npatches:\n- path: replicas.yaml\n  target: {kind: Rollout}\npatchesStrategicMerge:\n- typo.yaml\n',
    );
    const ok = captured(dir);
    assert.equal(await main(['lint', 'overlay/replicas.yaml'], ok.io), 0, ok.out());
    assert.equal(ok.out(), '0 errors, 0 warnings in 1 file\n');
    const typo = captured(overlay);
    assert.equal(await main(['lint', 'typo.yaml'], typo.io), 1);
    assert.match(
      typo.out(),
      /^typo\.yaml:6:3: error: unknown field "replica" in spec \(did you mean "replicas"\?\) \[unknown-field\]\n1 error, 0 warnings in 1 file\n$/,
    );
    // Not listed: a whole Rollout, which lacks its selector and template.
    const whole = captured(dir);
    assert.equal(await main(['lint', 'overlay/whole.yaml'], whole.io), 1);
    assert.match(whole.out(), /\[selector-required\]/);
  });

  it('lints a Rollout with the labels the kustomizations over it add, as kustomize builds it', async () => {
    const app = join(dir, 'labelled');
    for (const d of ['app', 'base', 'overlays/prod']) mkdirSync(join(app, d), { recursive: true });
    // The selector and pod labels come from the overlay's labels; the base between them configures the Rollout
    // transform, and is beside none of the files linted: it is found through the overlay's resources.
    writeFileSync(
      join(app, 'app/rollout.yaml'),
      'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: shop\nspec:\n  template:\n    spec:\n      containers:\n      - name: shop\n        image: shop:1\n  strategy:\n    canary: {}\n',
    );
    writeFileSync(join(app, 'app/kustomization.yaml'), 'resources: [rollout.yaml]\n');
    writeFileSync(join(app, 'base/kustomization.yaml'), 'configurations: [rollout-transform.yaml]\nresources: [../app]\n');
    writeFileSync(
      join(app, 'overlays/prod/kustomization.yaml'),
      'resources: [../../base]\nlabels:\n- pairs: {app: shop}\n  includeSelectors: true\n',
    );
    // Linted alone, the Rollout has no selector: no kustomization over it is known.
    const alone = captured(app);
    assert.equal(await main(['lint', 'app/rollout.yaml'], alone.io), 1);
    assert.match(alone.out(), /\[selector-required\]/);
    const withOverlay = captured(app);
    assert.equal(await main(['lint', 'overlays/prod', 'app/rollout.yaml'], withOverlay.io), 0, withOverlay.out());
    assert.equal(withOverlay.out(), '0 errors, 0 warnings in 2 files\n');
  });

  it("lints a base with the fields its overlays' patches give it, when they are linted with it", async () => {
    const app = join(dir, 'patched');
    for (const d of ['base', 'overlays/prod']) mkdirSync(join(app, d), { recursive: true });
    // The base leaves its strategy to the overlay's patch.
    writeFileSync(
      join(app, 'base/rollout.yaml'),
      'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: shop\nspec:\n  selector:\n    matchLabels: {app: shop}\n  template:\n    metadata:\n      labels: {app: shop}\n    spec:\n      containers:\n      - name: shop\n        image: shop:1\n',
    );
    writeFileSync(join(app, 'base/kustomization.yaml'), 'resources: [rollout.yaml]\n');
    writeFileSync(
      join(app, 'overlays/prod/strategy.yaml'),
      'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: shop\nspec:\n  strategy:\n    canary:\n      steps:\n      - setWeight: 20\n',
    );
    writeFileSync(join(app, 'overlays/prod/kustomization.yaml'), 'resources: [../../base]\npatches:\n- path: strategy.yaml\n');
    const alone = captured(app);
    assert.equal(await main(['lint', 'base'], alone.io), 1);
    assert.match(alone.out(), /base\/rollout\.yaml:5:1: error: .*strategy.*\[missing-field\]/);
    const withOverlay = captured(app);
    assert.equal(await main(['lint', 'base', 'overlays/prod'], withOverlay.io), 0, withOverlay.out());
  });

  it("lints a folder's YAML files at any depth, leaving alone those without a Rollout and hidden folders", async () => {
    const tree = join(dir, 'tree');
    mkdirSync(join(tree, 'apps/web'), { recursive: true });
    mkdirSync(join(tree, 'chart/templates'), { recursive: true });
    mkdirSync(join(tree, '.git'));
    mkdirSync(join(tree, 'empty'));
    writeFileSync(
      join(tree, 'apps/web/rollout.yaml'),
      rollout('    canary:\n      canaryService: demo-canary\n      stableService: demo-stable\n'),
    );
    writeFileSync(
      join(tree, 'apps/services.yml'),
      ['demo-canary', 'demo-stable']
        .map((n) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${n}\nspec:\n  selector:\n    app: demo\n`)
        .join('---\n'),
    );
    writeFileSync(join(tree, 'apps/web/broken.yaml'), rollout('    canary:\n      steps:\n      - setWieght: 20\n'));
    writeFileSync(
      join(tree, 'chart/templates/deployment.yaml'),
      'kind: Deployment\nmetadata:\n  labels: {{ include "labels" . | nindent 4 }}\n',
    );
    writeFileSync(join(tree, '.git/config.yaml'), 'not: [yaml\n');
    writeFileSync(join(tree, 'notes.txt'), 'not YAML');
    const c = captured(dir);
    assert.equal(await main(['lint', '--format', 'json', 'tree'], c.io), 1, c.err());
    const report = JSON.parse(c.out()) as { files: { file: string; diagnostics: { code: string }[] }[] };
    assert.deepEqual(
      report.files.map((f) => [f.file, f.diagnostics.map((d) => d.code)]),
      [
        ['tree/apps/services.yml', []],
        ['tree/apps/web/broken.yaml', ['unknown-field']],
        ['tree/apps/web/rollout.yaml', []],
        ['tree/chart/templates/deployment.yaml', []],
      ],
      'sorted; Services resolved across the folder; the Helm template is no Rollout and is left alone',
    );
    const empty = captured(dir);
    assert.equal(await main(['lint', 'tree/empty'], empty.io), 2);
    assert.match(empty.err(), /no YAML files under tree\/empty/);
  });

  it('resolves a reference to the files the kustomization builds with it before the rest of the folders given', async () => {
    const tree = join(dir, 'kustomized-apps');
    mkdirSync(join(tree, 'apps/web'), { recursive: true });
    mkdirSync(join(tree, 'shared'), { recursive: true });
    mkdirSync(join(tree, 'other'), { recursive: true });
    writeFileSync(join(tree, 'apps/web/kustomization.yaml'), 'resources: [rollout.yaml, ../../shared/services.yaml]\n');
    writeFileSync(
      join(tree, 'apps/web/rollout.yaml'),
      rollout('    canary:\n      canaryService: demo-canary\n      stableService: demo-stable\n'),
    );
    const services = (app: string) =>
      ['demo-canary', 'demo-stable']
        .map((n) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${n}\nspec:\n  selector:\n    app: ${app}\n`)
        .join('---\n');
    // The application's own Services select other pods; another application's of the same names would fit.
    writeFileSync(join(tree, 'shared/services.yaml'), services('other'));
    writeFileSync(join(tree, 'other/services.yaml'), services('demo'));
    const c = captured(dir);
    assert.equal(await main(['lint', '--format', 'json', 'kustomized-apps'], c.io), 1, c.out() + c.err());
    const report = JSON.parse(c.out()) as { files: { file: string; diagnostics: { code: string; related?: { file: string }[] }[] }[] };
    const found = report.files.find((f) => f.file === 'kustomized-apps/apps/web/rollout.yaml')!.diagnostics;
    assert.deepEqual(
      found.map((d) => [d.code, d.related?.map((r) => r.file)]),
      [
        ['service-selector-mismatch', ['kustomized-apps/shared/services.yaml']],
        ['service-selector-mismatch', ['kustomized-apps/shared/services.yaml']],
      ],
    );
  });

  // Regression: a document of ours under an apiVersion Argo does not serve was left alone in a folder (as if it were not ours).
  it('reports an Argo kind under an unserved apiVersion in a folder, naming the version that serves it', async () => {
    const tree = join(dir, 'unserved');
    mkdirSync(tree, { recursive: true });
    writeFileSync(join(tree, 'template.yaml'), 'apiVersion: argoproj.io/v1\nkind: AnalysisTemplate\nmetadata:\n  name: t\nspec: {}\n');
    const c = captured(dir);
    assert.equal(await main(['lint', 'unserved'], c.io), 1, c.out() + c.err());
    assert.match(
      c.out(),
      /template\.yaml:1:13: error: Argo Rollouts serves AnalysisTemplate only as argoproj\.io\/v1alpha1, not argoproj\.io\/v1/,
    );
  });

  it('exits 2 on an unreadable file, after linting the others', async () => {
    const c = captured(dir);
    assert.equal(await main(['lint', 'bad.yaml', 'missing.yaml'], c.io), 2);
    assert.match(c.err(), /cannot read missing\.yaml: no such file/);
    assert.match(c.out(), /setWeight 120/);
  });

  it('exits 2 on bad usage', async () => {
    for (const args of [['lint'], ['lint', '--format', 'xml', 'a.yaml'], ['lint', '--strict', 'a.yaml'], ['lint', '--format']]) {
      const c = captured(dir);
      assert.equal(await main(args, c.io), 2, args.join(' '));
      assert.match(c.err(), /Usage: rollouts lint/);
    }
  });

  it('a Helm template is reported once as info and exits 0', async () => {
    writeFileSync(
      join(dir, 'chart.yaml'),
      'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: {{ .Values.replicas }}\n',
    );
    const c = captured(dir);
    assert.equal(await main(['lint', 'chart.yaml'], c.io), 0);
    assert.match(c.out(), /^chart\.yaml:4:9: info: this file holds Helm\/Go template directives.*\[helm-template\]$/m);
  });

  // The editor leaves YAML without a Rollout or analysis template alone (test/server/server.test.ts);
  // a file named on the command line is the user's explicit question, so its syntax errors are answered.
  it('a file named explicitly gets its YAML syntax errors even when it holds no Rollout', async () => {
    writeFileSync(join(dir, 'service.yaml'), 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports: [80\n');
    const c = captured(dir);
    assert.equal(await main(['lint', 'service.yaml'], c.io), 1);
    assert.match(c.out(), /^service\.yaml:6:\d+: error: .*\[yaml-syntax\]$/m);
  });

  it('an unterminated string before the next document is reported where it opens, as in the editor', async () => {
    const text =
      rollout('    canary:\n      steps:\n      - pause:\n          duration: "30s\n') +
      '---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n';
    writeFileSync(join(dir, 'unterminated.yaml'), text);
    const c = captured(dir);
    assert.equal(await main(['lint', '--format', 'json', 'unterminated.yaml'], c.io), 1);
    const [d] = (
      JSON.parse(c.out()) as {
        files: { diagnostics: { code: string; line: number; column: number; endLine: number; endColumn: number }[] }[];
      }
    ).files[0]!.diagnostics.filter((x) => x.code === 'yaml-syntax');
    const line = text.split('\n').findIndex((l) => l.includes('"30s')) + 1;
    assert.deepEqual([d!.line, d!.column, d!.endLine], [line, text.split('\n')[line - 1]!.indexOf('"30s') + 1, line]);
    assert.ok(d!.endColumn > d!.column);
  });

  it('YAML syntax errors are errors with a position', async () => {
    writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nspec:\n  replicas: [1\n');
    const c = captured(dir);
    assert.equal(await main(['lint', 'broken.yaml'], c.io), 1);
    assert.match(c.out(), /^broken\.yaml:\d+:\d+: error: .*\[yaml-syntax\]$/m);
  });
});

describe('cli schema', () => {
  it('prints the JSON Schema generated from the catalog', async () => {
    const c = captured(process.cwd());
    assert.equal(await main(['schema'], c.io), 0);
    const schema = JSON.parse(c.out());
    assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
    // Every catalog field is in the printed schema.
    for (const { path } of catalogFields()) {
      let s = schema.then;
      for (const seg of path) s = typeof seg === 'number' ? s.items : s.properties[seg];
      assert.ok(s, path.join('.'));
    }
  });

  it('rejects arguments', async () => {
    const c = captured(process.cwd());
    assert.equal(await main(['schema', 'extra'], c.io), 2);
  });

  it("bundled as the build bundles it, gives the pod template Kubernetes' own descriptions and allowed values", async function () {
    this.timeout(60_000);
    // The CLI reads the descriptions the build writes beside its bundle: bundle it so, in a folder of its own.
    const cli = await bundleAsBuilt('src/cli/main.ts', 'cli', { CLI_CLUSTER_BUNDLE: '"./cli-cluster.js"', ROLLOUTS_VERSION: '"test"' });
    try {
      const run = spawnSync(process.execPath, [cli, 'schema'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      assert.equal(run.status, 0, run.stderr);
      const schema = JSON.parse(run.stdout) as {
        definitions: Record<
          string,
          { description: string; properties: Record<string, { description: string; markdownDescription: string; enum?: string[] }> }
        >;
      };
      const container = schema.definitions.V1Container!;
      assert.equal(container.description, 'A single application container that you want to run within a pod.');
      assert.match(container.properties.image!.description, /^Container image name\. .* A field of the Kubernetes Container: a string/);
      assert.deepEqual(container.properties.imagePullPolicy!.enum, ['Always', 'IfNotPresent', 'Never']);
      // Markup in Kubernetes' text is escaped in the markdown form, not in the plain one.
      const value = schema.definitions.V1EnvVar!.properties.value!;
      assert.ok(value.markdownDescription.includes('$(VAR\\_NAME)'), value.markdownDescription);
      assert.ok(value.description.includes('$(VAR_NAME)'), value.description);
    } finally {
      rmSync(dirname(cli), { recursive: true, force: true });
    }
  });
});
