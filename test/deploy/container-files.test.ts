// The Dockerfile and deploy/compose.yaml, checked without a container runtime (none is
// reachable where this project is written, so neither was built or run here): every service
// command loads with the real config loader, the example env file and the secrets as files, the
// services run every role but the devnet with two api instances and the writer beside the
// tracker, each with a health check, no secret is given in the environment and nothing the
// files say is overridden by a literal, their database and Redis are services of the file, the
// image holds what the package needs at run time, fails its build without the native secp256k1
// binding, has a HEALTHCHECK and starts `tokenproxy`, its Node release is 24 and one
// package.json's engines accepts, and docs/deployment.md shows both files as they are.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { parse } from 'yaml';
import { configArgvOf } from '../../src/cli/migrate.js';
import { loadConfig } from '../../src/config.js';
import { CONFIG_KEYS, ENV_ALIASES, envNameOf, secretKindOf } from '../../src/config-schema.js';
import { envFile, PRODUCTION_SECRETS } from './deploy-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const ENV = envFile(read('deploy/tokenproxy.env.example'));
const SECRETS = PRODUCTION_SECRETS;

interface Service {
  readonly image?: string;
  readonly command?: string[];
  readonly environment?: Record<string, string>;
  readonly env_file?: string[];
  readonly secrets?: string[];
  readonly healthcheck?: { test: string[] };
  readonly ports?: string[];
  readonly build?: { context: string; dockerfile: string };
  readonly depends_on?: Record<string, unknown>;
}
const compose = parse(read('deploy/compose.yaml'), { merge: true }) as {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
};

/** Every compose secret as a file of a temporary folder, `/run/secrets/<name>` mapped to it. */
const secretDir = mkdtempSync(join(tmpdir(), 'tokenproxy-compose-secrets-'));
const SECRET_VALUES: Record<string, string> = {
  database_url: 'postgres://tokenproxy:from-the-secret@postgres:5432/tokenproxy',
  postgres_password: 'from-the-secret',
  approver_key: SECRETS.TOKENPROXY_APPROVER_KEY!,
  mint_key: SECRETS.TOKENPROXY_MINT_KEY!,
  fee_key: SECRETS.TOKENPROXY_FEE_KEY!,
  funding_key: SECRETS.TOKENPROXY_FUNDING_KEY!,
  master_key: SECRETS.TOKENPROXY_MASTER_KEY!,
};
for (const [name, value] of Object.entries(SECRET_VALUES)) writeFileSync(join(secretDir, name), `${value}\n`);
/** A service's environment as its container sees it: the env file, then its `environment:`. */
function containerEnv(service: Service): Record<string, string> {
  const env: Record<string, string> = { ...ENV };
  for (const [name, value] of Object.entries(service.environment ?? {}))
    env[name] = value.replace(/^\/run\/secrets\//, `${secretDir}/`);
  return env;
}
/**
 * Settings whose value is a secret, by every name the environment may give them: the keys and
 * tokens, and the database URL (its password). Redis's URL carries none here.
 */
const SECRET_NAMES = new Set(
  CONFIG_KEYS.filter((k) => secretKindOf(k) === 'value' || k === 'databaseUrl').flatMap((k) => [
    envNameOf(k),
    ...(ENV_ALIASES[k] === undefined ? [] : [ENV_ALIASES[k]!]),
  ]),
);
const services = Object.entries(compose.services);
const tokenproxy = services.filter(([, s]) => s.command !== undefined);

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string; stage: number }[] {
  let stage = -1;
  return text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.trim().split(/\s+/);
      if (op === 'FROM') stage += 1;
      return { op: op!, args: rest.join(' '), stage };
    });
}
const DOCKERFILE = instructions(read('Dockerfile'));

