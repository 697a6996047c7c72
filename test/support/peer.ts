// Where the tests find the inputs they compare against.
//
// Upstream Argo Rollouts' examples, lint inputs and e2e manifests are Apache-2.0 and live in the
// repository (test/fixtures/argo-rollouts). The real-world manifests are third-party files without
// a licence: they stay outside the repository (../shared/peer/real-world beside a clone), and the
// tests that read them run only where that folder exists.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

/** Upstream's data files: examples/, lint-testdata/, e2e/, EXPECTED.md. */
export const UPSTREAM = join(root, 'test/fixtures/argo-rollouts');

/** The real-world manifests, where they are beside this clone. */
export const REAL_WORLD = resolve(root, '../shared/peer/real-world');

export const hasRealWorld = existsSync(REAL_WORLD);

/** Why the real-world tests did not run; scripts/test.mjs prints the same in its summary. */
export const realWorldSkipReason = `the real-world manifests are not beside this clone (${REAL_WORLD}): third-party files without a licence, not kept in the repository`;

/**
 * `describe` where the real-world manifests exist; else one pending test whose title says why (the
 * body is not run: it would read the missing files while mocha collects the tests).
 */
export function describeRealWorld(title: string, body: () => void): void {
  if (hasRealWorld) describe(title, body);
  else it.skip(`${title} (skipped: ${realWorldSkipReason})`);
}

/** `it` where the real-world manifests exist, else a skipped test whose title says why. */
export function itRealWorld(title: string, body: () => void | Promise<void>): void {
  if (hasRealWorld) it(title, body);
  else it.skip(`${title} (skipped: ${realWorldSkipReason})`);
}

/**
 * The path of a file named as in ../shared/peer: `argo-rollouts/...` (kept in the repository) or
 * `real-world/...` (beside the clone).
 */
export function peerPath(name: string): string {
  if (name.startsWith('argo-rollouts/')) return join(UPSTREAM, name.slice('argo-rollouts/'.length));
  if (name.startsWith('real-world/')) return join(REAL_WORLD, name.slice('real-world/'.length));
  throw new Error(`not a peer file: ${name}`);
}

/** Those of the named peer files that are here: the real-world ones only where they exist. */
export function availablePeers(names: string[]): string[] {
  return names.filter((n) => hasRealWorld || !n.startsWith('real-world/'));
}
