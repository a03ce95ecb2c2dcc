import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONFIG_KEYS,
  ConfigError,
  ConfigSchema,
  describeConfig,
  envNameOf,
  flagNameOf,
  loadConfig,
  redactConfig,
  redactPassword,
} from '../src/config.js';

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error.problems;
  }
  assert.fail('expected a ConfigError');
}

const PROD_ENV = {
  TOKENPROXY_ENV: 'production',
  DATABASE_URL: 'postgres://tp:s3cret@db.internal:5432/tokenproxy',
  ARC_URL: 'https://arc.example.com',
  TOKENPROXY_ROLES: 'api,tracker,deliverer',
  TOKENPROXY_APPROVER_KEY: '01'.repeat(32),
  TOKENPROXY_MINT_KEY: '02'.repeat(32),
  TOKENPROXY_FEE_KEY: '03'.repeat(32),
  TOKENPROXY_FUNDING_KEY: '04'.repeat(32),
  TOKENPROXY_MASTER_KEY: '05'.repeat(32),
};

describe('loadConfig defaults', () => {
  it('gives the documented defaults with no input', () => {
    const c = loadConfig({ env: {} });
    assert.equal(c.env, 'sandbox');
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, 3000);
    assert.equal(c.dataDir, './.tokenproxy');
    assert.deepEqual(c.roles, ['api', 'tracker', 'deliverer', 'devnet']);
    assert.equal(c.bodyLimit, 1_048_576);
    assert.equal(c.maxAddresses, 1000);
    assert.equal(c.maxTxBytes, 100_000);
    assert.equal(c.maxInputs, 100);
    assert.equal(c.maxOutputs, 100);
    assert.equal(c.anonymousRead, true);
    assert.deepEqual(c.callbackAllow, []);
    assert.deepEqual(c.trustProxy, []);
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.arcUrl, undefined);
    assert.equal(c.logLevel, 'info');
  });

  it('is frozen, arrays included', () => {
    const c = loadConfig({ env: {} });
    assert.ok(Object.isFrozen(c));
    assert.ok(Object.isFrozen(c.roles));
    assert.throws(() => {
      (c as { port: number }).port = 1;
    }, TypeError);
  });
});

describe('loadConfig layering', () => {
  const file = JSON.stringify({ port: 4000, host: '0.0.0.0', maxAddresses: 50 });
  const readFile = (path: string) => {
    assert.equal(path, '/etc/tp.json');
    return file;
  };

  it('file over defaults, env over file, flags over env', () => {
    const c = loadConfig({
      argv: ['--config', '/etc/tp.json', '--port', '6000'],
      env: { TOKENPROXY_PORT: '5000', TOKENPROXY_MAX_ADDRESSES: '70' },
      readFile,
    });
    assert.equal(c.port, 6000);
    assert.equal(c.maxAddresses, 70);
    assert.equal(c.host, '0.0.0.0');
  });

  it('reads the file named by TOKENPROXY_CONFIG', () => {
    const c = loadConfig({ env: { TOKENPROXY_CONFIG: '/etc/tp.json' }, readFile });
    assert.equal(c.port, 4000);
  });

  it('reads the conventional names, TOKENPROXY_* winning over them', () => {
    const c = loadConfig({
      env: {
        PORT: '8080',
        HOST: '::1',
        ARC_URL: 'http://arc.local',
        ARC_API_KEY: 'k',
        TOKENPROXY_HOST: '10.0.0.1',
      },
    });
    assert.equal(c.port, 8080);
    assert.equal(c.host, '10.0.0.1');
    assert.equal(c.arcUrl, 'http://arc.local');
    assert.equal(c.arcApiKey, 'k');
  });

  it('parses booleans, lists and --flag=value forms', () => {
    const c = loadConfig({
      argv: [
        '--no-anonymous-read',
        '--roles=api,tracker',
        '--callback-allow',
        '127.0.0.1, 10.0.0.0/8',
        '--rate-limit-enabled',
      ],
      env: { TOKENPROXY_RATE_LIMIT_ENABLED: 'false' },
    });
    assert.equal(c.anonymousRead, false);
    assert.deepEqual(c.roles, ['api', 'tracker']);
    assert.deepEqual(c.callbackAllow, ['127.0.0.1', '10.0.0.0/8']);
    assert.equal(c.rateLimitEnabled, true);
  });

  it('derives env names and flags from the schema keys', () => {
    assert.equal(envNameOf('feeRateSatPerKb'), 'TOKENPROXY_FEE_RATE_SAT_PER_KB');
    assert.equal(flagNameOf('feeRateSatPerKb'), 'fee-rate-sat-per-kb');
    const c = loadConfig({ env: { [envNameOf('feeRateSatPerKb')]: '250' } });
    assert.equal(c.feeRateSatPerKb, 250);
  });
});

