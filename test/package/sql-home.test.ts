// Every table has one home in src/store: SQL is written there and nowhere else. Any other
// file under src calls the store's named operations; it neither runs a statement itself
// (`.query(`, `.exec(` on a database) nor holds SQL text in a string.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');
/** Where SQL lives. */
const STORE = `src${sep}store${sep}`;

/** A statement's keywords, written as SQL is written here (upper case). */
const SQL_TEXT = /\b(SELECT|INSERT INTO|UPDATE \w+( \w+)? SET|DELETE FROM)\b/;

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...tsFiles(full));
    else if (name.endsWith('.ts')) out.push(full);
  }
  return out;
}

/** Whether a `/` at `i` of `text` opens a regular expression literal (not a division). */
function opensRegex(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && /\s/.test(text[j]!)) j--;
  if (j < 0) return true;
  if ('(,=:[!&|?{};+-*%<>~^'.includes(text[j]!)) return true;
  return /\b(return|typeof|case|in|of|void|throw)$/.test(text.slice(Math.max(0, j - 6), j + 1));
}

/** The string literals of a TypeScript source (quoted and template), comments left out. */
export function stringLiterals(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i);
      if (i < 0) break;
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2);
      if (i < 0) break;
      i += 2;
    } else if (c === '/' && opensRegex(text, i)) {
      let inClass = false;
      for (i++; i < text.length && text[i] !== '\n'; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '[') inClass = true;
        else if (text[i] === ']') inClass = false;
        else if (text[i] === '/' && !inClass) break;
      }
      i++;
    } else if (c === "'" || c === '"' || c === '`') {
      let literal = '';
      let depth = 0;
      for (i++; i < text.length; i++) {
        const d = text[i]!;
        if (d === '\\') {
          literal += d + (text[i + 1] ?? '');
          i++;
        } else if (c === '`' && d === '$' && text[i + 1] === '{') {
          depth++;
          literal += '${';
          i++;
        } else if (depth > 0 && d === '}') {
          depth--;
          literal += d;
        } else if (d === c && depth === 0) break;
        else literal += d;
      }
      out.push(literal);
      i++;
    } else i++;
  }
  return out;
}

/** Whether the receiver of `.exec(` ending at `end` of `text` is a regular expression. */
function execOnRegex(text: string, end: number): boolean {
  const before = text.slice(0, end).trimEnd();
  if (/\/[dgimsuy]*$/.test(before)) return true; // a literal: /.../.exec(
  if (before.endsWith(')')) return /\/.+\/[dgimsuy]*\)$/.test(before.slice(before.lastIndexOf('(')));
  const name = /([A-Za-z_$][\w$]*)$/.exec(before)?.[1];
  if (name === undefined) return false;
  return new RegExp(`\\b${name}\\s*(?::\\s*RegExp\\s*)?=\\s*(/|new RegExp\\()`).test(text);
}

/** What in `text` runs or holds SQL: one line per finding. */
export function sqlFindings(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\.query\s*(<[^>()]*(?:<[^>()]*>[^>()]*)*>)?\s*\(/g)) {
    found.push(`line ${text.slice(0, m.index).split('\n').length}: runs SQL (.query)`);
  }
  for (const m of text.matchAll(/\.exec\s*\(/g)) {
    if (!execOnRegex(text, m.index)) {
      found.push(`line ${text.slice(0, m.index).split('\n').length}: runs SQL (.exec on a database)`);
    }
  }
  for (const literal of stringLiterals(text)) {
    const keyword = SQL_TEXT.exec(literal)?.[0];
    if (keyword !== undefined) found.push(`holds SQL text (${keyword}): ${literal.trim().slice(0, 60)}`);
  }
  return found;
}

describe('SQL has one home: src/store', () => {
  it('finds SQL where there is some, and not in regular expressions', () => {
    assert.equal(sqlFindings("await db.query<{ n: string }>('SELECT 1');").length, 2);
    assert.equal(sqlFindings('await tx.query(sql, [id]);').length, 1);
    assert.equal(sqlFindings("await pglite.exec('VACUUM');").length, 1);
    assert.equal(sqlFindings('const rows = `DELETE FROM tickets WHERE id = $1`;').length, 1);
    assert.equal(sqlFindings("const sql = 'UPDATE tickets t SET x = 1';").length, 1);
    assert.deepEqual(sqlFindings('const m = /^a+$/i.exec(text);'), []);
    assert.deepEqual(sqlFindings('const R = /^a+$/;\nconst m = R.exec(text);'), []);
    assert.deepEqual(sqlFindings('const d = (hex ? /^[0-9a-f]*/ : /^[0-9]*/).exec(text);'), []);
    assert.deepEqual(
      sqlFindings("const s = 'select a ticket'; // SELECT 1\nconst q = request.query.id;"),
      [],
    );
    assert.deepEqual(sqlFindings("const re = /['`]/;\nconst s = 'a';"), []);
  });

  it('no file under src outside src/store runs SQL or holds SQL text', () => {
    const files = tsFiles(SRC);
    assert.ok(files.length > 100, `only ${files.length} files found under src`);
    const findings = files
      .map((f) => relative(ROOT, f))
      .filter((f) => !f.startsWith(STORE))
      .flatMap((f) => sqlFindings(readFileSync(join(ROOT, f), 'utf8')).map((finding) => `${f}: ${finding}`));
    assert.deepEqual(findings, [], 'SQL belongs in a module of src/store, called by name from elsewhere');
  });
});
