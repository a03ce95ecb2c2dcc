// docs/errors.md keeps one row per registry code; this test fails when the table and
// ERRORS (src/http/error-statuses.ts) differ in codes, statuses or titles.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERRORS } from '../../src/http/error-statuses.js';

interface Row {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly when: string;
}

export function parseCodesTable(markdown: string): Row[] {
  const section = markdown.split(/^## Codes$/m)[1];
  assert.ok(section !== undefined, 'docs/errors.md has a "## Codes" section');
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
    assert.equal(cells.length, 4, `four cells in: ${line}`);
    const [code = '', status = '', title = '', when = ''] = cells;
    rows.push({ code: code.replace(/`/g, ''), status: Number(status), title, when });
  }
  return rows;
}

describe('docs/errors.md', () => {
  const markdown = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = parseCodesTable(markdown);

  it('lists every registry code once, and no other', () => {
    const documented = rows.map((r) => r.code);
    assert.equal(new Set(documented).size, documented.length, 'no code twice');
    assert.deepEqual([...documented].sort(), Object.keys(ERRORS).sort());
  });

  it('gives each code the status and title of the registry, and says when it happens', () => {
    for (const row of rows) {
      const spec = ERRORS[row.code as keyof typeof ERRORS];
      assert.ok(spec, row.code);
      assert.equal(row.status, spec.status, `${row.code} status`);
      assert.equal(row.title, spec.title, `${row.code} title`);
      assert.ok(row.when.length > 10, `${row.code} says when it happens`);
    }
  });

  it('the parser notices a wrong title (the test can fail)', () => {
    const broken = markdown.replace(/\| Input already spent +\|/, '| Input spent |');
    const row = parseCodesTable(broken).find((r) => r.code === 'INPUT_SPENT');
    assert.notEqual(row?.title, ERRORS.INPUT_SPENT.title);
  });
});
