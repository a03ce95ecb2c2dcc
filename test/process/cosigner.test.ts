// The cosigner (src/process/cosigner.ts): on worker threads it gives exactly what the pure step
// gives in the calling thread (the same cosigned bytes: signatures are deterministic), passes
// refusals through as values, spreads jobs over its threads, and once closed refuses work.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import Mnee from '@mnee/ts-sdk';
import type { CosignJob } from '../../src/domain/cosign-transfer.js';
import { requiredFunding } from '../../src/domain/network-fee.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { fromHex } from '../../src/domain/script-chunks.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { cosignerInThread, cosignerOnThreads } from '../../src/process/cosigner.js';
import { party, TokenWorld, withFetch } from '../support/token-world.js';

const FEE_RATE = 50n;

describe('cosigner', async () => {
  const world = new TokenWorld();
  const alice = party('cosigner alice');
  world.credit(alice, [3_000_000n, 2_000_000n]);
  const raw = await withFetch(world.fetch, async () => {
    const mnee = new Mnee({ environment: 'sandbox', apiKey: 'test' });
    const { rawtx } = await mnee.transfer(
      [{ address: party('cosigner bob').address, amount: 40 }],
      alice.wif,
      {
        broadcast: false,
      },
    );
    return fromHex(rawtx!);
  });
  const parsed = parseTransfer(raw, world.config);
  assert.ok(!isRefusal(parsed));
  const known = parsed.outpoints.map((o) => world.outputs.get(o)!);
  const funding = world.fundingOutput(requiredFunding(parsed, 2n, FEE_RATE));
  const keys = { approver: world.approver.privateKey, funding: world.funding.privateKey };
  const job: CosignJob = { raw, known, funding, satoshisPerKb: FEE_RATE, token: world.config };
  const threads = cosignerOnThreads(keys, 2);
  after(() => threads.close());

  it('cosigns on its threads exactly as in the calling thread', async () => {
    const here = await cosignerInThread(keys).cosign(job);
    assert.equal(here.kind, 'cosigned');
    const there = await threads.cosign(job);
    assert.deepEqual(there, here);
  });

  it('spreads jobs over its threads and answers each its own', async () => {
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => threads.cosign(job)));
    const expected = await cosignerInThread(keys).cosign(job);
    for (const outcome of outcomes) assert.deepEqual(outcome, expected);
  });

  it('passes refusals through as values, and validates only without a funding output', async () => {
    const unknownInput = await threads.cosign({ ...job, known: known.slice(1) });
    assert.equal(unknownInput.kind, 'refused');
    assert.equal(unknownInput.kind === 'refused' && unknownInput.code, 'UNKNOWN_INPUT');
    const garbage = await threads.cosign({ ...job, raw: new Uint8Array([1, 2, 3]) });
    assert.equal(garbage.kind === 'refused' && garbage.code, 'INVALID_TX');
    assert.deepEqual(await threads.cosign({ ...job, funding: null }), { kind: 'valid' });
  });

  it('rejects a job whose step throws, with the error it threw', async () => {
    const wrongFunding = { ...funding, lockingScript: new Uint8Array([0x51]) };
    await assert.rejects(threads.cosign({ ...job, funding: wrongFunding }), {
      name: 'CompletionError',
      message: /funding output is not locked to the funding key/,
    });
  });

  it('refuses work once closed', async () => {
    const closing = cosignerOnThreads(keys, 1);
    await closing.close();
    await assert.rejects(closing.cosign(job), /closed/);
  });
});
