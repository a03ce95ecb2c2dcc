// Keeps deploy/ (systemd units, Procfile, nginx example, env file) in step with the code and
// with docs/deployment.md: every `tokenproxy start` line loads with the real config loader
// and the example env file, every TOKENPROXY_* variable named exists, nginx's body limit is
// the service's, its upstream is the target's instances, the doc shows each file as it is,
// and, where nginx is installed, `nginx -t` accepts the example.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CONFIG_KEYS, ENV_ALIASES, envNameOf, loadConfig } from '../../src/config.js';
import { envFile, PRODUCTION_SECRETS } from './deploy-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEPLOY = join(ROOT, 'deploy');
const read = (path: string) => readFileSync(join(DEPLOY, path), 'utf8');
const units = readdirSync(join(DEPLOY, 'systemd')).map((name) => `systemd/${name}`);
const FILES = ['tokenproxy.env.example', 'Procfile', 'nginx/tokenproxy.conf', ...units];

const ENV = envFile(read('tokenproxy.env.example'));
const SECRETS = PRODUCTION_SECRETS;

interface CommandLine {
  readonly file: string;
  readonly command: string;
  readonly args: string[];
}

/**
 * The command lines (systemd's ExecStart=, the Procfile's `name: command`) that run
 * `tokenproxy[.js] <command> <args>`, with %i (systemd) and $PORT (Procfile) filled in.
 */
function commandLines(): CommandLine[] {
  const lines: CommandLine[] = [];
  for (const file of FILES) {
    for (const line of read(file).split('\n')) {
      if (!/^(ExecStart=|[a-z]+: )/.test(line)) continue;
      const m = /\btokenproxy(?:\.js)?\s+([a-z]+)(.*)$/.exec(line);
      assert.ok(m, `${file}: runs something other than tokenproxy: ${line}`);
      const filled = m[2]!.replaceAll('%i', '3001').replaceAll('$PORT', '5000');
      lines.push({ file, command: m[1]!, args: filled.trim().split(/\s+/).filter(Boolean) });
    }
  }
  return lines;
}

