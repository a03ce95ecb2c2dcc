// The issuer's controls as pure rules (src/domain/issuer-controls.ts, issue 32): what a pause
// lets through (the issuer's own burns only), who the blacklist stops (senders and receivers),
// seized outpoints, and the limits (per transfer, per sender per day; operator moves exempt).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  amountSent,
  blacklistRefusal,
  type ControlledTransfer,
  dailyLimitedSenders,
  dailyLimitRefusals,
  limitRefusal,
  pausedRefusal,
  seizedRefusal,
  utcDayStart,
} from '../../src/domain/issuer-controls.js';

const op = { mintAddress: 'MINT', feeAddress: 'FEE', burnAddress: 'BURN' };
const wallet: ControlledTransfer = {
  outpoints: ['aa_0'],
  senders: ['ALICE'],
  inputs: [{ owner: 'ALICE', amount: 1000n }],
  outputs: [
    { owner: 'BOB', amount: 700n, op: 'transfer' },
    { owner: 'FEE', amount: 100n, op: 'transfer' },
    { owner: 'ALICE', amount: 200n, op: 'transfer' },
  ],
};
const operatorBurn: ControlledTransfer = {
  outpoints: ['bb_1'],
  senders: ['MINT'],
  inputs: [{ owner: 'MINT', amount: 100n }],
  outputs: [
    { owner: 'BURN', amount: 5n, op: 'burn' },
    { owner: 'MINT', amount: 95n, op: 'transfer' },
  ],
};
const mint: ControlledTransfer = {
  outpoints: ['bb_1'],
  senders: ['MINT'],
  inputs: [{ owner: 'MINT', amount: 100n }],
  outputs: [
    { owner: 'BOB', amount: 5n, op: 'transfer' },
    { owner: 'MINT', amount: 95n, op: 'transfer' },
  ],
};

describe('issuer controls (pure)', () => {
  it('a pause refuses wallets’ transfers and mints, and lets the issuer’s own burns through', () => {
    assert.equal(pausedRefusal(false, wallet, op), null);
    assert.equal(pausedRefusal(true, wallet, op)?.code, 'TRANSFERS_PAUSED');
    assert.equal(pausedRefusal(true, mint, op)?.code, 'TRANSFERS_PAUSED');
    assert.equal(pausedRefusal(true, operatorBurn, op), null);
    // A wallet's burn is no operator burn.
    assert.equal(pausedRefusal(true, { ...operatorBurn, senders: ['ALICE'] }, op)?.code, 'TRANSFERS_PAUSED');
  });

  it('the blacklist stops a sender and a receiver', () => {
    assert.equal(blacklistRefusal(wallet, new Set(['CAROL'])), null);
    assert.match(blacklistRefusal(wallet, new Set(['BOB']))!.detail, /BOB is blacklisted/);
    assert.equal(blacklistRefusal(wallet, new Set(['ALICE']))?.code, 'ADDRESS_BLACKLISTED');
  });

  it('a seized outpoint is refused', () => {
    assert.equal(seizedRefusal(wallet, new Set(['aa_1'])), null);
    assert.equal(seizedRefusal(wallet, new Set(['aa_0']))?.code, 'OUTPUT_SEIZED');
  });

  it('a batch meets the daily limit in its order: what passes counts against what follows', () => {
    const bob = { ...wallet, senders: ['BOB'], inputs: [{ owner: 'BOB', amount: 1000n }] };
    const transfers = [wallet, wallet, mint, bob, wallet];
    const refusals = dailyLimitRefusals(transfers, 1600n, new Map([['BOB', 1400n]]), op);
    assert.deepEqual(
      refusals.map((r) => r?.code ?? null),
      [null, null, null, 'DAILY_LIMIT_EXCEEDED', 'DAILY_LIMIT_EXCEEDED'],
    );
    assert.match(
      refusals[4]!.detail,
      /ALICE has sent 1600 today; 800 more would pass the daily limit of 1600/,
    );
    assert.deepEqual(
      dailyLimitedSenders([mint, wallet, bob, wallet], op),
      ['ALICE', 'BOB'],
      'sorted, once each',
    );
    assert.deepEqual(dailyLimitedSenders([mint, operatorBurn], op), [], 'operator moves hold no sum');
  });

  it('limits count what leaves the senders (fee in, change and burns out); operator moves are exempt', () => {
    assert.equal(amountSent(wallet), 800n);
    const none = { perTransfer: null, perAddressPerDay: null };
    assert.equal(limitRefusal(wallet, none, new Map(), op), null);
    assert.equal(limitRefusal(wallet, { ...none, perTransfer: 800n }, new Map(), op), null);
    assert.equal(
      limitRefusal(wallet, { ...none, perTransfer: 799n }, new Map(), op)?.code,
      'TRANSFER_LIMIT_EXCEEDED',
    );
    const daily = { ...none, perAddressPerDay: 1_000n };
    assert.equal(limitRefusal(wallet, daily, new Map([['ALICE', 200n]]), op), null);
    assert.equal(limitRefusal(wallet, daily, new Map([['ALICE', 201n]]), op)?.code, 'DAILY_LIMIT_EXCEEDED');
    assert.equal(limitRefusal(mint, { perTransfer: 1n, perAddressPerDay: 1n }, new Map(), op), null);
    // A burn is nobody's gain: burning 50 of 100 sends nothing.
    const burn: ControlledTransfer = {
      outpoints: ['cc_0'],
      senders: ['ALICE'],
      inputs: [{ owner: 'ALICE', amount: 100n }],
      outputs: [
        { owner: 'ALICE', amount: 50n, op: 'burn' },
        { owner: 'ALICE', amount: 50n, op: 'transfer' },
      ],
    };
    assert.equal(amountSent(burn), 0n);
  });

  it('a recipient that cosigns an input of its own still counts as receiving beyond it', () => {
    // ALICE pays BOB 700; BOB adds a 1-unit input and gets it back on top. Counting only outputs
    // to addresses outside the senders said 100 (the fee), past any limit.
    const cosigned: ControlledTransfer = {
      outpoints: ['aa_0', 'dd_0'],
      senders: ['ALICE', 'BOB'],
      inputs: [
        { owner: 'ALICE', amount: 1000n },
        { owner: 'BOB', amount: 1n },
      ],
      outputs: [
        { owner: 'BOB', amount: 701n, op: 'transfer' },
        { owner: 'FEE', amount: 100n, op: 'transfer' },
        { owner: 'ALICE', amount: 200n, op: 'transfer' },
      ],
    };
    assert.equal(amountSent(cosigned), 800n, 'as much as the plain payment');
    const none = { perTransfer: null, perAddressPerDay: null };
    assert.equal(
      limitRefusal(cosigned, { ...none, perTransfer: 799n }, new Map(), op)?.code,
      'TRANSFER_LIMIT_EXCEEDED',
    );
    assert.equal(
      limitRefusal(cosigned, { ...none, perAddressPerDay: 1000n }, new Map([['ALICE', 201n]]), op)?.code,
      'DAILY_LIMIT_EXCEEDED',
    );
  });

  it('the day starts at midnight UTC', () => {
    assert.equal(utcDayStart(new Date('2026-11-27T23:59:59.999Z')).toISOString(), '2026-11-27T00:00:00.000Z');
  });
});