describe('loadConfig validation', () => {
  it('rejects a non-integer port naming the setting and its source', () => {
    const problems = problemsOf(() => loadConfig({ env: { TOKENPROXY_PORT: '80.5' } }));
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /port \(from env TOKENPROXY_PORT\)/);
  });

  it('rejects out-of-range values and unknown roles', () => {
    const problems = problemsOf(() => loadConfig({ argv: ['--port', '70000', '--roles', 'api,miner'] }));
    assert.ok(problems.some((p) => p.startsWith('port (from flag --port)')));
    assert.ok(problems.some((p) => p.startsWith('roles')));
  });

  it('refuses a token supply past 2^53-1, which no JSON number carries exactly', () => {
    const problems = problemsOf(() => loadConfig({ argv: ['--token-supply', '9007199254740992'] }));
    assert.ok(problems.some((p) => p.startsWith('tokenSupply: 9007199254740992 is more than 2^53-1')));
    assert.equal(
      loadConfig({ argv: ['--token-supply', '9007199254740991'] }).tokenSupply,
      '9007199254740991',
    );
  });

  it('rejects unknown env settings, flags, file keys and stray arguments', () => {
    const problems = problemsOf(() =>
      loadConfig({
        argv: ['--prot', '1', 'start'],
        env: { TOKENPROXY_PROT: '1', TOKENPROXY_CONFIG: 'x.json' },
        readFile: () => '{"prot": 1, "$schema": "./schema.json"}',
      }),
    );
    assert.ok(problems.includes('unknown flag --prot'));
    assert.ok(problems.includes("unexpected argument 'start'"));
    assert.ok(problems.includes('unknown setting in environment: TOKENPROXY_PROT'));
    assert.ok(problems.includes("config file x.json: unknown setting 'prot'"));
  });

  it('reports an unreadable or malformed file', () => {
    const missing = problemsOf(() =>
      loadConfig({
        argv: ['--config', 'nope.json'],
        readFile: () => {
          throw new Error('ENOENT');
        },
      }),
    );
    assert.match(missing[0] ?? '', /config file nope\.json: ENOENT/);
    const malformed = problemsOf(() => loadConfig({ argv: ['--config', 'a.json'], readFile: () => '[1]' }));
    assert.match(malformed[0] ?? '', /must hold a JSON object/);
  });

  it('checks types from the file too', () => {
    const problems = problemsOf(() =>
      loadConfig({ argv: ['--config', 'a.json'], readFile: () => '{"anonymousRead": "yes"}' }),
    );
    assert.match(problems[0] ?? '', /^anonymousRead \(from config file a\.json\)/);
  });
});

