// Upstream's lint inputs, upstream's examples and real users' manifests: the validator must agree
// with Argo on all of them (a validator that flags a valid real manifest is wrong).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  createWorkspaceIndex,
  definitionsInFile,
  formatPath,
  parseFile,
  validateFile,
  type Finding,
  type ParsedFile,
} from '../../src/schema';

import { REAL_WORLD as REAL, UPSTREAM, describeRealWorld } from '../support/peer';

const LINT = join(UPSTREAM, 'lint-testdata');
const EXAMPLES = join(UPSTREAM, 'examples');

function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p, pattern) : pattern.test(name) ? [p] : [];
  });
}

/** Lints files together (Services resolve across them), as `rollouts lint a b c` does. */
function lintTogether(paths: string[]): Map<string, { parsed: ParsedFile; findings: Finding[] }> {
  const ws = createWorkspaceIndex();
  const parsed = paths.map((p) => [p, parseFile(readFileSync(p, 'utf8'))] as const);
  for (const [p, pf] of parsed) ws.setFile(p, definitionsInFile(p, pf));
  return new Map(parsed.map(([p, pf]) => [p, { parsed: pf, findings: validateFile(pf, ws, { file: p }) }]));
}

const errorLines = (findings: Finding[]) =>
  findings.filter((f) => f.severity === 'error').map((f) => `${f.code} at ${formatPath(f.path)}: ${f.message}`);

/** Upstream's error paths drop `canary`/`blueGreen` (semantics §13); ours are the manifest's own paths. */
const upstreamPath = (path: string) => path.replace(/^spec\.strategy\.(canary|blueGreen)\./, 'spec.strategy.');

describe('lint-testdata (upstream lint_test.go, EXPECTED.md)', () => {
  const expected = readFileSync(join(UPSTREAM, 'EXPECTED.md'), 'utf8');
  const valid = expected
    .split('Must lint clean')[1]!
    .split('Must be rejected')[0]!
    .match(/[\w.-]+\.(?:ya?ml|json)/g)!;
  const invalid = [...expected.matchAll(/^\| (invalid[\w.-]+) \| ([^|]+) \|/gm)].map((m) => ({ file: m[1]!, path: m[2]!.trim() }));

  it('reads the expectations of every file in the folder', () => {
    assert.deepEqual([...valid, ...invalid.map((i) => i.file)].sort(), readdirSync(LINT).sort());
  });

  for (const file of valid) {
    it(`${file} lints clean`, () => {
      const { findings } = lintTogether([join(LINT, file)]).get(join(LINT, file))!;
      assert.deepEqual(errorLines(findings), []);
    });
  }

  for (const { file, path } of invalid) {
    it(`${file} is rejected at ${path}`, () => {
      const { findings } = lintTogether([join(LINT, file)]).get(join(LINT, file))!;
      const errs = findings.filter((f) => f.severity === 'error');
      assert.ok(errs.length > 0, 'no error');
      const paths = errs.map((f) => formatPath(f.path));
      if (path.startsWith('(')) {
        // "(the strategy)": the unknown strategy name leaves no strategy at all.
        assert.ok(paths.includes('spec.strategy'), paths.join(', '));
        assert.ok(findings.some((f) => f.code === 'unknown-field' && f.path.includes('unknown-strategy')));
      } else {
        assert.ok(
          paths.some((p) => p === path || upstreamPath(p) === path),
          `expected an error at ${path}, got ${paths.join(', ')}`,
        );
      }
    });
  }

  it('invalid-multiple-docs.yml: the error is in the later document', () => {
    const { findings } = lintTogether([join(LINT, 'invalid-multiple-docs.yml')]).get(join(LINT, 'invalid-multiple-docs.yml'))!;
    const err = findings.find((f) => f.severity === 'error')!;
    assert.ok(err.docIndex > 0);
  });
});

