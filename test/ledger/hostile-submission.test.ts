// A raw "transaction" whose counts its bytes cannot hold is refused as malformed by the devnet,
// before the parser allocates for them (the service's own parser has the same guard).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeSubmission } from '../../src/ledger/devnet/tx-format.js';

describe('devnet: hostile raw bytes', () => {
  it('refuses 15 bytes that announce about 3.6 billion inputs, at once', () => {
    const hostile = new Uint8Array(Buffer.from('5524df5ce5fad692163b', 'hex'));
    const decoded = decodeSubmission(hostile);
    assert.equal(decoded.ok, false);
    if (!decoded.ok) assert.match(decoded.reason, /cannot be parsed/);
  });
});
