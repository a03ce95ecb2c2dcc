// Found by the HTTP fuzz suite: text with a NUL byte reaching PostgreSQL (which refuses it in
// a text value) answered 500; a 15-byte rawtx announcing 3.6 billion inputs ran the service
// out of memory. Each is a 4xx now.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertProblem, http } from '../e2e/e2e-http.js';
import { serviceForSuite } from '../e2e/support.js';

describe('requests the fuzz suite found answered 500 or worse', () => {
  const t = serviceForSuite(['--no-rate-limit-enabled']);

  it('revoking the key "%00" is a 404, not a 500', async () => {
    for (const id of ['%00', 'a%00b', '01a200c5-1ce2-73f1-bbd7-5ba87e80883%00']) {
      const res = await http(t.url, 'DELETE', `/v2/admin/keys/${id}`, { key: t.adminKey });
      assert.equal(res.status, 404, res.text);
    }
  });

  it('an allowance or a proposal asked by a malformed id (a NUL byte) is a 400, not a 500', async () => {
    for (const path of [
      '/v2/admin/allowances/%00',
      '/v2/admin/allowances/a%00b',
      '/v2/admin/proposals/%00',
      '/v2/admin/proposals/not-a-uuid',
    ]) {
      const res = await http(t.url, 'GET', path, { key: t.adminKey });
      assert.equal(res.status, 400, `${path}: ${res.text}`);
    }
  });

  it('a key named with a NUL byte is a 400', async () => {
    const res = await http(t.url, 'POST', '/v2/admin/keys', { key: t.adminKey, body: { name: 'a\u0000b' } });
    assert.equal(res.status, 400, res.text);
  });

  it('a rawtx whose input count the bytes cannot hold is a 400 INVALID_TX on v1 and v2', async () => {
    for (const path of ['/v1/transfer', '/v2/transfer']) {
      const res = await http(t.url, 'POST', path, {
        key: t.adminKey,
        body: { rawtx: '5524df5ce5fad692163b' },
      });
      assertProblem(res, 400, 'INVALID_TX');
    }
  });
});