describe('operational settings', () => {
  it('keep the numbers the service ran on before they were settings', () => {
    const c = loadConfig({ env: {} });
    assert.equal(c.fundingPoolLowWater, 100);
    assert.equal(c.fundingRefillMs, 5000);
    assert.equal(c.fundingAlertMs, 5 * 60_000);
    assert.equal(c.fundingLeaseMs, 60_000);
    assert.equal(c.fundingLeaseKeepMs, 2000);
    assert.equal(c.submissionBatchMax, 256);
    assert.equal(c.submissionBatchesInFlight, 1);
    assert.equal(c.submissionWindowMs, undefined);
    assert.equal(c.idempotencyKeepMs, 24 * 3600_000);
    assert.equal(c.idempotencyPurgeMs, 10 * 60_000);
    assert.equal(c.finalConfirmations, 6);
    assert.equal(c.feeRateCacheMs, 60_000);
    assert.equal(c.trackerFirstLookMs, 5000);
  });

  it('refuse funding leases renewed less often than they last, or a floor above the ceiling', () => {
    const problems = problemsOf(() =>
      loadConfig({
        env: {},
        argv: ['--funding-lease-ms', '2000', '--funding-lease-min-outputs', '600'],
      }),
    );
    assert.ok(problems.some((p) => p.includes('fundingLeaseKeepMs must be shorter than fundingLeaseMs')));
    assert.ok(problems.some((p) => p.includes('fundingLeaseMinOutputs must not exceed')));
  });

  it('refuse the writer role without PostgreSQL or on a wildcard address, and leave it out of the default roles', () => {
    assert.deepEqual(loadConfig({ env: {} }).roles, ['api', 'tracker', 'deliverer', 'devnet']);
    const embedded = problemsOf(() => loadConfig({ env: {}, argv: ['--roles', 'api,writer'] }));
    assert.ok(
      embedded.some((p) => p.includes("the 'writer' role needs a PostgreSQL databaseUrl")),
      embedded.join('; '),
    );
    const wildcard = problemsOf(() =>
      loadConfig({
        env: {},
        argv: ['--roles', 'writer', '--database-url', 'postgres://db/x', '--writer-host', '0.0.0.0'],
      }),
    );
    assert.ok(
      wildcard.some((p) => p.includes('writerHost must be an address')),
      wildcard.join('; '),
    );
    const fine = loadConfig({ env: {}, argv: ['--roles', 'writer', '--database-url', 'postgres://db/x'] });
    assert.deepEqual(fine.roles, ['writer']);
    assert.equal(fine.writerHost, '127.0.0.1');
  });
});

describe('production checks', () => {
  it('accepts PostgreSQL and ARC', () => {
    const c = loadConfig({ env: PROD_ENV });
    assert.equal(c.env, 'production');
  });

  it('lists everything missing at once', () => {
    const problems = problemsOf(() => loadConfig({ env: { TOKENPROXY_ENV: 'production' } }));
    assert.ok(problems.some((p) => p.includes('databaseUrl (DATABASE_URL)') && p.includes('PGlite')));
    assert.ok(problems.some((p) => p.includes('arcUrl (ARC_URL)')));
    assert.ok(problems.some((p) => p.includes("'devnet' role")));
    assert.ok(
      problems.some(
        (p) =>
          p.includes('approverKey (TOKENPROXY_APPROVER_KEY)') &&
          p.includes('masterKey (TOKENPROXY_MASTER_KEY)'),
      ),
    );
    assert.equal(problems.length, 4);
  });

  it('refuses a PGlite database URL and the callback allow-list', () => {
    const problems = problemsOf(() =>
      loadConfig({
        env: {
          ...PROD_ENV,
          DATABASE_URL: 'file:///var/lib/tp/pglite',
          TOKENPROXY_CALLBACK_ALLOW: '127.0.0.1',
        },
      }),
    );
    assert.ok(problems.some((p) => p.includes('PostgreSQL databaseUrl')));
    assert.ok(problems.some((p) => p.includes('callbackAllow')));
  });
});

describe('describeConfig', () => {
  it('redacts secrets and URL passwords', () => {
    const c = loadConfig({
      env: { ...PROD_ENV, ARC_API_KEY: 'arc-top-secret', REDIS_URL: 'redis://:r3dis@cache:6379' },
    });
    const text = describeConfig(c);
    assert.doesNotMatch(text, /s3cret|arc-top-secret|r3dis/);
    assert.match(text, /^databaseUrl = "postgres:\/\/tp:\[REDACTED\]@db\.internal:5432\/tokenproxy"$/m);
    assert.match(text, /^arcApiKey = "\[REDACTED\]"$/m);
    assert.match(text, /^port = 3000$/m);
    assert.equal(redactConfig(c).arcUrl, 'https://arc.example.com');
  });

  it('leaves URLs without a password alone', () => {
    assert.equal(redactPassword('postgres://db/x'), 'postgres://db/x');
    assert.equal(redactPassword('postgres://u:p@ss@db/x'), 'postgres://u:[REDACTED]@db/x');
  });
});

describe('ConfigSchema', () => {
  it('documents every setting with a description', () => {
    for (const key of CONFIG_KEYS) {
      const schema = ConfigSchema.properties[key] as { description?: string };
      assert.ok(schema.description, `${key} has no description`);
    }
  });
});