describe('deploy/compose.yaml', () => {
  after(() => rmSync(secretDir, { recursive: true, force: true }));
  it('every tokenproxy service command loads with the config loader (production, no devnet)', () => {
    assert.ok(tokenproxy.length >= 4);
    const roles = new Set<string>();
    let apis = 0;
    for (const [name, service] of tokenproxy) {
      const [command, ...args] = service.command!;
      assert.ok(command === 'start' || command === 'migrate' || command === 'keys', `${name}: ${command}`);
      if (command === 'keys') {
        assert.deepEqual(args, ['create-admin'], name);
        continue;
      }
      assert.deepEqual(service.env_file, ['tokenproxy.env'], name);
      const argv = command === 'migrate' ? configArgvOf(args) : args;
      const config = loadConfig({ argv, env: containerEnv(service), databaseOnly: command === 'migrate' });
      assert.equal(
        config.databaseUrl,
        SECRET_VALUES.database_url,
        `${name}: the database URL is the secret's`,
      );
      assert.equal(config.masterKey, SECRET_VALUES.master_key, name);
      assert.equal(config.env, 'production', name);
      if (command === 'migrate') continue;
      assert.ok(!config.roles.includes('devnet'), name);
      for (const role of config.roles) roles.add(role);
      if (config.roles.includes('api')) {
        apis += 1;
        assert.equal(config.host, '0.0.0.0', `${name} listens beyond the container`);
        const published = (service.ports ?? []).map((p) => Number(p.split(':').at(-1)));
        assert.deepEqual(published, [config.port], `${name} publishes its port`);
      }
    }
    assert.deepEqual([...roles].sort(), ['api', 'deliverer', 'tracker', 'writer']);
    assert.ok(apis >= 2, 'two api instances');
    const writers = tokenproxy.filter(([, s]) => s.command!.includes('tracker,writer'));
    assert.equal(writers.length, 1, "one writer, on the tracker's process");
  });

  it('gives no secret in the environment: each from a file of compose secrets, nothing overriding the env file', () => {
    for (const [name, service] of services) {
      for (const variable of Object.keys(service.environment ?? {})) {
        assert.ok(!SECRET_NAMES.has(variable), `${name}: ${variable} is a secret given as a literal`);
        if (!variable.endsWith('_FILE')) continue;
        const path = service.environment![variable]!;
        const secret = /^\/run\/secrets\/(\w+)$/.exec(path)?.[1];
        assert.ok(secret !== undefined, `${name}: ${variable} names a compose secret`);
        assert.ok(service.secrets?.includes(secret), `${name}: mounts ${secret}`);
        assert.ok(
          compose.secrets[secret]?.file.startsWith('./secrets/'),
          `${secret} is a file the operator makes`,
        );
      }
    }
    // No secret the env file holds is overridden by the compose file (its DATABASE_URL literal
    // did, silently); the addresses of the compose network (Redis, the proxies) may be.
    for (const [name, service] of tokenproxy)
      for (const variable of Object.keys(service.environment ?? {})) {
        const base = variable.replace(/_FILE$/, '');
        assert.ok(
          !(SECRET_NAMES.has(base) && base in ENV),
          `${name}: ${variable} overrides the env file's ${base}`,
        );
      }
    assert.ok(!('DATABASE_URL' in ENV), 'the env file names no DATABASE_URL: it holds a password');
    assert.equal(
      compose.services.postgres!.environment!.POSTGRES_PASSWORD_FILE,
      '/run/secrets/postgres_password',
    );
  });

  it('every long-running service has a health check on its own port', () => {
    for (const [name, service] of tokenproxy) {
      if (!service.command!.includes('start')) continue;
      const at = service.command!.indexOf('--port');
      const port = service.command![at + 1];
      assert.ok(at >= 0 && port !== undefined, `${name} names its port`);
      const test = (service.healthcheck?.test ?? []).join(' ');
      assert.ok(test.includes(`127.0.0.1:${port}/readyz`), `${name}: /readyz on ${port}`);
    }
  });

  it('the database and Redis the services use are services of the file, and they wait for PostgreSQL', () => {
    const names = new Set(services.map(([n]) => n));
    const postgres = compose.services.postgres!;
    assert.match(postgres.image!, /^postgres:\d+/);
    for (const [name, service] of tokenproxy) {
      const db = new URL(SECRET_VALUES.database_url!);
      assert.ok(names.has(db.hostname), `${name}: ${db.hostname} is a service`);
      assert.equal(db.username, postgres.environment!.POSTGRES_USER);
      assert.equal(decodeURIComponent(db.password), SECRET_VALUES.postgres_password);
      assert.equal(db.pathname.slice(1), postgres.environment!.POSTGRES_DB);
      assert.ok(names.has(new URL(service.environment!.REDIS_URL!).hostname), `${name}: Redis is a service`);
      assert.deepEqual(service.depends_on?.postgres, { condition: 'service_healthy' }, name);
      assert.ok(existsSync(join(ROOT, 'deploy', service.build!.context, service.build!.dockerfile)), name);
    }
  });
});

