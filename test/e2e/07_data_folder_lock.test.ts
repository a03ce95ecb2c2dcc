// A second process on the same embedded data folder is refused with a clear message, and
// the first one keeps serving.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { serviceForSuite } from './support.js';

describe('one process per embedded data folder', () => {
  const t = serviceForSuite();

  it('refuses a second `tokenproxy start` on the same folder, naming the folder and the holder', async () => {
    const second = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/entry.ts',
        'start',
        '--data-dir',
        t.dataDir,
        '--port',
        '0',
        '--log-level',
        'silent',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.notEqual(second.status, 0);
    assert.match(second.stderr, /in use/);
    assert.match(second.stderr, new RegExp(`process ${process.pid}`));
    const res = await fetch(`${t.url}/v1/config`);
    assert.equal(res.status, 200, 'the first service still answers');
  });
});
