// The screening hook (issue 32) against a fake screener on loopback: allow passes, deny
// refuses with the screener's reason and records it; a late or malformed answer is what
// screeningOnTimeout says (refuse: SCREENING_UNAVAILABLE; allow: passes), recorded and timed.
// Operator moves (mints, burns) are not screened.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DomainError } from '../../src/domain/domain-error.js';
import type { ControlledTransfer } from '../../src/domain/issuer-controls.js';
import { screenTransfer } from '../../src/usecases/controls/transfer-controls.js';

const token = { mintAddress: 'MINT', feeAddress: 'FEE', burnAddress: 'BURN' };
const transfer = (to: string): ControlledTransfer => ({
  outpoints: ['aa_0'],
  senders: ['ALICE'],
  inputs: [{ owner: 'ALICE', amount: 5n }],
  outputs: [{ owner: to, amount: 5n, op: 'transfer' }],
});

describe('screenTransfer', () => {
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        const to = (JSON.parse(body) as { outputs: { address: string }[] }).outputs[0]!.address;
        if (to === 'LATE') return void setTimeout(() => res.end('{"decision":"allow"}'), 1000);
        if (to === 'ODD') return void res.end('{"verdict":"ok"}');
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify(to === 'EVE' ? { decision: 'deny', reason: 'sanctioned' } : { decision: 'allow' }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  // A prompt answer gets a long wait (a loaded machine once took more than 150 ms to answer on
  // loopback); only the cases about a late answer wait briefly, against a reply 1 s late.
  const world = (onTimeout: 'refuse' | 'allow', timeoutMs = 10_000) => {
    const recorded: unknown[][] = [];
    const screened: string[] = [];
    const ctx = {
      token,
      db: {
        query: async (_sql: string, params: unknown[] = []) => {
          recorded.push(params);
          return [];
        },
      },
      now: () => new Date('2026-11-27T10:00:00Z'),
      log: { warn: () => undefined },
      controls: {
        limits: { perTransfer: null, perAddressPerDay: null },
        screening: { url, timeoutMs, onTimeout },
        counted: {
          change: () => undefined,
          refused: () => undefined,
          screened: (o: string) => void screened.push(o),
        },
      },
    };
    // biome-ignore lint/suspicious/noExplicitAny: a fake context with only what screening reads
    return { ctx: ctx as any, recorded, screened };
  };

  it('allow passes; deny refuses with the reason, recorded', async () => {
    const { ctx, recorded, screened } = world('refuse');
    await screenTransfer(ctx, 'tx1', transfer('BOB'));
    await assert.rejects(
      screenTransfer(ctx, 'tx2', transfer('EVE')),
      (err: unknown) =>
        err instanceof DomainError && err.code === 'SCREENING_DENIED' && /sanctioned/.test(err.message),
    );
    assert.deepEqual(screened, ['allow', 'deny']);
    assert.equal(recorded[0]![0], 'screening-deny');
    assert.equal(recorded[0]![2], 'sanctioned');
  });

  it('a late or malformed answer refuses when onTimeout is refuse, passes when allow; both recorded', async () => {
    const refusing = world('refuse', 150);
    for (const to of ['LATE', 'ODD'])
      await assert.rejects(
        screenTransfer(refusing.ctx, 'tx3', transfer(to)),
        (err: unknown) => err instanceof DomainError && err.code === 'SCREENING_UNAVAILABLE',
      );
    const allowing = world('allow', 150);
    await screenTransfer(allowing.ctx, 'tx4', transfer('LATE'));
    assert.deepEqual(allowing.screened, ['timeout']);
    assert.equal(allowing.recorded[0]![0], 'screening-timeout');
  });

  it('the operator’s own moves are not screened', async () => {
    const { ctx, screened } = world('refuse');
    await screenTransfer(ctx, 'tx5', { ...transfer('EVE'), senders: ['MINT'] });
    assert.deepEqual(screened, []);
  });
});
