// `tokenproxy start` as an operator runs it, stdout piped: every stdout line is a JSON log
// record (jq never breaks on a banner); the first record says the version and the settings
// with secrets redacted; the first start reports its progress (database, keys, token, funding
// pool); health probes are logged below info while other requests are at info; SIGTERM ends
// with a `tokenproxy stopped` record. The banner (URL, token, admin key file) is on stderr.
// A port already taken is refused before any slow work: no key file, no deploy. A stop that
// cannot finish (a database lock holds it) is cut at stopTimeoutMs, or at once by a second
// signal: exit 1, and a record says so.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { eventually } from '../e2e/support.js';
import { freshDatabase, testDatabaseUrl } from '../support/test-databases.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;
const SECRET = 'metrics-token-that-must-not-be-logged';

interface Record_ {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

interface Started {
  readonly child: ChildProcess;
  readonly stdout: string[];
  readonly stderr: string[];
  readonly url: string;
  readonly exited: Promise<number | null>;
}

/** The environment without the developer's TOKENPROXY_* settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('TOKENPROXY_') && k !== 'PORT' && k !== 'DATABASE_URL',
    ),
  );
}

function startProcess(args: readonly string[]): {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'start', ...args], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout!.setEncoding('utf8').on('data', (t: string) => stdout.push(t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => stderr.push(t));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout, stderr, exited };
}

async function startUntilReady(args: readonly string[]): Promise<Started> {
  const run = startProcess(args);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const banner = /running at (http:\/\/\S+)/.exec(run.stderr.join(''));
    if (banner !== null && run.stdout.join('').includes('"tokenproxy ready"'))
      return { ...run, url: banner[1]! };
    if (run.child.exitCode !== null)
      throw new Error(`start exited ${run.child.exitCode}: ${run.stderr.join('')}`);
    if (Date.now() > deadline) {
      run.child.kill('SIGKILL');
      throw new Error('start did not get ready');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function records(lines: string[]): Record_[] {
  const text = lines.join('');
  assert.ok(text.endsWith('\n'), 'stdout ends with a whole line');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      try {
        return JSON.parse(line) as Record_;
      } catch {
        return assert.fail(`stdout line ${i + 1} is not JSON: ${line.slice(0, 200)}`);
      }
    });
}

async function stop(run: Started): Promise<number | null> {
  run.child.kill('SIGTERM');
  return run.exited;
}

describe('tokenproxy start: logs on stdout, banner on stderr', () => {
  let dataDir: string;
  let first: Record_[];
  let firstErr: string;
  let firstCode: number | null;
  let second: Record_[];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-start-logs-'));
    const run = await startUntilReady(['--data-dir', dataDir, '--port', '0', '--metrics-token', SECRET]);
    await fetch(`${run.url}/healthz`);
    await fetch(`${run.url}/readyz`);
    await fetch(`${run.url}/v1/config`);
    firstCode = await stop(run);
    first = records(run.stdout);
    firstErr = run.stderr.join('');
    // A restart at debug: the health probes' records are there, below info.
    const again = await startUntilReady(['--data-dir', dataDir, '--port', '0', '--log-level', 'debug']);
    await fetch(`${again.url}/healthz`);
    await stop(again);
    second = records(again.stdout);
  });

  after(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('every stdout line is a JSON record, and an orderly stop exits 0', () => {
    assert.equal(firstCode, 0);
    assert.ok(first.length > 8, `${first.length} records`);
    for (const r of first) assert.equal(typeof r.level, 'number');
  });

  it('the first record carries the version and the settings, the secret redacted', () => {
    const [r] = first;
    assert.match(r!.msg, /starting/);
    assert.equal(r!.version, VERSION);
    const config = r!.config as Record<string, unknown>;
    assert.equal(config.port, 0);
    assert.equal(config.dataDir, dataDir);
    assert.equal(config.metricsToken, '[REDACTED]');
    assert.ok(!JSON.stringify(first).includes(SECRET), 'the metrics token appears nowhere');
  });

  it('the first start reports its progress through keys, database, token and funding pool', () => {
    const steps = first.map((r) => r.step).filter((s) => s !== undefined);
    for (const step of ['keys', 'database', 'token', 'funding'])
      assert.ok(steps.includes(step), `a progress record of step ${step}`);
    // The keys first: the whole configuration is checked before the database is opened.
    const order = ['keys', 'database', 'token', 'funding'].map((s) => steps.indexOf(s));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
      'in that order',
    );
    assert.ok(first.some((r) => r.msg === 'operator keys created'));
    assert.ok(first.some((r) => r.msg === 'token deployed'));
    assert.ok(
      second.some((r) => r.msg === 'operator keys loaded'),
      'a restart loads them',
    );
    assert.ok(!second.some((r) => r.msg === 'token deployed'), 'and deploys nothing');
  });

  it('health probes are logged below info; other requests at info', () => {
    const completed = (rs: Record_[], url: string) =>
      rs.filter((r) => r.msg === 'request completed' && r.url === url);
    assert.equal(completed(first, '/v1/config').length, 1);
    assert.equal(completed(first, '/v1/config')[0]!.level, 30);
    assert.deepEqual(completed(first, '/healthz'), []);
    assert.deepEqual(completed(first, '/readyz'), []);
    const probe = completed(second, '/healthz');
    assert.equal(probe.length, 1);
    assert.equal(probe[0]!.level, 20, 'debug');
  });

  it('the last record says the service stopped, after a stopping record naming the signal', () => {
    const last = first.at(-1)!;
    assert.equal(last.msg, 'tokenproxy stopped');
    assert.equal(last.signal, 'SIGTERM');
    assert.ok(first.some((r) => r.msg === 'tokenproxy stopping'));
  });

  it('the banner goes to stderr: URL, token and the admin key file', () => {
    assert.match(firstErr, /^tokenproxy sandbox running at http:\/\/127\.0\.0\.1:\d+$/m);
    assert.match(firstErr, /^token [0-9a-f]{64}_0$/m);
    assert.match(firstErr, new RegExp(`admin key created in ${join(dataDir, 'admin.key')}`));
  });

  it('the banner says where a newcomer starts, and how a wallet gets a key and test funds', () => {
    const url = /running at (\S+)/.exec(firstErr)![1]!;
    assert.match(firstErr, new RegExp(`^start here: ${url}/ `, 'm'));
    // The service is not where the commands look by default: they are told where it is.
    const where = ` --url ${url} --data-dir ${dataDir}`;
    assert.ok(firstErr.includes(`an API key for a wallet: npx tokenproxy keys create${where}\n`), firstErr);
    assert.ok(
      firstErr.includes(`test funds: npx tokenproxy mint --to ADDRESS --amount 10${where}\n`),
      firstErr,
    );
  });
});

describe('tokenproxy start on a port already taken', () => {
  let holder: Server;
  let port: number;
  let dataDir: string;

  before(async () => {
    holder = createServer();
    await new Promise<void>((r) => holder.listen({ host: '127.0.0.1', port: 0 }, r));
    port = (holder.address() as { port: number }).port;
    dataDir = join(mkdtempSync(join(tmpdir(), 'tokenproxy-port-')), 'data');
  });

  after(async () => {
    await new Promise((r) => holder.close(r));
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('is refused before keys, database or deploy: exit 1, the port named on stderr', async () => {
    const run = startProcess(['--data-dir', dataDir, '--port', String(port), '--host', '127.0.0.1']);
    const code = await run.exited;
    assert.equal(code, 1);
    assert.match(run.stderr.join(''), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
    assert.ok(!existsSync(join(dataDir, 'keys.json')), 'no operator keys were created');
    assert.ok(!existsSync(dataDir), 'the data folder was not even made');
    const rs = records(run.stdout);
    assert.ok(!rs.some((r) => r.step !== undefined), 'no progress step began');
    assert.equal(rs.at(-1)!.level, 60, 'a fatal record says why');
    const times = rs.map((r) => r.time as number);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'records come out in the order they were made',
    );
  });
});

describe('tokenproxy start: a stop that cannot finish', { skip: testDatabaseUrl === undefined }, () => {
  const dirs: string[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups) await c().catch(() => undefined);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /**
   * A writer process on PostgreSQL whose settings table another session holds locked: its stop
   * gives the writer's registration up there first, and waits on the lock for as long as it is held.
   */
  async function startStuck(stopTimeoutMs: number): Promise<Started> {
    const database = await freshDatabase(testDatabaseUrl!, 'stop_deadline');
    const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-stop-deadline-'));
    dirs.push(dataDir);
    const run = await startUntilReady([
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--database-url',
      database.url,
      '--roles',
      'api,tracker,writer',
      '--stop-timeout-ms',
      String(stopTimeoutMs),
    ]);
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    cleanups.push(async () => {
      run.child.kill('SIGKILL');
      await locker.end();
      await database.drop();
    });
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE settings IN ACCESS EXCLUSIVE MODE');
    return run;
  }

