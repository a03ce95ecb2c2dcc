// The test runner's per-file deadlines (scripts/test-file-deadline.mjs): a file whose hook never
// settles, and one whose tests ended but whose process lingers on, each fail in bounded time,
// naming what they wait on, and the other files of the run still pass.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const deadline = new URL('../../scripts/test-file-deadline.mjs', import.meta.url).pathname;

/** This process's environment as a runner of its own sees it: not a test file's child context. */
function runnerEnv(limits: { fileMs: number; lingerMs: number }): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _child, ...env } = process.env;
  return { ...env, TEST_FILE_LIMIT_MS: String(limits.fileMs), TEST_LINGER_MS: String(limits.lingerMs) };
}

describe('a test file past its deadline', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-file-deadline-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // An after hook that waits on a timer far beyond the deadline; --test-timeout is set above the
  // deadline, so that only the deadline can cut it.
  writeFileSync(
    join(dir, 'hangs.test.mjs'),
    "import { after, it } from 'node:test';\n" +
      "it('passes', () => {});\n" +
      'after(() => new Promise((resolve) => setTimeout(resolve, 600_000)));\n',
  );
  // Its test passes and leaves an interval running: the process would never end by itself.
  writeFileSync(
    join(dir, 'lingers.test.mjs'),
    "import { it } from 'node:test';\nit('passes and leaves a timer', () => { setInterval(() => {}, 1000); });\n",
  );
  writeFileSync(join(dir, 'fine.test.mjs'), "import { it } from 'node:test';\nit('passes too', () => {});\n");

  const run = (files: readonly string[], limits: { fileMs: number; lingerMs: number }) => {
    const started = Date.now();
    const out = spawnSync(
      process.execPath,
      ['--import', deadline, '--test', '--test-timeout=60000', '--test-reporter=tap', ...files],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
        env: runnerEnv(limits),
      },
    );
    return { ...out, ms: Date.now() - started };
  };

  it('fails the hanging file, says what it waited on, and lets the others pass', () => {
    const out = run(['hangs.test.mjs', 'fine.test.mjs'], { fileMs: 1_500, lingerMs: 60_000 });
    assert.notEqual(out.status, 0, 'the run fails');
    assert.equal(out.signal, null, 'it ended on its own, not by the spawn timeout');
    assert.ok(out.ms < 30_000, `it ended in ${out.ms} ms, not after the hook's 600 s`);
    assert.match(out.stdout, /hangs\.test\.mjs: still running after 1500 ms, so failed/);
    assert.match(out.stdout, /Timeout/, 'the timer it waited on is named');
    assert.match(out.stdout, /^ok \d+ - passes too$/m, 'the other file passed');
    assert.match(out.stdout, /^not ok \d+ - \S*hangs\.test\.mjs$/m);
    assert.doesNotMatch(out.stdout, /timed out/, 'not cut by --test-timeout');
  });

  it('fails a file that lingers after its tests ended, naming the timer', () => {
    const out = run(['lingers.test.mjs', 'fine.test.mjs'], { fileMs: 600_000, lingerMs: 1_000 });
    assert.notEqual(out.status, 0, 'the run fails');
    assert.equal(out.signal, null, 'it ended on its own');
    assert.ok(out.ms < 30_000, `it ended in ${out.ms} ms`);
    assert.match(out.stdout, /lingers\.test\.mjs: still running 1000 ms after its tests ended, so failed/);
    assert.match(out.stdout, /Timeout/);
    assert.match(out.stdout, /^ok \d+ - passes and leaves a timer$/m, 'its test itself passed');
    assert.match(out.stdout, /^not ok \d+ - \S*lingers\.test\.mjs$/m);
  });

  it('passes a file that ends cleanly at once, however long the grace', () => {
    const out = run(['fine.test.mjs'], { fileMs: 600_000, lingerMs: 600_000 });
    assert.equal(out.status, 0, out.stdout);
    assert.ok(out.ms < 30_000, `it ended in ${out.ms} ms`);
  });
});