describe('upstream examples lint without errors', () => {
  const all = files(EXAMPLES, /\.(ya?ml|json)$/);
  for (const file of all) {
    it(file.slice(EXAMPLES.length + 1), () => {
      // Each example folder is one application: its Services count for its Rollouts.
      const dir = file.slice(0, file.lastIndexOf('/'));
      const together = all.filter((f) => f.startsWith(`${dir}/`) || f === file);
      const { parsed, findings } = lintTogether(together).get(file)!;
      assert.deepEqual(errorLines(findings), []);
      if (/\/templates\//.test(file)) assert.equal(parsed.templated, true, 'a Helm template is reported as such, not parsed as YAML');
    });
  }
});

describeRealWorld('real-world manifests (SOURCE.md)', () => {
  const source = readFileSync(join(REAL, 'SOURCE.md'), 'utf8');
  const rows = [...source.matchAll(/^\| `([^`]+\.yaml)` \|.*\| (expected: [^|]*)\|$/gm)].map((m) => ({
    file: m[1]!,
    invalid: m[2]!.startsWith('expected: invalid'),
    kinds: m[0]!.split('|')[6]!.trim(),
  }));

  it('reads an expectation for every file', () => {
    assert.deepEqual(
      rows.map((r) => r.file).sort(),
      readdirSync(REAL)
        .filter((f) => f.endsWith('.yaml'))
        .sort(),
    );
  });

  /** Invalid files and the fields that must be rejected (in a Rollout or an AnalysisTemplate). */
  const problems: Record<string, string[]> = {
    'a2z-ice__argo-rollout__argo-rollout.yaml': ['spec.template', 'spec.strategy.canary.steps[0].setHeaderRoute.name'],
    'JoshDanielWalker__argo-rollout__rollout.yaml': ['spec.selector'],
    'yash-kumar-ai__chaos-canary-project__canary-rollout.yaml': [
      'spec.strategy.canary.canaryService',
      'spec.strategy.canary.stableService',
    ],
    // AnalysisTemplates: an integer arg value; a provider that does not exist.
    'quinont__argo-rollout-example__manifests__messenger-bluegreen__06-fuctionaltesting.yaml': ['spec.args[4].value'],
    'sandy0509187__kubefix__argo-rollout.yaml': ['spec.metrics[0].provider'],
    // Its analysis steps run the repository's error-rate-check, whose metric has an interval and no count.
    'iheblahzami__release-gitops__rollout.yaml': ['spec.strategy.canary.steps[2].analysis.templates[0].templateName'],
  };

  /** The files of one repository (named `owner__repo__path`), linted together as that repository would be. */
  const repositoryOf = (file: string) => file.split('__').slice(0, 2).join('__');
  const sameRepository = (file: string) => rows.filter((r) => repositoryOf(r.file) === repositoryOf(file)).map((r) => join(REAL, r.file));

  for (const row of rows) {
    const expected = problems[row.file];
    const title = row.invalid ? `${row.file} is rejected at ${expected?.join(', ') ?? '(no expectation)'}` : `${row.file} has no errors`;
    it(title, () => {
      assert.ok(!row.invalid || expected, `${row.file} is invalid in SOURCE.md but has no expectation here`);
      const path = join(REAL, row.file);
      const { findings } = lintTogether(sameRepository(row.file)).get(path)!;
      if (expected) {
        const paths = findings.filter((f) => f.severity === 'error').map((f) => formatPath(f.path));
        for (const p of expected) assert.ok(paths.includes(p), `expected an error at ${p}, got ${paths.join(', ')}`);
      } else {
        assert.deepEqual(errorLines(findings), []);
      }
    });
  }

  it('the second Rollout of JoshDanielWalker is the one rejected', () => {
    const path = join(REAL, 'JoshDanielWalker__argo-rollout__rollout.yaml');
    const { findings } = lintTogether([path]).get(path)!;
    assert.ok(findings.filter((f) => f.severity === 'error').every((f) => f.docIndex === 1));
  });
});
