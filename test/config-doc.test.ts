import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { configReferenceMarkdown, withConfigReference } from '../src/config-doc.js';
import { CONFIG_KEYS, envNameOf, flagNameOf } from '../src/config-schema.js';

const DOC = new URL('../docs/operations.md', import.meta.url);

describe('configuration reference', () => {
  it('docs/operations.md carries the reference generated from the schema (run scripts/config-doc.mjs)', () => {
    const doc = readFileSync(DOC, 'utf8');
    assert.equal(doc, withConfigReference(doc));
  });

  it('has one row per setting, with its env variable and flag', () => {
    const rows = configReferenceMarkdown().split('\n').slice(2);
    assert.equal(rows.length, CONFIG_KEYS.length);
    CONFIG_KEYS.forEach((key, i) => {
      assert.ok(rows[i]!.startsWith(`| \`${key}\` | \`${envNameOf(key)}\``), key);
      assert.ok(rows[i]!.includes(`\`--${flagNameOf(key)}\``), key);
    });
  });

  it('a document whose table is stale is rewritten, and one without markers is refused', () => {
    const doc = readFileSync(DOC, 'utf8');
    const stale = doc.replace('| `port` |', '| `portx` |');
    assert.notEqual(stale, doc);
    assert.equal(withConfigReference(stale), doc);
    assert.throws(() => withConfigReference('# no markers'), /markers are missing/);
  });
});
