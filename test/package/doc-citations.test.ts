// Source comments cite docs/contract.md by section (`contract.md "Score"`, `contract.md, Limits`)
// and docs/token-rules.md by rule (`token-rules.md, rule 4`). Every citation must name a
// section or rule those pages have, so a reader who follows one lands somewhere.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(full).isDirectory()) return files(full);
    return /\.(ts|mjs|md)$/.test(name) ? [full] : [];
  });
}

function headings(doc: string): Set<string> {
  const text = readFileSync(join(ROOT, 'docs', doc), 'utf8');
  return new Set([...text.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]!.trim()));
}

function ruleCount(): number {
  const text = readFileSync(join(ROOT, 'docs/token-rules.md'), 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('The rules a submitted transfer'));
  return section === undefined ? 0 : [...section.matchAll(/^(\d+)\. /gm)].length;
}

/** Section names cited as `contract.md "X"` or `contract.md, X` (X a capitalised phrase). */
export function contractCitations(text: string): string[] {
  const quoted = [...text.matchAll(/contract\.md,? "([^"]+)"/g)].map((m) => m[1]!);
  const bare = [...text.matchAll(/contract\.md, ([A-Z][a-z]+(?: [a-z]+)*)\b/g)].map((m) => m[1]!);
  return [...quoted, ...bare];
}

const sources = ['src', 'test', 'bench', 'docs'].flatMap((d) => files(join(ROOT, d)));
const self = fileURLToPath(import.meta.url);

describe('citations of docs/contract.md and docs/token-rules.md', () => {
  it('reads citations in both forms', () => {
    assert.deepEqual(contractCitations('(contract.md "Ticket states") and (contract.md, Limits): x'), [
      'Ticket states',
      'Limits',
    ]);
  });

  it('every contract.md section cited in the sources is a heading of docs/contract.md', () => {
    const known = headings('contract.md');
    const cited = sources
      .filter((f) => f !== self)
      .flatMap((f) => contractCitations(readFileSync(f, 'utf8')).map((name) => ({ f, name })));
    assert.ok(cited.length >= 10, `only ${cited.length} citations found`);
    const missing = cited.filter((c) => !known.has(c.name)).map((c) => `${relative(ROOT, c.f)}: "${c.name}"`);
    assert.deepEqual(missing, []);
  });

  it('every token-rules.md rule cited is a numbered rule of docs/token-rules.md', () => {
    const count = ruleCount();
    assert.equal(count, 7);
    const cited = sources.flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/token-rules\.md,? rules? (\d+)/g)].map((m) => ({
        f,
        rule: Number(m[1]),
      })),
    );
    assert.ok(cited.length >= 1);
    assert.deepEqual(
      cited.filter((c) => c.rule < 1 || c.rule > count).map((c) => `${relative(ROOT, c.f)}: rule ${c.rule}`),
      [],
    );
  });
});

/** Pages whose file names a reader follows: each name they cite must be a file of the repository. */
const READER_PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'docs/architecture.md',
  'docs/performance.md',
  'docs/clients.md',
];

/** Files outside the repository: the ones a page tells its reader to make, and a client's source. */
const READERS_OWN: ReadonlySet<string> = new Set([
  'first-transfer.mjs',
  'api.d.ts',
  'api.js',
  // the reference client's own source (docs/clients.md)
  'constants.ts',
]);

const repositoryFiles = ['src', 'test', 'bench', 'docs', 'scripts', 'deploy', 'bin']
  .flatMap((d) => allFiles(join(ROOT, d)))
  .map((f) => relative(ROOT, f).split('\\').join('/'))
  .concat(['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'LICENSE', 'Dockerfile', 'package.json']);

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (name === 'node_modules' || name === 'generated' || name.startsWith('.')) return [];
    return statSync(full).isDirectory() ? allFiles(full) : [full];
  });
}

/**
 * The file names a page cites: paths (`src/store/db/db.ts`, `http/routes/index.ts` as the
 * architecture's diagram writes them, under src/) and bare names (`batcher.ts`).
 */
export function citedFiles(text: string): string[] {
  return [...text.matchAll(/(?<![\w./-])((?:[\w-]+\/)*[\w.-]+\.(?:ts|mjs|md|sql|yaml))(?![\w/])/g)]
    .map((m) => m[1]!)
    .filter((name) => !/^https?:/.test(name));
}

function exists(name: string): boolean {
  if (READERS_OWN.has(name)) return true;
  if (name.includes('/')) {
    return repositoryFiles.some((f) => f === name || f.endsWith(`/${name}`));
  }
  return repositoryFiles.some((f) => f === name || f.endsWith(`/${name}`));
}

describe('the files the reader pages cite', () => {
  it('reads paths and bare names', () => {
    assert.deepEqual(citedFiles('see `src/store/db/db.ts` and batcher.ts, docs/adr/0002-x.md.'), [
      'src/store/db/db.ts',
      'batcher.ts',
      'docs/adr/0002-x.md',
    ]);
  });

  for (const page of READER_PAGES) {
    it(`every file ${page} names exists`, () => {
      const cited = citedFiles(readFileSync(join(ROOT, page), 'utf8'));
      assert.ok(cited.length >= 1, `no file name found in ${page}`);
      assert.deepEqual(
        cited.filter((name) => !exists(name)),
        [],
      );
    });
  }
});
