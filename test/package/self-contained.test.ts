// A fresh clone must test and run with nothing beside it: no source, test, benchmark or script
// reads a file outside the repository (the test vectors live in test/vectors/, the wire
// contract and the token rules in docs/). Every relative path handed to `new URL(..,
// import.meta.url)` is resolved from its file and must stay inside the repository; no file
// names a folder of the workspace the project was first written in.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['src', 'test', 'bench', 'scripts', 'bin'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|mjs|js|cjs)$/.test(name)) out.push(full);
  }
  return out;
}

const files = FOLDERS.filter((f) => existsSync(join(ROOT, f))).flatMap((f) => sourceFiles(join(ROOT, f)));

/** `new URL('<relative>', import.meta.url)` in `text`, resolved from `file`, outside ROOT. */
export function urlsOutside(file: string, text: string, root: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/new URL\(\s*['"`](\.{1,2}\/[^'"`]*)['"`]\s*,\s*import\.meta\.url/g)) {
    const target = resolve(dirname(file), m[1]!);
    const inside = target === resolve(root) || target.startsWith(resolve(root) + sep);
    if (!inside) out.push(m[1]!);
  }
  return out;
}

/** Names of the first workspace's folders that a clone does not have. */
const FORBIDDEN = [/\.\.\/shared\b/, /\/work\/shared\b/, /\/work\/main\b/];

describe('the repository stands on its own', () => {
  it('finds the files it scans (src, test, bench, scripts)', () => {
    assert.ok(files.length > 50, `only ${files.length} files found under ${FOLDERS.join(', ')}`);
    assert.ok(files.includes(fileURLToPath(import.meta.url)), 'this file is among them');
  });

  it('no file names the shared folder beside the first workspace, or the workspace folders', () => {
    const self = fileURLToPath(import.meta.url);
    const hits = files
      .filter((f) => f !== self)
      .flatMap((f) => {
        const text = readFileSync(f, 'utf8');
        return FORBIDDEN.filter((re) => re.test(text)).map((re) => `${relative(ROOT, f)}: ${re}`);
      });
    assert.deepEqual(hits, []);
  });

  it('no relative URL of import.meta.url leads outside the repository', () => {
    const self = fileURLToPath(import.meta.url);
    const hits = files
      .filter((f) => f !== self)
      .flatMap((f) => urlsOutside(f, readFileSync(f, 'utf8'), ROOT).map((u) => `${relative(ROOT, f)}: ${u}`));
    assert.deepEqual(hits, []);
  });

  it('the check sees a path that climbs out, and lets one inside pass', () => {
    const file = join(ROOT, 'test', 'domain', 'x.test.ts');
    // Built from parts, so that this file itself names no folder outside the repository.
    const climbing = ['..', '..', '..', 'elsewhere', 'vectors', 'v.json'].join('/');
    assert.deepEqual(urlsOutside(file, `new URL('${climbing}', import.meta.url)`, ROOT), [climbing]);
    assert.deepEqual(urlsOutside(file, "new URL('../vectors/v.json', import.meta.url)", ROOT), []);
  });

  it('the vectors, the contract and the token rules are in the repository', () => {
    const vectors = JSON.parse(readFileSync(join(ROOT, 'test/vectors/mnee-real-transactions.json'), 'utf8'));
    assert.equal(typeof vectors, 'object');
    assert.ok(Object.keys(vectors).length > 2);
    for (const doc of ['docs/contract.md', 'docs/token-rules.md', 'LICENSE', 'CHANGELOG.md'])
      assert.ok(existsSync(join(ROOT, doc)), `${doc} exists`);
  });
});
