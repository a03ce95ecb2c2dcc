// Admin commands answer JSON for scripts and indented lines for a person: --json, or stdout
// that is not a terminal, gives the JSON (unchanged); a terminal without --json gives text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CommandIo, runCommand } from '../../src/cli/command.js';
import { humanText } from '../../src/cli/human-output.js';

const STATUS = {
  tip: { height: 12, hash: 'ab'.repeat(32), time: '2026-11-23T10:00:00.000Z' },
  supply: { genesis: { atomic: '1000000000', tokens: '10000' }, burned: { atomic: '0', tokens: '0' } },
  fundingPool: { available: 470 },
  tickets: {},
};

function capture(isTTY: boolean): CommandIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, isTTY, stdout: (t) => out.push(t), stderr: (t) => err.push(t) };
}

const spec = { name: 'status', usage: 'status', options: {} };

describe('admin command output', () => {
  it('a terminal gets indented lines, amounts in tokens', async () => {
    const io = capture(true);
    assert.equal(await runCommand([], spec, async () => STATUS, io), 0);
    const text = io.out.join('');
    assert.throws(() => JSON.parse(text));
    assert.match(text, /^tip:\n {2}height: 12\n/);
    assert.match(text, /^ {2}genesis: 10000 tokens \(1000000000 atomic\)$/m);
    assert.match(text, /^funding pool:\n {2}available: 470$/m);
    assert.match(text, /^tickets: \(none\)$/m);
  });

  it('--json on a terminal, and any pipe, get the JSON', async () => {
    const tty = capture(true);
    await runCommand(['--json'], spec, async () => STATUS, tty);
    assert.deepEqual(JSON.parse(tty.out.join('')), STATUS);
    const pipe = capture(false);
    await runCommand([], spec, async () => STATUS, pipe);
    assert.deepEqual(JSON.parse(pipe.out.join('')), STATUS);
  });

  it('lists of records are numbered, lists of words are bulleted, null is a dash', () => {
    const text = humanText({ keys: [{ id: 'k1', scopes: ['read', 'submit'], revokedAt: null }] });
    assert.equal(
      text,
      'keys:\n  1.\n    id: k1\n    scopes:\n      - read\n      - submit\n    revoked at: -\n',
    );
  });
});
