/** `rollouts schema`: the JSON Schema of a Rollout, generated from the field catalog. */
import { rolloutJsonSchema } from '../../schema';
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';

const usage = `Usage: rollouts schema

Prints the JSON Schema (draft 7) of an Argo Rollout, generated from the same field
catalog the language server uses, with our field documentation as descriptions.
Point other YAML tools at it, e.g. yaml-language-server's yaml.schemas setting.
`;

async function run(args: string[], io: CommandIO): Promise<number> {
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`);
  io.out(`${JSON.stringify(rolloutJsonSchema(), null, 2)}\n`);
  return 0;
}

export const schemaCommand: Command = { name: 'schema', summary: 'print the JSON Schema of a Rollout', usage, run };