  it('is cut at stopTimeoutMs: exit 1, the last record says the stop did not finish', async () => {
    const run = await startStuck(1_500);
    run.child.kill('SIGTERM');
    const code = await run.exited;
    assert.equal(code, 1);
    const rs = records(run.stdout);
    assert.ok(!rs.some((r) => r.msg === 'tokenproxy stopped'), 'the orderly stop never finished');
    const last = rs.at(-1)!;
    assert.equal(last.msg, 'tokenproxy stop did not finish; exiting without it');
    assert.equal(last.cutBy, 'deadline');
    assert.equal(last.stopTimeoutMs, 1_500);
    assert.equal(last.level, 50);
  });

  it('a second signal cuts it at once, whatever the deadline', async () => {
    const run = await startStuck(600_000);
    run.child.kill('SIGTERM');
    await eventually(
      async () => (run.stdout.join('').includes('"msg":"tokenproxy stopping"') ? true : undefined),
      'the tokenproxy stopping record',
      300,
    );
    run.child.kill('SIGINT');
    const code = await run.exited;
    assert.equal(code, 1);
    const last = records(run.stdout).at(-1)!;
    assert.equal(last.msg, 'tokenproxy stop did not finish; exiting without it');
    assert.equal(last.cutBy, 'SIGINT');
    assert.equal(last.signal, 'SIGTERM');
  });
});
