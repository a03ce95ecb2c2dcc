// The floors of src, as its imports show them: crypto at the bottom imports nothing of src
// but crypto; domain (the token's rules) stands on crypto alone and pure libraries; use cases
// never reach up into http; http reads the store's queries itself, but every write to the
// store goes through a use case. Each rule reads the import declarations (static, re-exports
// and dynamic import()) of every .ts file under src.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

/** Libraries the domain may use: they compute, they do no I/O. */
const PURE_LIBRARIES: ReadonlySet<string> = new Set(['@bsv/sdk', 'node:crypto']);

/**
 * Store modules http may write through itself. The idempotency record is HTTP's own memory of
 * the answers it gave (status, body, content type), no use case's state.
 */
const HTTP_OWN_STORE: ReadonlySet<string> = new Set(['src/store/access/idempotency-store.ts']);

/** A data-changing statement, written as SQL is written here (upper case). */
const SQL_WRITE = /\b(INSERT\s+INTO|UPDATE\s+\w+(\s+\w+)?\s+SET|DELETE\s+FROM)\b/;

export interface Import {
  /** The importing file, relative to the repository (`src/http/app.ts`). */
  readonly from: string;
  /** The imported file (`src/store/db/db.ts`), or the package's name (`fastify`, `node:fs`). */
  readonly target: string;
  /** The names imported as values (not `type`); empty for `import type`, `*` for a namespace. */
  readonly values: readonly string[];
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

const repoPath = (file: string): string => relative(ROOT, file).split(sep).join('/');

function targetOf(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) {
    const parts = specifier.split('/');
    return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  }
  return repoPath(join(dirname(file), specifier)).replace(/\.js$/, '.ts');
}

function valueNames(clause: ts.ImportClause | undefined): string[] {
  if (clause === undefined) return ['*'];
  if (clause.isTypeOnly) return [];
  const names: string[] = clause.name === undefined ? [] : ['default'];
  const bindings = clause.namedBindings;
  if (bindings !== undefined && ts.isNamespaceImport(bindings)) names.push('*');
  if (bindings !== undefined && ts.isNamedImports(bindings)) {
    for (const e of bindings.elements) if (!e.isTypeOnly) names.push((e.propertyName ?? e.name).text);
  }
  return names;
}

