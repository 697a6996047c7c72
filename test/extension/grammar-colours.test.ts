// The injection grammar as VS Code runs it: vscode-textmate tokenizes a Rollout with VS Code's own
// YAML grammar and our injection, and every theme VS Code ships colours the tokens. No Rollout
// word may take the colour of invalid code in any of them (`canary:` was red in the light themes
// that colour `storage.type` red, and step kinds took High Contrast Light's invalid colour).
// vscode-textmate, the YAML grammar and the themes come from the real-editor tests' code-server
// (scripts/vscode-e2e/install.mjs); without it the suite says so and skips.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const VSCODE = join(__dirname, '..', '..', '.vscode-e2e', 'cs', 'node_modules', 'code-server', 'lib', 'vscode');
const INJECTION = join(__dirname, '..', '..', 'syntaxes', 'rollouts.injection.tmLanguage.json');

const ROLLOUT = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: demo
spec:
  strategy:
    canary:
      maxSurge: "25%"
      steps:
      - setWeight: 20
      - pause: {}
      - pause:
          duration: 1m30s
      - setCanaryScale:
          weight: 10
      - analysis:
          templates: [{templateName: x}]
---
kind: Rollout
spec:
  strategy:
    blueGreen:
      activeService: a
`;

/** A theme's token colours with its `include` chain, as VS Code loads them (the files are JSON with comments). */
function themeRules(file: string): { scope?: string | string[]; settings: { foreground?: string } }[] {
  const text = readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '').replace(/,(\s*[}\]])/g, '$1');
  const theme = JSON.parse(text) as { include?: string; tokenColors?: []; colors?: Record<string, string> };
  return [...(theme.include ? themeRules(join(dirname(file), theme.include)) : []), ...(theme.tokenColors ?? [])];
}

/** The few parts of vscode-textmate used here (it is code-server's copy, not a dependency of ours). */
interface Grammar {
  tokenizeLine(line: string, state: unknown): { tokens: { startIndex: number; endIndex: number; scopes: string[] }[]; ruleStack: unknown };
  tokenizeLine2(line: string, state: unknown): { tokens: Uint32Array; ruleStack: unknown };
}
interface Registry {
  setTheme(theme: unknown): void;
  getColorMap(): string[];
  loadGrammar(scope: string): Promise<Grammar | null>;
}
interface TextMate {
  Registry: new (options: unknown) => Registry;
  INITIAL: unknown;
  parseRawGrammar(text: string, path: string): unknown;
}

const PROBE = 'source.invalid-probe';
const INVALID_SCOPES = ['invalid', 'invalid.illegal', 'invalid.deprecated'];

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const distance = (a: string, b: string) => Math.hypot(...rgb(a).map((v, i) => v - rgb(b)[i]!));

describe('syntaxes: the Rollout highlighting in the themes VS Code ships', function () {
  this.timeout(30_000);
  let tm: TextMate;
  let registry: Registry;

  before(async function () {
    if (!existsSync(join(VSCODE, 'node_modules', 'vscode-textmate'))) {
      console.log(`    (skipped: no vscode-textmate at ${VSCODE}; node scripts/vscode-e2e/install.mjs installs code-server)`);
      this.skip();
    }
    tm = require(join(VSCODE, 'node_modules', 'vscode-textmate'));
    const onig = require(join(VSCODE, 'node_modules', 'vscode-oniguruma'));
    const wasm = readFileSync(join(VSCODE, 'node_modules', 'vscode-oniguruma', 'release', 'onig.wasm'));
    await onig.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const yamlDir = join(VSCODE, 'extensions', 'yaml', 'syntaxes');
    const files = new Map<string, string>([['rollouts.yaml.injection', INJECTION]]);
    for (const f of readdirSync(yamlDir)) {
      const scope = (JSON.parse(readFileSync(join(yamlDir, f), 'utf8')) as { scopeName: string }).scopeName;
      if (!files.has(scope)) files.set(scope, join(yamlDir, f));
    }
    registry = new tm.Registry({
      onigLib: Promise.resolve({ createOnigScanner: (s: string[]) => new onig.OnigScanner(s), createOnigString: (s: string) => new onig.OnigString(s) }),
      loadGrammar: async (scope: string) => {
        if (scope === PROBE) return tm.parseRawGrammar(JSON.stringify({ scopeName: PROBE, patterns: INVALID_SCOPES.map((name, i) => ({ match: `\\bw${i}\\b`, name })) }), 'probe.json');
        const f = files.get(scope);
        return f ? tm.parseRawGrammar(readFileSync(f, 'utf8'), f) : null;
      },
      // As package.json's "injectTo": ["source.yaml"].
      getInjections: (scope: string) => (scope === 'source.yaml' ? ['rollouts.yaml.injection'] : []),
    });
  });

  /** Each word of the manifest that our grammar scoped, with its scope and its colour in `themeFile`. */
  async function colouredWords(themeFile: string): Promise<{ word: string; scope: string; colour: string }[]> {
    registry.setTheme({ settings: [{ settings: { foreground: '#000000', background: '#ffffff' } }, ...themeRules(themeFile)] });
    const colours = registry.getColorMap();
    const grammar = (await registry.loadGrammar('source.yaml'))!;
    const out: { word: string; scope: string; colour: string }[] = [];
    let state: unknown = tm.INITIAL;
    for (const line of ROLLOUT.split('\n')) {
      const scoped = grammar.tokenizeLine(line, state);
      const coloured = grammar.tokenizeLine2(line, state);
      state = scoped.ruleStack;
      for (const t of scoped.tokens) {
        const scope = t.scopes.find((s) => s.endsWith('.rollouts'));
        if (!scope) continue;
        // The binary token that covers this one: its foreground index (bits 15-23 of the metadata).
        let meta = 0;
        for (let i = 0; i < coloured.tokens.length; i += 2) if (coloured.tokens[i]! <= t.startIndex) meta = coloured.tokens[i + 1]!;
        out.push({ word: line.slice(t.startIndex, t.endIndex), scope, colour: colours[(meta >>> 15) & 0x1ff]!.toUpperCase() });
      }
    }
    return out;
  }

  /** The colours a theme gives invalid code: a probe grammar's words scoped `invalid`, `invalid.illegal`, `invalid.deprecated`, coloured by the same matcher. */
  async function invalidColours(themeFile: string): Promise<string[]> {
    registry.setTheme({ settings: [{ settings: { foreground: '#000000', background: '#ffffff' } }, ...themeRules(themeFile)] });
    const colours = registry.getColorMap();
    const probe = (await registry.loadGrammar(PROBE))!;
    const line = INVALID_SCOPES.map((_, i) => `w${i}`).join(' ');
    const tokens = probe.tokenizeLine2(line, tm.INITIAL).tokens;
    const out: string[] = [];
    for (let i = 0; i < tokens.length; i += 2) {
      if (line[tokens[i]!] === 'w') out.push(colours[(tokens[i + 1]! >>> 15) & 0x1ff]!.toUpperCase());
    }
    assert.equal(out.length, INVALID_SCOPES.length);
    return out;
  }

  it('scopes the strategies, step kinds, kinds, durations and percentages of a Rollout', async () => {
    const words = await colouredWords(join(VSCODE, 'extensions', 'theme-defaults', 'themes', 'light_modern.json'));
    const scoped = words.map((w) => `${w.word}=${w.scope}`);
    for (const expected of ['canary=entity.name.type.strategy.rollouts', 'blueGreen=entity.name.type.strategy.rollouts', 'setWeight=entity.name.function.step.rollouts', 'pause=entity.name.function.step.rollouts', 'Rollout=entity.name.type.rollouts', '1m30s=constant.numeric.duration.rollouts', '25%=constant.numeric.percent.rollouts']) {
      assert.ok(scoped.includes(expected), `${expected} not among ${scoped.join(', ')}`);
    }
  });

  it('no Rollout word takes (or comes near) the colour of invalid code in any theme VS Code ships', async () => {
    const themes = join(VSCODE, 'extensions', 'theme-defaults', 'themes');
    const files = readdirSync(themes).filter((f) => f.endsWith('.json'));
    assert.ok(files.length >= 6, `themes: ${files.join(', ')}`);
    const clashes: string[] = [];
    for (const f of files) {
      const invalid = await invalidColours(join(themes, f));
      for (const w of await colouredWords(join(themes, f))) {
        for (const c of invalid) if (distance(w.colour, c) < 60) clashes.push(`${f}: ${w.word} (${w.scope}) is ${w.colour}, invalid code is ${c}`);
      }
    }
    assert.deepEqual([...new Set(clashes)], []);
  });
});
