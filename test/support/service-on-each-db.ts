// A whole service per database adapter, for suites that must hold on both (the issuer's
// controls, issue 32): the embedded one (PGlite) always, and with TEST_DATABASE_URL the same
// service on a PostgreSQL database of its own (freshDatabase), each with the embedded devnet.
import { after, before, describe } from 'node:test';
import { type ServiceInTemp, startServiceIn } from './service-in-temp.js';
import { freshDatabase, testDatabaseUrl } from './test-databases.js';

export interface ServiceSuite {
  readonly target: 'pglite' | 'postgres';
  /** The suite's service: read it inside hooks and tests, once started. */
  readonly t: ServiceInTemp;
}

/** `describe(\`${title} on ${adapter}\`)` per adapter, its service started with `flags` before the suite's own hooks. */
export function describeServiceOnEachDb(
  title: string,
  flags: readonly string[] | (() => readonly string[]),
  body: (suite: ServiceSuite) => void,
): void {
  const targets: ('pglite' | 'postgres')[] =
    testDatabaseUrl === undefined ? ['pglite'] : ['pglite', 'postgres'];
  for (const target of targets) {
    describe(`${title} on ${target}`, () => {
      let started: ServiceInTemp | undefined;
      let drop: (() => Promise<void>) | undefined;
      before(async () => {
        const own = typeof flags === 'function' ? flags() : flags;
        const extra: string[] = [];
        if (target === 'postgres') {
          const db = await freshDatabase(testDatabaseUrl!, 'svc');
          drop = db.drop;
          extra.push('--database-url', db.url);
        }
        started = await startServiceIn(`each-db-${target}`, ['--log-level', 'warn', ...extra, ...own]);
      });
      body({
        target,
        get t() {
          if (started === undefined)
            throw new Error(`${title}: the service starts in the suite's first before hook`);
          return started;
        },
      });
      after(async () => {
        await started?.stop();
        await drop?.();
      });
    });
  }
}
