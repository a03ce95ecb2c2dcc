// The logger: JSON records when piped, readable lines (pino-pretty) on a terminal.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/process/logger.js';

function sink(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(stream, { text: () => chunks.join('') });
}

describe('createLogger', () => {
  it('writes one JSON record per line when not pretty', () => {
    const out = sink();
    const log = createLogger({ level: 'info', pretty: false, destination: out });
    log.info({ step: 'keys' }, 'operator keys created');
    log.debug('below the level');
    const lines = out.text().trim().split('\n');
    assert.equal(lines.length, 1);
    const r = JSON.parse(lines[0]!) as { msg: string; step: string; level: number };
    assert.deepEqual([r.msg, r.step, r.level], ['operator keys created', 'keys', 30]);
  });

  it('writes a readable line, not JSON, when pretty', () => {
    const out = sink();
    const log = createLogger({ level: 'info', pretty: true, destination: out });
    log.info({ step: 'keys' }, 'operator keys created');
    const text = out.text();
    assert.throws(() => JSON.parse(text));
    assert.match(text, /INFO.*operator keys created/);
    assert.match(text, /step: "keys"|"step":"keys"/);
  });
});
