/** `rollouts apply -f FILE...`: send manifests to a cluster by server-side apply (the editor's "Apply File to Cluster"). */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ApplyProblem } from '../../cluster';
import { manifestObjects, type ManifestObjects } from '../../schema';
import { UsageError, type Command } from '../command';
import { readError } from '../files';
import { cluster } from '../lazy-cluster';
import { parseTargetArgs, type OptionTable } from '../args';

const usage = (): string => `Usage: rollouts apply -f FILE [-f FILE...] [--force-conflicts] [-n NS] [--context C] [--kubeconfig F]

Sends every object of each FILE to the cluster by server-side apply, as
"kubectl apply --server-side" does, in file order, under the field manager
argo-rollouts-vscode; prints one line per object applied. A document that is no
Kubernetes object, a kind the server does not serve, or an object it refuses is
reported with its file and line; the rest is still applied.

Options:
  -f, --filename FILE   a manifest (several -f for several files)
  --force-conflicts     take over fields another field manager owns
${cluster().targetUsage.replace("the rollout's namespace", 'the namespace of objects that name none')}
Exit codes: 0 all applied, 1 something was not applied, 2 bad usage, a file
that cannot be read, or one that is not YAML (then nothing of it is sent).
`;

const applyOptions = {
  filename: { type: 'string', short: 'f', multiple: true, needs: 'a FILE' },
  'force-conflicts': { type: 'boolean' },
} as const satisfies OptionTable;

export const applyCommand: Command = {
  name: 'apply',
  summary: 'send manifests to a cluster by server-side apply, as kubectl apply --server-side',
  get usage() {
    return usage();
  },
  async run(args, io) {
    const t = parseTargetArgs(args, applyOptions);
    const files = t.options.filename ?? [];
    if (t.name !== undefined) throw new UsageError(`unexpected argument "${t.name}": name files with -f FILE`);
    if (files.length === 0) throw new UsageError('give at least one manifest with -f FILE');

    // Every file is read and parsed before anything is sent: a typo in the second file stops the first too.
    const read: ({ file: string } & ManifestObjects)[] = [];
    let unusable = false;
    for (const file of files) {
      let text: string;
      try {
        text = await readFile(resolve(io.cwd, file), 'utf8');
      } catch (e) {
        io.err(`rollouts apply: cannot read ${file}: ${readError(e)}`);
        unusable = true;
        continue;
      }
      const manifest = manifestObjects(text);
      if (manifest.refused) {
        io.err(`${file}:${manifest.refused.line}: ${manifest.refused.message}`);
        unusable = true;
        continue;
      }
      read.push({ file, ...manifest });
    }
    if (unusable) return 2;

    const conn = cluster().connectOrSay(t, io);
    if (!conn) return 1;
    let failed = false;
    for (const { file, objects, problems } of read) {
      const result = await cluster().applyObjects(conn.rest, objects, conn.namespace, { force: t.options['force-conflicts'] === true });
      for (const o of result.applied)
        io.out(`${o.kind.toLowerCase()}/${o.name}${o.namespace ? ` (namespace ${o.namespace})` : ''} applied`);
      const all: ApplyProblem[] = [...problems, ...result.problems];
      for (const p of all.sort((a, b) => a.line - b.line)) {
        failed = true;
        io.err(`${file}:${p.line}: ${p.message}${p.conflicts?.length ? ' (--force-conflicts takes them over)' : ''}`);
      }
    }
    return failed ? 1 : 0;
  },
};