/** nginx sizes: `1m`, `512k`, `1048576`. */
function nginxBytes(size: string): number {
  const m = /^(\d+)([kKmMgG]?)$/.exec(size);
  assert.ok(m, `not an nginx size: ${size}`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * unit;
}

describe('deploy/ files', () => {
  it('every tokenproxy command line loads with the real config loader and the env file', () => {
    const lines = commandLines();
    const files = new Set(lines.map((l) => l.file));
    for (const file of ['Procfile', ...units.filter((u) => u.endsWith('.service'))])
      assert.ok(files.has(file), `${file} starts tokenproxy`);
    const roles: string[][] = [];
    for (const { file, command, args } of lines) {
      assert.equal(command, 'start', `${file}: the service is started with \`tokenproxy start\``);
      const config = loadConfig({
        argv: args,
        env: { ...ENV, ...SECRETS, ...(file === 'Procfile' && { PORT: '5000' }) },
      });
      assert.equal(config.env, 'production', file);
      assert.ok(!config.roles.includes('devnet'), file);
      roles.push([...config.roles]);
      if (config.roles.includes('api')) {
        assert.equal(config.port, file === 'Procfile' ? 5000 : 3001, `${file}: the port is the instance's`);
        assert.deepEqual(config.trustProxy, ['127.0.0.1'], `${file}: nginx on loopback is trusted`);
      }
    }
    // Every process answers /healthz, /readyz and /metrics on its port: no two systemd units share
    // one (the Procfile's manager gives each process its own $PORT).
    const unitPorts = lines
      .filter((l) => l.file !== 'Procfile')
      .map((l) => {
        const at = l.args.indexOf('--port');
        assert.ok(at >= 0, `${l.file}: names its port`);
        return l.args[at + 1];
      });
    assert.equal(new Set(unitPorts).size, unitPorts.length, `one port per process: ${unitPorts}`);
    for (const l of lines.filter((l) => l.file === 'Procfile'))
      assert.ok(l.args.join(' ').includes('--port 5000'), `Procfile ${l.args}: its $PORT`);
    // Both deployments run every role but the devnet, the writer once, beside the tracker (one
    // story: docs/operations.md, The writer).
    for (const where of [(l: string) => l === 'Procfile', (l: string) => l !== 'Procfile']) {
      const run = new Set(lines.flatMap((l, i) => (where(l.file) ? roles[i]! : [])));
      assert.deepEqual([...run].sort(), ['api', 'deliverer', 'tracker', 'writer']);
      const writers = roles.filter((r, i) => where(lines[i]!.file) && r.includes('writer'));
      assert.equal(writers.length, 1, 'one writer');
      assert.ok(writers[0]!.includes('tracker'), "on the tracker's process");
    }
  });

  it('every variable the files name is a setting of the config schema', () => {
    const known = new Set([...CONFIG_KEYS.map(envNameOf), 'TOKENPROXY_CONFIG']);
    const aliases = new Set(Object.values(ENV_ALIASES));
    for (const file of FILES) {
      for (const name of read(file).match(/\bTOKENPROXY_[A-Z0-9_]+/g) ?? [])
        assert.ok(known.has(name), `${file}: ${name} is not a setting`);
    }
    for (const name of Object.keys(ENV))
      assert.ok(known.has(name) || aliases.has(name), `env file: ${name} is neither a setting nor an alias`);
    // The secrets listed (commented) in the env file, too.
    const listed = read('tokenproxy.env.example').match(/^# ([A-Z_]+)=$/gm) ?? [];
    assert.ok(listed.length >= 5, 'the env file lists the secrets');
    for (const line of listed) {
      const name = line.slice(2, -1);
      assert.ok(known.has(name) || aliases.has(name), `env file: ${name} is neither a setting nor an alias`);
    }
  });

  it("nginx's body limit is the service's bodyLimit default, and so is the env file's", () => {
    const sizes = [...read('nginx/tokenproxy.conf').matchAll(/^\s*client_max_body_size\s+(\S+);/gm)];
    assert.equal(sizes.length, 1);
    const limit = loadConfig({ argv: [], env: {} }).bodyLimit;
    assert.equal(nginxBytes(sizes[0]![1]!), limit);
    assert.equal(Number(ENV.TOKENPROXY_BODY_LIMIT), limit);
  });

  it("nginx's upstream is the api instances the systemd target starts", () => {
    const upstream = [...read('nginx/tokenproxy.conf').matchAll(/^\s*server\s+127\.0\.0\.1:(\d+)/gm)].map(
      (m) => m[1],
    );
    const wanted = [...read('systemd/tokenproxy.target').matchAll(/tokenproxy-api@(\d+)\.service/g)].map(
      (m) => m[1],
    );
    assert.ok(upstream.length >= 2);
    assert.deepEqual(upstream, wanted);
    const conf = read('nginx/tokenproxy.conf');
    assert.match(conf, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    assert.match(conf, /proxy_set_header X-Request-ID /);
    assert.match(conf, /^\s*keepalive \d+;/m);
  });

  it('nginx keeps the console, /v2/admin and /metrics off the public side, on an internal listener', () => {
    const conf = read('nginx/tokenproxy.conf');
    const servers = conf.split(/^server \{$/m).slice(1);
    assert.equal(servers.length, 2, 'a public and an internal server');
    const [publicSide, internal] = servers as [string, string];
    assert.match(publicSide, /^\s*listen 80;/m);
    for (const path of [
      'location ^~ /console { return 404; }',
      'location ^~ /v2/admin { return 404; }',
      'location = /metrics { return 404; }',
    ])
      assert.ok(publicSide.includes(path), `public side: ${path}`);
    assert.match(
      internal,
      /^\s*listen 127\.0\.0\.1:\d+;/m,
      'the internal listener is not on a public address',
    );
    assert.match(internal, /^\s*deny all;/m, 'and has an allow list');
  });

  it('the units are hardened', () => {
    for (const unit of units.filter((u) => u.endsWith('.service'))) {
      const text = read(unit);
      for (const line of [
        'NoNewPrivileges=yes',
        'ProtectSystem=strict',
        'PrivateTmp=yes',
        'EnvironmentFile=/etc/tokenproxy/tokenproxy.env',
      ])
        assert.ok(text.includes(`\n${line}\n`), `${unit}: ${line}`);
    }
  });

  it('docs/deployment.md shows every file as it is', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
    for (const file of FILES) {
      const text = read(file).trimEnd();
      assert.ok(doc.includes(`deploy/${file}`), `the doc names deploy/${file}`);
      assert.ok(doc.includes(`\n${text}\n\`\`\``), `the doc shows deploy/${file} as it is`);
    }
  });

  const nginx = spawnSync('nginx', ['-v']).error === undefined ? 'nginx' : null;
  it('nginx -t accepts the example', { skip: nginx === null && 'nginx is not installed' }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-nginx-'));
    try {
      const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
        .map((t) => `${t}_temp_path ${join(dir, t)};`)
        .join('\n  ');
      writeFileSync(
        join(dir, 'nginx.conf'),
        `pid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')};\nevents {}\n` +
          `http {\n  access_log off;\n  ${temp}\n  include ${join(DEPLOY, 'nginx', 'tokenproxy.conf')};\n}\n`,
      );
      const run = spawnSync(
        'nginx',
        ['-t', '-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /test is successful/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
