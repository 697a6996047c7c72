// Rule control: disable comments and severity overrides applied to real findings (src/schema/rule-control.ts).
import { strict as assert } from 'node:assert';
import {
  applyRuleControl,
  controlFileFindings,
  DIAGNOSTIC_CODES,
  disableComments,
  experimentRules,
  parseFile,
  parseRuleFlag,
  readRuleOverrides,
  rules,
  STRUCTURE_DIAGNOSTICS,
  templateRules,
  validateFile,
  type RuleOverrides,
} from '../../src/schema';
import { canaryRolloutWithSteps } from '../support/manifests';

const rollout = canaryRolloutWithSteps;

function lint(text: string, overrides: RuleOverrides = {}) {
  const parsed = parseFile(text);
  const r = controlFileFindings(parsed, validateFile(parsed), overrides);
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length;
  return {
    kept: r.kept.map(({ item, severity }) => `${item.code}:${severity}`),
    suppressed: r.suppressed.map(({ item, comment }) => `${item.code}${comment.reason ? ` (${comment.reason})` : ''}`),
    problems: r.problems.map((p) => `${p.code}:${p.severity}@${lineOf(p.start)} ${p.message}`),
    raw: r,
  };
}

describe('rule control: disable comments', () => {
  it('a finding is there without a comment (the premise of the tests below)', () => {
    assert.deepEqual(lint(rollout('      - setWeight: 150\n')).kept, ['set-weight-range:error']);
  });

  it('disable-next-line silences its code on the next line, keeps the reason, and leaves other lines alone', () => {
    const r = lint(
      rollout(
        '      # rollouts-lint-disable-next-line set-weight-range -- the nginx router caps it\n      - setWeight: 150\n      - setWeight: 120\n',
      ),
    );
    assert.deepEqual(r.suppressed, ['set-weight-range (the nginx router caps it)']);
    assert.deepEqual(r.kept, ['set-weight-range:error']);
    assert.deepEqual(r.problems, []);
  });

  it('disable-next-line skips blank lines and other comments, so comments stack above a line', () => {
    const r = lint(
      rollout(
        '      # rollouts-lint-disable-next-line set-weight-range\n\n      # why: see the ticket\n      # rollouts-lint-disable-next-line unknown-field\n      - setWeight: 150\n        extra: 1\n',
      ),
    );
    assert.deepEqual(r.suppressed, ['set-weight-range']);
    // unknown-field is on the line after: the second comment disables nothing and says so.
    assert.deepEqual(r.kept, ['unknown-field:warning']);
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]!, /^disable-comment-unused:info@\d+ no unknown-field diagnostic in line \d+ to disable$/);
  });

  it('names several codes, separated by commas', () => {
    const r = lint(
      rollout('      # rollouts-lint-disable-next-line set-weight-range, unknown-field\n      - {setWeight: 150, extra: 1}\n'),
    );
    assert.deepEqual(r.suppressed.sort(), ['set-weight-range', 'unknown-field']);
    assert.deepEqual(r.kept, []);
  });

  it('an unknown code is a finding with the nearest code suggested; a comment with no code is one too', () => {
    const r = lint(
      rollout(
        '      # rollouts-lint-disable-next-line set-weigth-range\n      - setWeight: 150\n      # rollouts-lint-disable-next-line\n      - pause: {}\n',
      ),
    );
    assert.deepEqual(r.kept, ['set-weight-range:error']);
    assert.equal(r.problems.length, 2);
    assert.match(
      r.problems[0]!,
      /^disable-comment-invalid:warning@20 "set-weigth-range" is not a diagnostic code \(did you mean "set-weight-range"\?\)$/,
    );
    assert.deepEqual(r.raw.problems[0]!.data, { suggestion: 'set-weight-range' });
    // The problem underlines the code itself.
    const text = rollout('      # rollouts-lint-disable-next-line set-weigth-range\n');
    const p = disableComments(text).problems[0]!;
    assert.equal(text.slice(p.start, p.end), 'set-weigth-range');
    assert.match(r.problems[1]!, /^disable-comment-invalid:warning@22 rollouts-lint-disable-next-line names no code/);
  });

  it('an unknown directive is a finding', () => {
    const { problems } = disableComments('# rollouts-lint-disable-line set-weight-range\na: 1\n');
    assert.equal(problems.length, 1);
    assert.match(problems[0]!.message, /"rollouts-lint-disable-line" is not a directive/);
  });

  it("the comments' own codes cannot be disabled by a comment", () => {
    const { problems } = disableComments('# rollouts-lint-disable-file disable-comment-unused\na: 1\n');
    assert.match(problems[0]!.message, /disable-comment-unused cannot be disabled by a comment: set it in rollouts.lint.rules/);
  });

  it('a directive in a trailing comment (after a value) is not read: whole-line comments only', () => {
    const r = lint(rollout('      - setWeight: 150 # rollouts-lint-disable-next-line set-weight-range\n'));
    assert.deepEqual(r.kept, ['set-weight-range:error']);
  });

  it("disable-file in the file's leading comments applies to every document of the file", () => {
    const text = `# rollouts-lint-disable-file set-weight-range -- generated by the pipeline\n---\n${rollout('      - setWeight: 150\n', 'a')}---\n${rollout('      - setWeight: 150\n', 'b')}`;
    const r = lint(text);
    assert.deepEqual(r.kept, []);
    assert.deepEqual(r.suppressed, ['set-weight-range (generated by the pipeline)', 'set-weight-range (generated by the pipeline)']);
  });

  it('disable-file inside a document applies to that document only (several documents in one file)', () => {
    const first = rollout('      - setWeight: 150\n', 'a').replace('spec:\n', '# rollouts-lint-disable-file set-weight-range\nspec:\n');
    const text = `${first}---\n${rollout('      - setWeight: 150\n', 'b')}`;
    const r = lint(text);
    assert.deepEqual(r.suppressed, ['set-weight-range']);
    assert.deepEqual(r.kept, ['set-weight-range:error']);
    // The finding kept is the second document's.
    assert.equal(r.raw.kept[0]!.item.docIndex, 1);
    // And in the second document, after its ---, it applies to the second only.
    const second = rollout('      - setWeight: 150\n', 'b').replace(
      'kind: Rollout\n',
      'kind: Rollout\n# rollouts-lint-disable-file set-weight-range\n',
    );
    const r2 = lint(`${rollout('      - setWeight: 150\n', 'a')}---\n${second}`);
    assert.equal(r2.raw.kept.length, 1);
    assert.equal(r2.raw.kept[0]!.item.docIndex, 0);
    assert.equal(r2.raw.suppressed[0]!.item.docIndex, 1);
  });

  it('a disable-file code with nothing to disable in its document is reported unused (information)', () => {
    const text = rollout('      - setWeight: 50\n').replace('spec:\n', '# rollouts-lint-disable-file set-weight-range\nspec:\n');
    const r = lint(text);
    assert.deepEqual(r.kept, []);
    assert.deepEqual(
      r.problems.map((p) => p.replace(/@\d+/, '')),
      ['disable-comment-unused:info no set-weight-range diagnostic in this document to disable'],
    );
  });

  it('CRLF line breaks: comments and offsets still line up', () => {
    const text = rollout('      # rollouts-lint-disable-next-line set-weigth-range\n      - setWeight: 150\n').replace(/\n/g, '\r\n');
    const p = disableComments(text).problems[0]!;
    assert.equal(text.slice(p.start, p.end), 'set-weigth-range');
  });
});

