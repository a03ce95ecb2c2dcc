import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, it } from 'node:test';
import {
  ALLOW_HINT,
  addressVerdict,
  CallbackRefusedError,
  checkCallbackUrl,
  checkLiteralHost,
  guardedLookup,
  parseCallbackAllow,
  type Resolver,
} from '../../src/callbacks/address-guard.js';
import { SSRF_URLS } from './ssrf-forms.js';

const NONE = parseCallbackAllow([]);

/** A resolver over a fixed table; a name not in it does not resolve. */
function table(entries: Record<string, readonly string[]>): Resolver {
  return async (host) => {
    const addresses = entries[host];
    if (addresses === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const resolver = table({
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'inside.example.com': ['10.1.2.3'],
  'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:192.168.1.1'],
  'nothing.example.com': [],
});

describe('callback URLs at submission', () => {
  for (const url of SSRF_URLS) {
    it(`refuses ${url}`, async () => {
      const verdict = await checkCallbackUrl(url, NONE, resolver);
      assert.equal(verdict.ok, false);
      if (!verdict.ok) assert.match(verdict.reason, /^callback_url refused: /);
    });
  }

  it('a refused loopback or private receiver is told the setting that allows it', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://inside.example.com/']) {
      const verdict = await checkCallbackUrl(url, NONE, resolver);
      assert.ok(!verdict.ok && verdict.reason.endsWith(ALLOW_HINT), url);
      assert.match(ALLOW_HINT, /--callback-allow/);
    }
    // A name that does not resolve is not a matter of the allow-list.
    const nothing = await checkCallbackUrl('https://nothing.example.com/', NONE, resolver);
    assert.ok(!nothing.ok && !nothing.reason.includes('--callback-allow'), JSON.stringify(nothing));
  });

  it('accepts a name whose every address is public, and a public literal', async () => {
    for (const url of [
      'https://hooks.example.com/t?x=1',
      'http://93.184.215.14:8080/',
      'https://[2606:4700::1111]/',
    ]) {
      const verdict = await checkCallbackUrl(url, NONE, resolver);
      assert.ok(verdict.ok, url);
    }
  });

  it('refuses names that resolve to a private, link-local or mapped private address, or to nothing', async () => {
    for (const host of ['inside', 'mixed', 'metadata', 'mapped', 'nothing', 'unknown']) {
      const verdict = await checkCallbackUrl(`https://${host}.example.com/`, NONE, resolver);
      assert.equal(verdict.ok, false, host);
    }
  });

  it('refuses other schemes, credentials and non-URLs with their own reasons', async () => {
    const reasons = await Promise.all(
      ['ftp://hooks.example.com/', 'file:///etc/passwd', 'https://u:p@hooks.example.com/', 'not a url'].map(
        async (url) => {
          const verdict = await checkCallbackUrl(url, NONE, resolver);
          return verdict.ok ? 'ok' : verdict.reason;
        },
      ),
    );
    assert.deepEqual(reasons, [
      'callback_url must be http or https',
      'callback_url must be http or https',
      'callback_url must not carry credentials',
      'callback_url is not a URL: not a url',
    ]);
  });

  it('lets the allow-list through: CIDRs, single addresses and host names', async () => {
    const allow = parseCallbackAllow(['127.0.0.1', '10.0.0.0/8', 'localhost', '[::1]']);
    for (const url of [
      'http://127.0.0.1:9/',
      'http://2130706433/',
      'http://[::ffff:127.0.0.1]/',
      'http://10.9.9.9/',
      'http://localhost:1/',
      'http://[::1]/',
    ]) {
      assert.ok((await checkCallbackUrl(url, allow, resolver)).ok, url);
    }
    assert.ok((await checkCallbackUrl('http://inside.example.com/', allow, resolver)).ok);
    for (const url of ['http://127.0.0.2/', 'http://192.168.0.1/', 'http://169.254.169.254/']) {
      assert.equal((await checkCallbackUrl(url, allow, resolver)).ok, false, url);
    }
  });

  it('refuses allow-list entries that are neither hosts nor addresses', () => {
    assert.throws(() => parseCallbackAllow(['10.0.0.0/33']));
    assert.throws(() => parseCallbackAllow(['http://x/']));
  });
});

describe('addresses', () => {
  it('only unicast passes, IPv4-mapped IPv6 judged as its IPv4', () => {
    assert.ok(addressVerdict('8.8.8.8', NONE).ok);
    assert.ok(addressVerdict('::ffff:8.8.8.8', NONE).ok);
    assert.equal(addressVerdict('::ffff:10.0.0.1', NONE).ok, false);
    assert.equal(addressVerdict('not-an-ip', NONE).ok, false);
  });

  it('checkLiteralHost is null for names and judges literals', () => {
    assert.equal(checkLiteralHost('hooks.example.com', NONE), null);
    assert.deepEqual(checkLiteralHost('[::ffff:7f00:1]', NONE), {
      ok: false,
      reason: '127.0.0.1 is a loopback address',
    });
    assert.deepEqual(checkLiteralHost('1.1.1.1', NONE), { ok: true });
  });
});

function lookupOnce(
  lookup: ReturnType<typeof guardedLookup>,
  host: string,
  options: { family?: number; all?: boolean },
): Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve) =>
    lookup(host, options, (err, address, family) => resolve({ err, address, family })),
  );
}

describe('the connect-time lookup', () => {
  it('answers public names in both callback forms', async () => {
    const lookup = guardedLookup(NONE, resolver);
    const one = await lookupOnce(lookup, 'hooks.example.com', {});
    assert.deepEqual([one.err, one.address, one.family], [null, '93.184.215.14', 4]);
    const all = await lookupOnce(lookup, 'hooks.example.com', { all: true });
    assert.equal((all.address as LookupAddress[]).length, 2);
    const six = await lookupOnce(lookup, 'hooks.example.com', { family: 6 });
    assert.equal(six.family, 6);
  });

  it('fails with CallbackRefusedError for private answers and localhost names', async () => {
    const lookup = guardedLookup(NONE, resolver);
    for (const host of ['inside.example.com', 'mixed.example.com', 'localhost']) {
      const { err } = await lookupOnce(lookup, host, { all: true });
      assert.ok(err instanceof CallbackRefusedError, host);
      assert.equal(err.code, 'ECALLBACKREFUSED');
    }
  });

  it('a name that resolved public at submission and private at connect is refused at connect', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => [
      { address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 },
    ];
    assert.ok((await checkCallbackUrl('http://rebind.example.com/', NONE, rebinding)).ok);
    const { err } = await lookupOnce(guardedLookup(NONE, rebinding), 'rebind.example.com', {});
    assert.ok(err instanceof CallbackRefusedError);
    assert.match(err.message, /127\.0\.0\.1 is a loopback address/);
  });
});