describe('Dockerfile', () => {
  it('builds on a Node release that engines accepts, in both stages', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const froms = DOCKERFILE.filter((i) => i.op === 'FROM');
    assert.equal(froms.length, 2);
    for (const from of froms) {
      const major = /^node:(\d+)[-\w.]*/.exec(from.args)?.[1];
      assert.ok(major !== undefined, from.args);
      assert.ok(semver.satisfies(`${major}.99.0`, engines), `node ${major} within ${engines}`);
      assert.equal(major, '24', 'Node 24 LTS (20 is at its end of life)');
    }
  });

  it('fails its build without the native secp256k1 binding, and has a HEALTHCHECK on /readyz', () => {
    for (const stage of [0, 1]) {
      const runs = DOCKERFILE.filter((i) => i.op === 'RUN' && i.stage === stage).map((i) => i.args);
      assert.ok(
        runs.some((r) => r.includes("require('secp256k1/bindings')")),
        `stage ${stage} loads the native binding`,
      );
    }
    const tools = DOCKERFILE.find((i) => i.op === 'RUN' && i.stage === 0 && i.args.includes('apt-get'));
    assert.ok(
      tools?.args.includes('g++') && tools.args.includes('python3'),
      'the build can compile it (arm64)',
    );
    const check = DOCKERFILE.find((i) => i.op === 'HEALTHCHECK');
    assert.ok(check?.args.includes('/readyz'), 'HEALTHCHECK asks /readyz');
  });

  it('copies into the build what npm ci (prepare: build) needs, from paths that exist', () => {
    const copies = DOCKERFILE.filter((i) => i.op === 'COPY' && i.stage === 0);
    const sources = copies.flatMap((c) => c.args.split(/\s+/).slice(0, -1));
    for (const s of sources) assert.ok(existsSync(join(ROOT, s)), `${s} exists`);
    for (const needed of ['package.json', 'package-lock.json', 'tsconfig.build.json', 'src', 'bin'])
      assert.ok(sources.includes(needed), `the build copies ${needed}`);
    const ignored = read('.dockerignore').split('\n').filter(Boolean);
    for (const needed of sources) assert.ok(!ignored.includes(needed), `.dockerignore keeps ${needed}`);
  });

  it('the image holds what the package runs from and starts tokenproxy start', () => {
    const copied = DOCKERFILE.filter((i) => i.op === 'COPY' && i.stage === 1).map((c) =>
      c.args
        .replace(/^--from=\S+\s+/, '')
        .split(/\s+/)[0]!
        .replace(/^\/app\//, ''),
    );
    const bin = read('bin/tokenproxy.js');
    const entry = /['"]\.\.\/(dist\/[^'"]+)['"]/.exec(bin)?.[1];
    assert.ok(entry);
    for (const needed of ['package.json', 'node_modules', 'dist', 'bin', 'src/store/migrations'])
      assert.ok(copied.includes(needed), `the image has ${needed}`);
    const entrypoint = DOCKERFILE.find((i) => i.op === 'ENTRYPOINT');
    assert.deepEqual(JSON.parse(entrypoint!.args), ['node', 'bin/tokenproxy.js']);
    assert.deepEqual(JSON.parse(DOCKERFILE.find((i) => i.op === 'CMD')!.args), ['start']);
    assert.ok(
      DOCKERFILE.some((i) => i.op === 'USER' && i.args !== 'root'),
      'not run as root',
    );
  });

  it('docs/deployment.md shows the Dockerfile and the compose file as they are, and says they were not built here', () => {
    const doc = read('docs/deployment.md');
    for (const file of ['Dockerfile', 'deploy/compose.yaml']) {
      assert.ok(doc.includes(`\n${read(file).trimEnd()}\n\`\`\``), `the doc shows ${file} as it is`);
    }
    assert.match(doc, /not built/i);
  });
});
