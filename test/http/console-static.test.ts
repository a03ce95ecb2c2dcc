// The console's browser files are found from src/ (tsx) and from the compiled dist/ alike, and
// are served as they are on disk: the script's parts in order, the page, the style sheet.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readConsoleFiles, SCRIPT_PARTS, staticDirFrom } from '../../src/http/console/static-files.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STATIC = join(ROOT, 'src/http/console/static');

describe("the console's static files", () => {
  it('are found beside the module in src/ and under the package root from dist/', () => {
    assert.equal(staticDirFrom(join(ROOT, 'src/http/console')), STATIC);
    assert.equal(staticDirFrom(join(ROOT, 'dist/http/console')), STATIC);
  });

  it('the script is its parts in order, each checked by tsc (// @ts-check)', () => {
    const { script, page, css } = readConsoleFiles();
    let at = 0;
    for (const part of SCRIPT_PARTS) {
      const text = readFileSync(join(STATIC, `${part}.js`), 'utf8');
      assert.ok(text.startsWith('// @ts-check\n'), `${part}.js is type-checked`);
      const found = script.indexOf(text, at);
      assert.ok(found >= at, `${part}.js comes after the parts before it`);
      at = found + text.length;
    }
    assert.match(page, /<script src="\/console\/app\.js"|app\.js/);
    assert.match(css, /\{/);
  });
});
