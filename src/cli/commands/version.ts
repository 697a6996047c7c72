/** `rollouts version`: the version of this tool (the extension's), as "kubectl argo rollouts version" prints the plugin's. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../command';
import { parseOptions } from '../args';

/** Set by the build for dist/cli.js; from source (tests) the version is read from package.json. */
declare const ROLLOUTS_VERSION: string | undefined;

export function rolloutsVersion(): string {
  if (typeof ROLLOUTS_VERSION === 'string') return ROLLOUTS_VERSION;
  return (JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string }).version;
}

export const versionCommand: Command = {
  name: 'version',
  summary: "print the version of rollouts (the extension's)",
  usage: 'Usage: rollouts version\n\nPrints "rollouts: vX.Y.Z", the version of this tool and of the extension it comes with.\n',
  run(args, io) {
    parseOptions(args, {}, { maxPositionals: 0 });
    io.out(`rollouts: v${rolloutsVersion()}`);
    return Promise.resolve(0);
  },
};
