/** What every `rollouts` subcommand implements. Output goes through `io` so tests can capture it. */
export interface CommandIO {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  name: string;
  /** One line for `rollouts --help`. */
  summary: string;
  /** Full help text for `rollouts NAME --help`. */
  usage: string;
  /** Returns the process exit code: 0 success, 1 the command's own failure, 2 bad usage or input. */
  run(args: string[], io: CommandIO): Promise<number>;
}

/** Thrown for bad command-line usage; main prints the message and the command's usage, exit 2. */
export class UsageError extends Error {}
