// What `npm pack` puts in the package: the executable and everything it loads at run time
// (the compiled dist/, the SQL migrations read from src/store/migrations), the docs and the
// deployment examples, and nothing of the tests, the TypeScript sources or local data.
// Without a "files" list the package held no dist/ (it is git-ignored) and could not start.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadMigrations, migrationsDir } from '../../src/store/migrate.js';

const ROOT = new URL('../..', import.meta.url).pathname;

function packedFiles(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set(pack!.files.map((f) => f.path));
}

describe('the npm package', () => {
  it('holds the executable, what it imports, and the migrations; no tests or sources', () => {
    assert.ok(
      existsSync(`${ROOT}dist/cli/entry.js`),
      'dist/ is built by `npm ci` (prepare); run `npm run build`',
    );
    const files = packedFiles();
    const bin = readFileSync(`${ROOT}bin/tokenproxy.js`, 'utf8');
    const imported = [...bin.matchAll(/import\(?\s*['"]\.\.\/(dist\/[^'"]+)['"]/g)].map((m) => m[1]!);
    assert.ok(imported.length > 0, 'bin/tokenproxy.js imports a module of dist/');
    for (const path of ['bin/tokenproxy.js', 'package.json', 'README.md', 'dist/cli/main.js', ...imported])
      assert.ok(files.has(path), `${path} is packed`);
    for (const m of loadMigrations())
      assert.ok(files.has(`src/store/migrations/${m.version}.sql`), `migration ${m.version} is packed`);
    assert.ok(migrationsDir().endsWith('src/store/migrations'));
    // The console's browser files are read at run time too (src/http/console/static-files.ts).
    for (const part of ['console.html', 'console.css', 'basics.js', 'wiring.js'])
      assert.ok(files.has(`src/http/console/static/${part}`), `the console's ${part} is packed`);
    const stray = [...files].filter(
      (f) =>
        f.startsWith('test/') ||
        f.startsWith('.tokenproxy') ||
        (f.startsWith('src/') && !f.endsWith('.sql') && !f.startsWith('src/http/console/static/')),
    );
    assert.deepEqual(stray, []);
  });
});
