// The Dockerfile and deploy/compose.yaml, checked without a container runtime (none is
// reachable where this project is written, so neither was built or run here): every service
// command loads with the real config loader and the example env file, the services run every
// role but the devnet with two api instances, their database and Redis are services of the
// file, the image holds what the package needs at run time and starts `tokenproxy`, its Node
// release is one package.json's engines accepts, and docs/deployment.md shows both files as
// they are.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { parse } from 'yaml';
import { configArgvOf } from '../../src/cli/migrate.js';
import { loadConfig } from '../../src/config.js';
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
  readonly ports?: string[];
  readonly build?: { context: string; dockerfile: string };
  readonly depends_on?: Record<string, unknown>;
}
const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, Service> };
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
  it('every tokenproxy service command loads with the config loader (production, no devnet)', () => {
    assert.ok(tokenproxy.length >= 4);
    const roles = new Set<string>();
    let apis = 0;
    for (const [name, service] of tokenproxy) {
      const [command, ...args] = service.command!;
      assert.ok(command === 'start' || command === 'migrate', `${name}: ${command}`);
      assert.deepEqual(service.env_file, ['tokenproxy.env', 'secrets.env'], name);
      const argv = command === 'migrate' ? configArgvOf(args) : args;
      const config = loadConfig({
        argv,
        env: { ...ENV, ...SECRETS, ...service.environment },
        databaseOnly: command === 'migrate',
      });
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
    assert.deepEqual([...roles].sort(), ['api', 'deliverer', 'tracker']);
    assert.ok(apis >= 2, 'two api instances');
  });

  it('the database and Redis the services use are services of the file, and they wait for PostgreSQL', () => {
    const names = new Set(services.map(([n]) => n));
    const postgres = compose.services.postgres!;
    assert.match(postgres.image!, /^postgres:\d+/);
    for (const [name, service] of tokenproxy) {
      const db = new URL(service.environment!.DATABASE_URL!);
      assert.ok(names.has(db.hostname), `${name}: ${db.hostname} is a service`);
      assert.equal(db.username, postgres.environment!.POSTGRES_USER);
      assert.equal(decodeURIComponent(db.password), postgres.environment!.POSTGRES_PASSWORD);
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
    }
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
