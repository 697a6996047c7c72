/**
 * The fast path (src/schema/fast-yaml.ts) builds the `yaml` package's own nodes, so it is only
 * known to be right on the release it was checked against. This fails, naming both versions,
 * when the installed `yaml` or package.json's pin moves away from that release.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKED_YAML_VERSION } from '../../src/schema/fast-yaml';

const ROOT = join(__dirname, '../..');

describe('the yaml package the fast path builds nodes of', () => {
  it('is installed at exactly the version the fast path was checked against', () => {
    const installed = (JSON.parse(readFileSync(require.resolve('yaml/package.json'), 'utf8')) as { version: string }).version;
    assert.equal(
      installed,
      CHECKED_YAML_VERSION,
      `yaml ${installed} is installed, but src/schema/fast-yaml.ts was checked against yaml ${CHECKED_YAML_VERSION}: ` +
        `run test/schema/fast-yaml.test.ts against ${installed}, fix the fast path if it fails, then set CHECKED_YAML_VERSION and the pin in package.json to ${installed}`,
    );
  });

  it('is pinned exactly to that version in package.json (no range a minor release could satisfy)', () => {
    const pin = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies
      .yaml;
    assert.equal(
      pin,
      CHECKED_YAML_VERSION,
      `package.json asks for yaml "${pin}", but src/schema/fast-yaml.ts was checked against yaml ${CHECKED_YAML_VERSION}: pin "yaml": "${CHECKED_YAML_VERSION}" exactly`,
    );
    const lock = (
      JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
      }
    ).packages;
    assert.equal(
      lock['']?.dependencies?.yaml,
      pin,
      `package-lock.json's root asks for yaml "${lock['']?.dependencies?.yaml}", package.json for "${pin}"`,
    );
    assert.equal(
      lock['node_modules/yaml']?.version,
      CHECKED_YAML_VERSION,
      `package-lock.json locks yaml ${lock['node_modules/yaml']?.version}, but the fast path was checked against yaml ${CHECKED_YAML_VERSION}`,
    );
  });
});
