// A suite run once per database adapter, each run on a fresh database of its own: PGlite in
// memory always, and a PostgreSQL schema of its own when TEST_DATABASE_URL is set (without it
// the PostgreSQL run is not registered at all). The database opens before the suite's own
// `before` hooks and is disposed of after its own `after` hooks: the body says only what it
// needs, `describeOnEachDb('feed queries', (fresh) => { it('...', () => read(fresh.db)) })`.
import { after, before, describe } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { type FreshDb, type TestTarget, testTargets } from './test-databases.js';

/** The suite's database: read `db` (and `schema`) inside hooks and tests, once it is open. */
export interface DbSuite {
  readonly target: TestTarget['name'];
  readonly db: Db;
  /** PostgreSQL only: the schema it lives in, to open more pools on the same database. */
  readonly schema: string | undefined;
}

export interface EachDbOptions {
  /** Migrated (the default), or left empty for the suite to build its own tables. */
  readonly migrate?: boolean;
  /** One adapter only (`postgres`: the suite runs only when TEST_DATABASE_URL is set). */
  readonly only?: TestTarget['name'];
}

/**
 * `describe(\`${title} on ${adapter}\`)` for each adapter, with a fresh database opened before and
 * disposed of after; `options` as node:test's own `describe(name, options, fn)` takes them.
 */
export function describeOnEachDb(title: string, body: (fresh: DbSuite) => void): void;
export function describeOnEachDb(title: string, options: EachDbOptions, body: (fresh: DbSuite) => void): void;
export function describeOnEachDb(
  title: string,
  optionsOrBody: EachDbOptions | ((fresh: DbSuite) => void),
  maybeBody?: (fresh: DbSuite) => void,
): void {
  const options = typeof optionsOrBody === 'function' ? {} : optionsOrBody;
  const body = typeof optionsOrBody === 'function' ? optionsOrBody : maybeBody!;
  for (const target of testTargets()) {
    if (options.only !== undefined && target.name !== options.only) continue;
    describe(`${title} on ${target.name}`, () => {
      let opened: FreshDb | undefined;
      const open = (): FreshDb => {
        if (opened === undefined)
          throw new Error(`${title}: the database opens in the suite's first before hook`);
        return opened;
      };
      before(async () => {
        opened = await target.fresh({ migrate: options.migrate !== false });
      });
      body({
        target: target.name,
        get db() {
          return open().db;
        },
        get schema() {
          return open().schema;
        },
      });
      after(() => opened?.dispose());
    });
  }
}
