// `rollouts lint --format sarif` and `--rule`, through main() with a captured io; SARIF validated against the official schema.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import type { CommandIO } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { DIAGNOSTIC_CODES, PROJECT_URL } from '../../src/schema';
import { canaryRolloutWithSteps } from '../support/manifests';

function captured(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = { out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: {} };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

const rollout = canaryRolloutWithSteps;

const schema = JSON.parse(readFileSync(join(__dirname, '../fixtures/sarif/sarif-2.1.0-rtm.5.json'), 'utf8')) as object;
// The schema's `language` pattern has a stray `]` that a Unicode regular expression refuses (test/fixtures/sarif/SOURCE.md).
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validSarif = ajv.compile(schema);

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: Record<string, number> } }[];
  suppressions?: { kind: string; justification?: string }[];
}
interface SarifLog {
  runs: {
    tool: { driver: { name: string; version: string; informationUri: string; rules: Record<string, any>[] } };
    results: SarifResult[];
  }[];
}

describe('cli lint --format sarif and --rule', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'rollouts-sarif-'));
    mkdirSync(join(dir, 'apps', 'web app'), { recursive: true });
    writeFileSync(join(dir, 'apps', 'web app', 'bad.yaml'), rollout('      - setWeight: 150\n      - setWieght: 20\n'));
    writeFileSync(
      join(dir, 'apps', 'quiet.yaml'),
      rollout('      # rollouts-lint-disable-next-line set-weight-range -- capped by the router\n      - setWeight: 150\n'),
    );
    writeFileSync(join(dir, 'weight.yaml'), rollout('      - setWeight: 150\n'));
    writeFileSync(join(dir, 'typo.yaml'), rollout('      # rollouts-lint-disable-next-line set-weigth-range\n      - setWeight: 150\n'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function sarif(args: string[]): Promise<{ code: number; log: SarifLog; text: string }> {
    const c = captured(dir);
    const code = await main(['lint', '--format', 'sarif', ...args], c.io);
    assert.equal(c.err(), '');
    return { code, log: JSON.parse(c.out()) as SarifLog, text: c.out() };
  }

  it('writes SARIF 2.1.0 that the official schema accepts, with every code as a rule with help', async () => {
    const { code, log } = await sarif(['apps']);
    assert.equal(code, 1);
    assert.ok(validSarif(log), JSON.stringify(validSarif.errors, null, 2));
    // The validator does reject what breaks the schema: a result without a message.
    const broken = structuredClone(log) as any;
    delete broken.runs[0].results[0].message;
    assert.equal(validSarif(broken), false);
    const { driver } = log.runs[0]!.tool;
    assert.equal(driver.name, 'rollouts');
    assert.equal(driver.informationUri, PROJECT_URL);
    assert.match(driver.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(
      driver.rules.map((r) => r.id),
      DIAGNOSTIC_CODES.map((c) => c.code),
    );
    for (const r of driver.rules) {
      assert.ok(r.shortDescription.text && r.fullDescription.text && r.help.text && r.help.markdown, r.id);
      assert.equal(r.helpUri, `${PROJECT_URL}/blob/main/docs/features.md#code-${r.id}`);
      assert.ok(['error', 'warning', 'note'].includes(r.defaultConfiguration.level), r.id);
    }
    const weight = driver.rules.find((r) => r.id === 'set-weight-range')!;
    assert.equal(weight.defaultConfiguration.level, 'error');
    assert.match(weight.help.markdown, /`setWeight`/);
  });

  it('gives each result its rule, level, message and a 1-based region relative to the working directory', async () => {
    const { log } = await sarif(['apps']);
    const results = log.runs[0]!.results;
    const rules = log.runs[0]!.tool.driver.rules;
    const weight = results.find((r) => r.ruleId === 'set-weight-range' && !r.suppressions)!;
    assert.equal(rules[weight.ruleIndex]!.id, 'set-weight-range');
    assert.equal(weight.level, 'error');
    assert.match(weight.message.text, /setWeight 150 is outside 0\.\.100/);
    // apps/web app/bad.yaml line 20 is `      - setWeight: 150`: the value 150 is at columns 20..23.
    assert.deepEqual(weight.locations[0]!.physicalLocation, {
      artifactLocation: { uri: 'apps/web%20app/bad.yaml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 20, startColumn: 20, endLine: 20, endColumn: 23 },
    });
    const typo = results.find((r) => r.ruleId === 'unknown-field')!;
    assert.equal(typo.level, 'error');
  });

  it('reports a finding a comment disables as suppressed in source, with the reason as justification', async () => {
    const { log } = await sarif(['apps/quiet.yaml']);
    const [result] = log.runs[0]!.results;
    assert.equal(result!.ruleId, 'set-weight-range');
    assert.deepEqual(result!.suppressions, [{ kind: 'inSource', justification: 'capped by the router' }]);
    assert.ok(validSarif(log), JSON.stringify(validSarif.errors));
  });

  it('a comment-disabled error does not fail the run, in any format', async () => {
    for (const format of ['text', 'json', 'sarif']) {
      const c = captured(dir);
      assert.equal(await main(['lint', '--format', format, 'apps/quiet.yaml'], c.io), 0, c.out());
    }
    const j = captured(dir);
    await main(['lint', '--format', 'json', 'apps/quiet.yaml'], j.io);
    assert.deepEqual(JSON.parse(j.out()), { files: [{ file: 'apps/quiet.yaml', diagnostics: [] }] });
  });

  it('--rule CODE=LEVEL changes the severity and so the exit code; off drops the finding', async () => {
    const run = async (...args: string[]) => {
      const c = captured(dir);
      return { code: await main(['lint', ...args, 'weight.yaml'], c.io), out: c.out() };
    };
    const plain = await run();
    assert.equal(plain.code, 1);
    const warned = await run('--rule', 'set-weight-range=warning');
    assert.equal(warned.code, 0);
    assert.match(warned.out, /weight\.yaml:20:20: warning: setWeight 150 is outside 0\.\.100 \[set-weight-range\]/);
    const off = await run('--rule=set-weight-range=off');
    assert.equal(off.code, 0);
    assert.equal(off.out, '0 errors, 0 warnings in 1 file\n');
    // Repeated: the last of a code wins; and a warning raised to error fails the run.
    assert.equal((await run('--rule', 'set-weight-range=off', '--rule', 'set-weight-range=error')).code, 1);
    const { log } = await sarif(['--rule', 'set-weight-range=info', 'weight.yaml']);
    assert.equal(log.runs[0]!.results[0]!.level, 'note');
  });

  it('an unknown code in a disable comment is a warning with the nearest code, and disables nothing', async () => {
    const c = captured(dir);
    assert.equal(await main(['lint', 'typo.yaml'], c.io), 1);
    assert.match(
      c.out(),
      /^typo\.yaml:20:41: warning: "set-weigth-range" is not a diagnostic code \(did you mean "set-weight-range"\?\) \[disable-comment-invalid\]$/m,
    );
    assert.match(c.out(), /^typo\.yaml:21:20: error: setWeight 150/m);
  });

  it('a bad --rule is bad usage (exit 2) that says what is wrong', async () => {
    for (const [arg, message] of [
      ['set-weight-range', /--rule "set-weight-range": "set-weight-range" is not CODE=LEVEL/],
      [
        'set-weigth-range=off',
        /--rule "set-weigth-range=off": "set-weigth-range" is not a diagnostic code \(did you mean "set-weight-range"\?\)/,
      ],
      [
        'set-weight-range=fatal',
        /--rule "set-weight-range=fatal": "fatal" is not a level for set-weight-range: use one of off, info, warning, error/,
      ],
    ] as const) {
      const c = captured(dir);
      assert.equal(await main(['lint', '--rule', arg, 'weight.yaml'], c.io), 2, arg);
      assert.match(c.err(), message);
      assert.equal(c.out(), '');
    }
    const c = captured(dir);
    assert.equal(await main(['lint', 'weight.yaml', '--rule'], c.io), 2);
    assert.match(c.err(), /--rule needs a value: CODE=LEVEL/);
    const f = captured(dir);
    assert.equal(await main(['lint', '--format', 'xml', 'weight.yaml'], f.io), 2);
    assert.match(f.err(), /--format must be "text", "json" or "sarif", got "xml"/);
  });

  it("the project URL is package.json's repository", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { repository: { url: string } };
    assert.equal(PROJECT_URL, pkg.repository.url);
  });
});
