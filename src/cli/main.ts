/**
 * src/cli: the `rollouts` command line tool. Each subcommand is one file in ./commands and
 * one entry in its table; the action verbs (promote, abort, ...) are one file, made from the
 * action catalog's rows.
 */
import type { Command, CommandIO } from './command';
import { UsageError } from './command';
import { commands } from './commands';

export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(topLevelHelp(commands));
    return name ? 0 : 2;
  }
  // `--version` as most tools take it; `rollouts version` is the plugin's spelling.
  const command = commands.find((c) => c.name === (name === '--version' ? 'version' : name));
  if (!command) {
    io.err(`rollouts: unknown command "${name}"\n\n${topLevelHelp(commands)}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`rollouts ${name}: ${e.message}\n\n${command.usage}`);
      return 2;
    }
    io.err(`rollouts ${name}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

function topLevelHelp(all: readonly Command[]): string {
  const width = Math.max(...all.map((c) => c.name.length));
  return [
    'Usage: rollouts COMMAND [options]',
    '',
    'Commands:',
    ...all.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run "rollouts COMMAND --help" for the options of a command.',
    'Exit codes: 0 success, 1 the command found a problem, 2 bad usage or unreadable input.',
    '',
  ].join('\n');
}

if (require.main === module) {
  // `rollouts schema | head` closes our stdout early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  const io: CommandIO = {
    out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
    cwd: process.cwd(),
    env: process.env,
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`rollouts: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
