/** `rollouts schema`: the JSON Schema of a Rollout, generated from the field catalog. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rolloutJsonSchema, type KubernetesDescriptions } from '../../schema';
import type { Command, CommandIO } from '../command';
import { parseOptions } from '../args';

const usage = `Usage: rollouts schema

Prints the JSON Schema (draft 7) of an Argo Rollout, generated from the same field
catalog the language server uses, with our field documentation as descriptions; the
pod template is described by its Kubernetes types, with Kubernetes' own descriptions
and allowed values. Point other YAML tools at it, e.g. yaml-language-server's
yaml.schemas setting.
`;

/** Kubernetes' descriptions, which the build writes beside the bundle (scripts/kubernetes-docs.mjs); none when run unbundled. */
function kubernetesDescriptions(): KubernetesDescriptions | undefined {
  try {
    return JSON.parse(readFileSync(join(__dirname, 'kubernetes-docs.json'), 'utf8')) as KubernetesDescriptions;
  } catch {
    return undefined;
  }
}

async function run(args: string[], io: CommandIO): Promise<number> {
  parseOptions(args, {}, { maxPositionals: 0 });
  const descriptions = kubernetesDescriptions();
  io.out(`${JSON.stringify(rolloutJsonSchema(descriptions ? { descriptions } : {}), null, 2)}\n`);
  return 0;
}

export const schemaCommand: Command = { name: 'schema', summary: 'print the JSON Schema of a Rollout', usage, run };
