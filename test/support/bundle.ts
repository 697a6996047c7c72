/**
 * An entry point bundled as scripts/build.mjs bundles it (one CommonJS bundle for Node), into a new
 * temporary folder of its own, with the Kubernetes descriptions the build writes beside the bundles:
 * so that a test runs the code as it ships, without depending on a `npm run build` of the tree.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

/** Bundles `entry` (relative to the repository) to `<new folder>/<name>.js`; returns that file. */
export async function bundleAsBuilt(entry: string, name: string, define?: Record<string, string>): Promise<string> {
  const { build } = await import('esbuild');
  const dir = mkdtempSync(join(tmpdir(), `rollouts-${name}-`));
  const outfile = join(dir, `${name}.js`);
  await build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    logLevel: 'error',
    ...(define ? { define } : {}),
  });
  const { writeKubernetesDocs } = await import('../../scripts/kubernetes-docs.mjs');
  writeKubernetesDocs(join(dir, 'kubernetes-docs.json'));
  return outfile;
}
