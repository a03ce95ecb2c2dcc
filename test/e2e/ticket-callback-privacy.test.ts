// GET /v2/ticket shows a ticket's callback_url whole only to the key that submitted the ticket
// and to admin keys; any other key, and a request without one, gets "[REDACTED]" in its place
// (the field stays a string: the reference client and the Go client decode it). Before: the
// URL, query string and all, went to anyone holding the ticket ID.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { seedTicket } from '../support/seed-store.js';
import { http } from './e2e-http.js';
import { startTestService, type TestService } from './support.js';

const SECRET_URL = 'https://hooks.example.com/tokenproxy?token=s3cret-in-the-query';

describe('GET /v2/ticket and the callback URL', () => {
  let t: TestService;
  let owner: string;
  let other: string;
  let withUrl: string;
  let withoutUrl: string;

  before(async () => {
    t = await startTestService();
    const { db, masterKey } = t.service.parts;
    const a = await createApiKey(db, masterKey, { name: 'owner', scopes: ['submit'] });
    owner = a.key;
    other = (await createApiKey(db, masterKey, { name: 'other', scopes: ['submit'] })).key;
    withUrl = await seedTicket(db, { apiKeyId: a.id, callbackUrl: SECRET_URL, status: 'SUCCESS' });
    withoutUrl = await seedTicket(db, { apiKeyId: a.id, status: 'SUCCESS' });
  });
  after(async () => {
    await t?.stop();
  });

  const ticket = async (id: string, key?: string) => {
    const res = await http(t.url, 'GET', `/v2/ticket?ticketID=${id}`, key === undefined ? {} : { key });
    assert.equal(res.status, 200, res.text);
    return res.json as { id: string; callback_url: string; status: string };
  };

  it('shows it whole to the submitting key and to an admin key', async () => {
    assert.equal((await ticket(withUrl, owner)).callback_url, SECRET_URL);
    assert.equal((await ticket(withUrl, t.adminKey)).callback_url, SECRET_URL);
  });

  it('redacts it for another key and for a request without a key, the rest unchanged', async () => {
    for (const key of [other, undefined]) {
      const seen = await ticket(withUrl, key);
      assert.equal(seen.callback_url, '[REDACTED]');
      assert.equal(seen.id, withUrl);
      assert.equal(seen.status, 'SUCCESS');
    }
  });

  it('answers "" for a ticket without a callback URL, to anyone', async () => {
    for (const key of [owner, other, undefined])
      assert.equal((await ticket(withoutUrl, key)).callback_url, '');
  });
});