describe('rule control: severity overrides', () => {
  const text = rollout('      - setWeight: 150\n        extra: 1\n');

  it('off drops a code, a level replaces its severity, other codes keep theirs', () => {
    const kept = (o: RuleOverrides = {}) => lint(text, o).kept.sort();
    assert.deepEqual(kept(), ['set-weight-range:error', 'unknown-field:warning']);
    assert.deepEqual(kept({ 'set-weight-range': 'off' }), ['unknown-field:warning']);
    assert.deepEqual(kept({ 'set-weight-range': 'info', 'unknown-field': 'error' }), ['set-weight-range:info', 'unknown-field:error']);
  });

  it('overrides apply to the comments own problems too', () => {
    const stale = rollout('      # rollouts-lint-disable-next-line set-weight-range\n      - setWeight: 50\n');
    assert.equal(lint(stale).problems.length, 1);
    assert.equal(lint(stale, { 'disable-comment-unused': 'off' }).problems.length, 0);
    assert.match(lint(stale, { 'disable-comment-unused': 'error' }).problems[0]!, /^disable-comment-unused:error/);
  });

  it('a code a comment disables and the setting turns off is neither kept nor suppressed, and the comment is not stale', () => {
    const r = lint(rollout('      # rollouts-lint-disable-next-line set-weight-range\n      - setWeight: 150\n'), {
      'set-weight-range': 'off',
    });
    assert.deepEqual([r.kept, r.suppressed, r.problems], [[], [], []]);
  });

  it('a suppressed finding carries its severity after the override', () => {
    const r = applyRuleControl(
      '# rollouts-lint-disable-next-line set-weight-range\nx: 1\n',
      [{ code: 'set-weight-range', severity: 'error' as const, line: 1 }],
      (i) => i,
      { 'set-weight-range': 'warning' },
    );
    assert.equal(r.suppressed[0]!.severity, 'warning');
  });

  it('readRuleOverrides keeps the good entries and says what is wrong with the others', () => {
    const { overrides, problems } = readRuleOverrides({
      'set-weight-range': 'warning',
      'set-weigth-range': 'off',
      'unknown-field': 'loud',
    });
    assert.deepEqual(overrides, { 'set-weight-range': 'warning' });
    assert.deepEqual(problems, [
      '"set-weigth-range" is not a diagnostic code (did you mean "set-weight-range"?)',
      '"unknown-field": "loud" is not one of off, info, warning, error',
    ]);
    assert.deepEqual(readRuleOverrides(undefined), { overrides: {}, problems: [] });
    assert.match(readRuleOverrides(['x']).problems[0]!, /must be an object/);
  });

  it('parseRuleFlag reads CODE=LEVEL and explains a bad one', () => {
    assert.deepEqual(parseRuleFlag('set-weight-range=off'), { code: 'set-weight-range', level: 'off' });
    assert.match((parseRuleFlag('set-weight-range') as { problem: string }).problem, /is not CODE=LEVEL/);
    assert.match((parseRuleFlag('setweight=off') as { problem: string }).problem, /"setweight" is not a diagnostic code/);
    assert.match((parseRuleFlag('set-weight-range=fatal') as { problem: string }).problem, /"fatal" is not a level for set-weight-range/);
  });
});

describe('diagnostic codes', () => {
  it('every code of every table is listed once, with a summary, a severity and help', () => {
    const defined = new Set([
      ...Object.keys(STRUCTURE_DIAGNOSTICS),
      ...rules.map((r) => r.code),
      ...templateRules.map((r) => r.code),
      ...experimentRules.map((r) => r.code),
    ]);
    const listed = DIAGNOSTIC_CODES.map((c) => c.code);
    assert.equal(new Set(listed).size, listed.length, 'a code is listed twice');
    for (const code of defined) assert.ok(listed.includes(code), `${code} is not in DIAGNOSTIC_CODES`);
    for (const c of DIAGNOSTIC_CODES) {
      assert.match(c.code, /^[a-z0-9]+(-[a-z0-9]+)*$/, c.code);
      assert.ok(c.summary.length > 10, `${c.code} has no summary`);
      assert.ok(c.help.length > 40, `${c.code} has no help`);
      assert.ok(['error', 'warning', 'info'].includes(c.severity), `${c.code}: ${c.severity}`);
    }
  });
});
