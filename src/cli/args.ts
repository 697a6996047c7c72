/**
 * Every command's argument parsing: node:util's parseArgs reads the words, and this wrapper holds
 * them to a command's options table, in our words (`unknown option "--x"`, `--x needs a value`,
 * `unexpected argument "y"`), as a UsageError (exit 2 with the usage). A new option is one line in
 * the command's table (see CONTRIBUTING.md, "Command-line options").
 */
import { parseArgs } from 'node:util';
import type { TargetArgs } from '../cluster';
import { UsageError } from './command';
import { cluster } from './lazy-cluster';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** One letter: `-n` for `--namespace`. */
  short?: string;
  /** Every value, in order (`-f a -f b`); without it the last one given wins, as kubectl's flags do. */
  multiple?: true;
  /** Like `multiple`, and a value may be a comma list (`-n a,b`); items are trimmed, each kept once. */
  list?: true;
  /** Checks one value (one item of a list): the problem, said after `-n "VALUE": `, or undefined. */
  check?: (value: string) => string | undefined;
  /** What a missing value is called: `--filename needs a FILE` (default: "a value"). */
  needs?: string;
}

/** A command's options, by long name (`watch` is `--watch`). */
export type OptionTable = Record<string, OptionSpec>;

type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean' ? true : S extends { multiple: true } | { list: true } ? string[] : string;

/** What was given of each option: absent when it was not given. */
export type OptionValues<T extends OptionTable> = { -readonly [K in keyof T]?: ValueOf<T[K]> };

export interface ParsedArgs<T extends OptionTable> {
  options: OptionValues<T>;
  positionals: string[];
}

/**
 * Parses `args` against `table`. Strict: an unknown option, a string option without a value (or
 * an empty one), a value given to a boolean option, or more than `maxPositionals` positionals is
 * a UsageError. A value may start with '-' (`--abort-at-step -1` is then judged by the command,
 * as before), which parseArgs' own strict mode refuses: so parseArgs tokenizes, non-strict, and
 * the checks are made here on its tokens.
 */
export function parseOptions<T extends OptionTable>(
  args: readonly string[],
  table: T,
  opts: { maxPositionals?: number } = {},
): ParsedArgs<T> {
  const config = Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [name, spec.short ? { type: spec.type, short: spec.short } : { type: spec.type }]),
  );
  const { tokens } = parseArgs({ args: [...args], options: config, strict: false, allowPositionals: true, tokens: true });
  const options: Record<string, true | string | string[]> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const spec = Object.hasOwn(table, token.name) ? table[token.name] : undefined;
    if (!spec) throw new UsageError(`unknown option "${token.rawName}"`);
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
      options[token.name] = true;
      continue;
    }
    const value = token.value;
    if (value === undefined || value === '') throw new UsageError(`${token.rawName} needs ${spec.needs ?? 'a value'}`);
    const items = spec.list ? value.split(',').map((v) => v.trim()) : [value];
    for (const item of items) {
      const problem = spec.check?.(item) ?? (item === '' ? 'an empty value' : undefined);
      if (problem !== undefined) throw new UsageError(`${token.rawName} ${JSON.stringify(value)}: ${problem}`);
    }
    if (spec.list || spec.multiple) {
      const all = (options[token.name] ??= []) as string[];
      for (const item of items) if (!spec.list || !all.includes(item)) all.push(item);
    } else options[token.name] = value;
  }
  const max = opts.maxPositionals;
  if (max !== undefined && positionals.length > max) throw new UsageError(`unexpected argument "${positionals[max]}"`);
  return { options: options as OptionValues<T>, positionals };
}

/** The options of every command that talks to a cluster. */
export const targetOptions = {
  namespace: { type: 'string', short: 'n' },
  context: { type: 'string' },
  kubeconfig: { type: 'string' },
} as const satisfies OptionTable;

/** A command's target (NAME, namespace, context, kubeconfig), the positionals after NAME, and its own options. */
export interface ParsedTarget<T extends OptionTable> extends TargetArgs {
  rest: string[];
  options: OptionValues<T>;
}

/** `[NAME [ARGS...]] [-n NS] [--context C] [--kubeconfig F]` plus the command's `own` options. */
export function parseTargetArgs<T extends OptionTable = Record<never, OptionSpec>>(
  args: readonly string[],
  own: T = {} as T,
  opts: { maxPositionals?: number } = {},
): ParsedTarget<T> {
  const { options, positionals } = parseOptions(args, { ...targetOptions, ...own }, opts);
  const { namespace, context, kubeconfig } = options as OptionValues<typeof targetOptions>;
  return {
    ...(positionals[0] !== undefined ? { name: positionals[0] } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(kubeconfig !== undefined ? { kubeconfig } : {}),
    rest: positionals.slice(1),
    options: options as OptionValues<T>,
  };
}

/** The rollout commands' arguments: the target's, with a rollout NAME required. */
export function parseRolloutArgs<T extends OptionTable = Record<never, OptionSpec>>(
  args: readonly string[],
  own: T = {} as T,
): ParsedTarget<T> {
  const t = parseTargetArgs(args, own);
  try {
    cluster().requireName(t);
  } catch (e) {
    if (e instanceof cluster().ArgsError) throw new UsageError(e.message);
    throw e;
  }
  return t;
}