/** The imports of one source text. */
export function importsOf(file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const from = repoPath(file);
  const out: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = targetOf(file, node.moduleSpecifier.text);
      out.push({ from, target, values: valueNames(node.importClause) });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const target = targetOf(file, node.moduleSpecifier.text);
      const clause = node.exportClause;
      const values = node.isTypeOnly
        ? []
        : clause !== undefined && ts.isNamedExports(clause)
          ? clause.elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text)
          : ['*'];
      out.push({ from, target, values });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push({ from, target: targetOf(file, node.arguments[0].text), values: ['*'] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** `src/http/routes/x.ts` → `http`; the files at the root of src (config, compose, service) → `top`. */
export function floorOf(path: string): string | null {
  if (!path.startsWith('src/')) return null;
  const [first] = path.slice('src/'.length).split('/');
  if (first === undefined) return null;
  return first.endsWith('.ts') ? 'top' : first;
}

/**
 * What each floor of src may import besides itself (docs/architecture.md and CONTRIBUTING.md
 * show this table). A floor missing here fails the test until it is placed.
 */
export const FLOORS: Readonly<Record<string, readonly string[]>> = {
  crypto: [],
  domain: ['crypto'],
  process: ['domain', 'crypto'],
  keys: ['store', 'domain', 'crypto', 'process'],
  store: ['domain', 'crypto', 'process'],
  ledger: ['domain', 'crypto', 'process'],
  callbacks: ['store', 'domain', 'crypto', 'process'],
  metrics: ['usecases', 'store', 'ledger', 'domain', 'crypto', 'process'],
  usecases: ['store', 'ledger', 'keys', 'domain', 'crypto', 'process'],
  writer: ['usecases', 'store', 'ledger', 'domain', 'crypto', 'process'],
  http: ['usecases', 'store', 'ledger', 'callbacks', 'metrics', 'keys', 'domain', 'crypto', 'process', 'top'],
  // What starts the service: everything but the command line.
  roles: [
    'top',
    'http',
    'writer',
    'usecases',
    'store',
    'ledger',
    'callbacks',
    'metrics',
    'keys',
    'domain',
    'crypto',
    'process',
  ],
  top: [
    'roles',
    'http',
    'writer',
    'usecases',
    'store',
    'ledger',
    'callbacks',
    'metrics',
    'keys',
    'domain',
    'crypto',
    'process',
  ],
  cli: [
    'top',
    'roles',
    'http',
    'writer',
    'usecases',
    'store',
    'ledger',
    'callbacks',
    'metrics',
    'keys',
    'domain',
    'crypto',
    'process',
  ],
};

/**
 * The exported names of src/store that change data: a function (or constant) whose text runs a
 * data-changing statement, or calls a store function that does (within its module or imported).
 */
export function storeWrites(files: readonly { path: string; text: string }[]): Set<string> {
  interface Unit {
    readonly key: string;
    readonly text: string;
    readonly exported: boolean;
  }
  const units: Unit[] = [];
  const localNames = new Map<string, Map<string, string>>();
  for (const { path, text } of files) {
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const names = new Map<string, string>();
    localNames.set(path, names);
    for (const statement of source.statements) {
      const exported =
        ts.canHaveModifiers(statement) &&
        (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      const declared: string[] = [];
      if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
        declared.push(statement.name.text);
      } else if (ts.isVariableStatement(statement)) {
        for (const d of statement.declarationList.declarations)
          if (ts.isIdentifier(d.name)) declared.push(d.name.text);
      } else if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
        const target = targetOf(join(ROOT, path), statement.moduleSpecifier.text);
        const bindings = statement.importClause?.namedBindings;
        if (target.startsWith('src/store/') && bindings !== undefined && ts.isNamedImports(bindings)) {
          for (const e of bindings.elements)
            names.set(e.name.text, `${target}#${(e.propertyName ?? e.name).text}`);
        }
      }
      for (const name of declared) {
        names.set(name, `${path}#${name}`);
        units.push({ key: `${path}#${name}`, text: statement.getText(source), exported });
      }
    }
  }
  const writes = new Set(units.filter((u) => SQL_WRITE.test(u.text)).map((u) => u.key));
  for (let grew = true; grew; ) {
    grew = false;
    for (const unit of units) {
      if (writes.has(unit.key)) continue;
      const names = localNames.get(unit.key.split('#')[0]!)!;
      const calls = [...unit.text.matchAll(/\b([A-Za-z_$][\w$]*)\b/g)].map((m) => names.get(m[1]!));
      if (calls.some((key) => key !== undefined && key !== unit.key && writes.has(key))) {
        writes.add(unit.key);
        grew = true;
      }
    }
  }
  return new Set(units.filter((u) => u.exported && writes.has(u.key)).map((u) => u.key));
}

/** Imports that cross the table, each with why it stands for now. */
const EXCUSED: ReadonlyMap<string, string> = new Map([
  [
    'src/metrics/role-gauges.ts -> src/roles/role-liveness.ts',
    'a type only; role-liveness (which reads http/health.ts types) has no floor below both yet',
  ],
]);

export interface Breach {
  readonly rule: string;
  readonly from: string;
  readonly target: string;
}

/** Every import that breaks a floor rule. */
export function breaches(imports: readonly Import[], writes: ReadonlySet<string>): Breach[] {
  const out: Breach[] = [];
  const breach = (rule: string, i: Import) => out.push({ rule, from: i.from, target: i.target });
  for (const i of imports) {
    const from = floorOf(i.from);
    const to = floorOf(i.target);
    if (from !== null && to !== null && from !== to) {
      const allowed = FLOORS[from];
      if (allowed === undefined) breach(`${from} is a floor of the table`, i);
      else if (!allowed.includes(to) && !EXCUSED.has(`${i.from} -> ${i.target}`))
        breach(`${from} never imports ${to}`, i);
    }
    if (from === 'domain' && to === null && !PURE_LIBRARIES.has(i.target))
      breach('domain imports only pure libraries', i);
    if (from === 'http' && to === 'store' && !HTTP_OWN_STORE.has(i.target)) {
      const written = i.values.filter((name) => name === '*' || writes.has(`${i.target}#${name}`));
      if (written.length > 0)
        out.push({
          rule: 'http writes through use cases',
          from: i.from,
          target: `${i.target} (${written.join(', ')})`,
        });
    }
  }
  return out;
}

/** The import circles among files (type-only imports count): each circle's files, sorted. */
export function importCircles(list: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const i of list) next.set(i.from, [...(next.get(i.from) ?? []), i.target]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!next.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const circle: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        circle.push(w);
        if (w === v) break;
      }
      if (circle.length > 1) circles.push(circle.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return circles;
}

const sources = tsFiles(SRC).map((file) => ({ path: repoPath(file), text: readFileSync(file, 'utf8') }));
const imports = sources.flatMap((s) => importsOf(join(ROOT, s.path), s.text));
const writes = storeWrites(sources.filter((s) => s.path.startsWith('src/store/')));

const show = (list: readonly Breach[]) => list.map((b) => `${b.rule}: ${b.from} -> ${b.target}`).join('\n');

describe('import floors', () => {
  it('reads the imports of src (static, type-only, re-exports, dynamic)', () => {
    assert.ok(imports.length > 500, `${imports.length} imports`);
    assert.ok(
      imports.some((i) => i.target === 'src/cli/start.ts' && i.values.includes('*')),
      'the dispatcher imports src/cli/start.ts dynamically',
    );
    assert.ok(writes.size > 10, `${writes.size} store writes`);
  });

  it('no import breaks a floor', () => {
    const found = breaches(imports, writes);
    assert.equal(found.length, 0, `\n${show(found)}`);
  });

  it('each rule notices a breach (the test can fail)', () => {
    const text = [
      "import { readChunks } from '../domain/script-chunks.js';",
      "import type { Db } from '../store/db.js';",
      "import { Pool } from 'pg';",
      "export { mapError } from '../http/error-handler.js';",
      "const m = await import('../http/app.js');",
    ].join('\n');
    const writesHere = new Set(['src/store/controls/freeze-store.ts#freezeAddress']);
    const rules = (file: string, body = text) =>
      breaches(importsOf(join(SRC, file), body), writesHere).map((b) => b.rule);
    assert.deepEqual(rules('crypto/x.ts'), [
      'crypto never imports domain',
      'crypto never imports store',
      'crypto never imports http',
      'crypto never imports http',
    ]);
    assert.deepEqual(rules('domain/x.ts'), [
      'domain never imports store',
      'domain imports only pure libraries',
      'domain never imports http',
      'domain never imports http',
    ]);
    assert.deepEqual(rules('usecases/x.ts'), ['usecases never imports http', 'usecases never imports http']);
    assert.deepEqual(rules('store/x.ts'), ['store never imports http', 'store never imports http']);
    assert.deepEqual(rules('newfloor/x.ts'), Array(4).fill('newfloor is a floor of the table'));
    assert.deepEqual(
      breaches(importsOf(join(SRC, 'store/x.ts'), "import { x } from '../usecases/y.js';"), writesHere).map(
        (b) => b.rule,
      ),
      ['store never imports usecases'],
    );
    const http =
      "import { type Freeze, freezeAddress, frozenHoldings } from '../../store/controls/freeze-store.js';";
    assert.deepEqual(rules('http/routes/x.ts', http), ['http writes through use cases']);
    const read = "import { frozenHoldings, type Freeze } from '../../store/controls/freeze-store.js';";
    assert.deepEqual(rules('http/routes/x.ts', read), []);
  });

  it('no module of domain, store or usecases is on an import circle', () => {
    const circles = importCircles(imports).filter((circle) =>
      circle.some((f) => /^src\/(domain|store|usecases)\//.test(f)),
    );
    assert.deepEqual(circles, []);
    // The finder finds one.
    const a = "import type { B } from './b.js';";
    const b = "import { a } from './a.js';";
    assert.deepEqual(
      importCircles([...importsOf(join(SRC, 'store/a.ts'), a), ...importsOf(join(SRC, 'store/b.ts'), b)]),
      [['src/store/a.ts', 'src/store/b.ts']],
    );
  });

  it('tells a store write from a read', () => {
    const found = storeWrites([
      {
        path: 'src/store/a.ts',
        text: [
          "import { insertRow } from './b.js';",
          'export async function add(q) { await insertRow(q); }',
          "export async function list(q) { return q.query('SELECT 1 FROM t FOR UPDATE'); }",
          'async function bump(q) { await q.query(`UPDATE t x\n SET n = 1`); }',
          'export const touch = async (q) => bump(q);',
        ].join('\n'),
      },
      {
        path: 'src/store/b.ts',
        text: "export async function insertRow(q) { await q.query('INSERT INTO t VALUES (1)'); }",
      },
    ]);
    assert.deepEqual([...found].sort(), [
      'src/store/a.ts#add',
      'src/store/a.ts#touch',
      'src/store/b.ts#insertRow',
    ]);
  });
});
