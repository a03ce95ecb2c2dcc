import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { eventBody } from '../../src/callbacks/event-body.js';
import { signingKeyOf, webhookHeaders, webhookSignature } from '../../src/callbacks/signer.js';

describe('Standard Webhooks signatures', () => {
  it('a whsec_ secret: the standardwebhooks package verifies what we sign, byte for byte', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 24, maxLength: 64 }),
        fc.string(),
        fc.string({ minLength: 1 }),
        (bytes, body, id) => {
          const secret = `whsec_${Buffer.from(bytes).toString('base64')}`;
          const at = new Date();
          const ours = webhookSignature(signingKeyOf(secret), id, Math.floor(at.getTime() / 1000), body);
          return ours === new Webhook(secret).sign(id, at, body);
        },
      ),
    );
  });

  it('headers carry id, timestamp and a signature the package accepts', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const body = JSON.stringify({ id: 't', status: 'MINED' });
    const headers = webhookHeaders({ webhookId: 'msg_1', at: new Date(), body }, signingKeyOf(secret));
    assert.deepEqual(new Webhook(secret).verify(body, headers), { id: 't', status: 'MINED' });
    assert.throws(() => new Webhook(secret).verify(`${body} `, headers));
  });

  it("a ticket's plain callback_secret is used as its bytes: the package verifies it with format raw", () => {
    const secret = 'my shared secret';
    const body = '{"a":1}';
    const headers = webhookHeaders({ webhookId: 'msg_2', at: new Date(), body }, signingKeyOf(secret));
    assert.deepEqual(new Webhook(secret, { format: 'raw' }).verify(body, headers), { a: 1 });
  });

  it('without a key the message goes unsigned', () => {
    const headers = webhookHeaders({ webhookId: 'msg_3', at: new Date(0), body: '{}' }, null);
    assert.equal(headers['webhook-signature'], undefined);
    assert.equal(headers['webhook-timestamp'], '0');
  });
});

describe('event body', () => {
  it('puts the Ticket fields in the resource order, whatever order jsonb gave', () => {
    const payload = { errors: null, status: 'SUCCESS', id: 'x', updatedAt: 'u', tx_id: 't', extra: 1 };
    assert.equal(
      eventBody(payload),
      '{"id":"x","tx_id":"t","status":"SUCCESS","updatedAt":"u","errors":null,"extra":1}',
    );
  });
});
