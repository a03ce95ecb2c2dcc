// package.json's `engines` tells the truth: every package the lock file installs (runtime and
// development) accepts the oldest Node release of each line the project supports (20.19 and
// 24.0). fastify's light-my-request 6.8 pulled cookie 2, which asks for Node >= 22, so npm
// warned on Node 20; light-my-request is pinned to 6.6.0 (cookie 1, Node >= 18) in
// `overrides` until Node 20 is dropped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import semver from 'semver';

const ROOT = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(new URL('package-lock.json', ROOT), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: Record<string, string> | string[] }>;
};

/** The oldest release of each supported Node line. */
const SUPPORTED = ['20.19.0', '24.0.0'];

/** `name@version needs node RANGE` for every locked package that refuses `node`. */
export function refusing(packages: typeof lock.packages, node: string): string[] {
  const out: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (path === '' || range === undefined) continue;
    if (!semver.satisfies(node, range, { includePrerelease: true }))
      out.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} needs node ${range}`);
  }
  return out;
}

describe('engines', () => {
  it('package.json names a range that holds both supported lines', () => {
    for (const node of SUPPORTED)
      assert.ok(semver.satisfies(node, pkg.engines.node), `${node} satisfies ${pkg.engines.node}`);
  });

  it('no locked package refuses a supported Node release', () => {
    for (const node of SUPPORTED) assert.deepEqual(refusing(lock.packages, node), [], `on Node ${node}`);
  });

  it('the check sees a package that wants a newer Node', () => {
    const packages = { 'node_modules/cookie': { version: '2.0.2', engines: { node: '>=22' } } };
    assert.deepEqual(refusing(packages, '20.19.0'), ['cookie@2.0.2 needs node >=22']);
    assert.deepEqual(refusing(packages, '24.0.0'), []);
  });
});
