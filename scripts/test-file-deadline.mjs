// Loaded into every test file's process by run-tests.mjs (--import). node:test's --test-timeout
// bounds each test and hook, but not a file: a file whose tests have all ended still runs as
// long as anything keeps its event loop alive (a service left running, a timer), and Node 24's
// runner waits for it without limit (CI once waited 2,059 s, until its own limit). Here:
// - a file still running TEST_LINGER_MS (2 min) after its tests and hooks ended fails;
// - a file running past TEST_FILE_LIMIT_MS (15 min) in all fails;
// each naming what its event loop still waits on, and the run goes on with the other files.
import { after } from 'node:test';

if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const failWith = (why) => {
    const waitingOn = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    process.stderr.write(
      `\n${process.argv[1]}: ${why}, so failed; its event loop waits on ${JSON.stringify(waitingOn)}\n`,
    );
    process.exit(1);
  };
  const limitMs = Number(process.env.TEST_FILE_LIMIT_MS ?? 900_000);
  setTimeout(() => failWith(`still running after ${limitMs} ms`), limitMs).unref();
  const lingerMs = Number(process.env.TEST_LINGER_MS ?? 120_000);
  // Registered before the file's own root hooks, so it runs first; the file's hooks have the
  // whole grace to finish.
  after(() => {
    setTimeout(() => failWith(`still running ${lingerMs} ms after its tests ended`), lingerMs).unref();
  });
}
