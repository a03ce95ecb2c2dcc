import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Transaction, Utils } from '@bsv/sdk';
import fc from 'fast-check';
import { isValidAddress, p2pkhAddress, parseAddress, pubKeyHashOf } from '../../src/domain/address.js';
import { base58CheckDecode, base58CheckEncode, base58Decode, base58Encode } from '../../src/domain/base58.js';
import { bech32Decode, decodeSegwitAddress } from '../../src/domain/bech32.js';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytesOf = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));

// The reference client's production fee and sandbox fee addresses (mnee.pretty.js).
const CLIENT_ADDRESSES = ['1inHbiwj2jrEcZPiSYnfgJ8FmS1Bmk4Dh', '1AZNdbFYBDFTAEgzZMfPzANxyNrpGJZAUY'];

// Well-known mainnet addresses with their hashes (the genesis coinbase P2PKH, and the P2SH example
// used across Bitcoin libraries' test suites).
const KNOWN: Array<[string, 'p2pkh' | 'p2sh', string]> = [
  ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'p2pkh', '62e907b15cbf27d5425399ebf6f0fb50ebb88f18'],
  ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'p2sh', 'b472a266d0bd89c13706a4132ccfb16f7c3b9fcb'],
];

/** Owner public key hashes of the P2PKH and cosign outputs of the real transactions in the vectors. */
function vectorOwnerHashes(): string[] {
  const path = new URL('../vectors/mnee-real-transactions.json', import.meta.url);
  const vectors = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const raws = Object.values(vectors)
    .flat()
    .filter((v): v is string => typeof v === 'string' && /^[0-9a-f]+$/.test(v) && v.length > 100);
  const hashes = new Set<string>();
  for (const raw of raws) {
    for (const output of Transaction.fromHex(raw).outputs) {
      const script = output.lockingScript.toHex();
      for (const match of script.matchAll(/76a914([0-9a-f]{40})88a[cd]/g)) hashes.add(match[1] ?? '');
    }
  }
  return [...hashes];
}

describe('base58', () => {
  it('encodes like @bsv/sdk and decodes back, leading zero bytes included', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc
        .tuple(fc.nat({ max: 4 }), fc.uint8Array({ maxLength: 30 }))
        .map(([zeros, rest]) => new Uint8Array([...new Array<number>(zeros).fill(0), ...rest])),
    );
    fc.assert(
      fc.property(bytes, (data) => {
        const text = base58Encode(data);
        assert.equal(text, Utils.toBase58([...data]));
        assert.deepEqual(base58Decode(text), data);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses characters outside the alphabet', () => {
    for (const text of ['0', 'O', 'I', 'l', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfN0', ' 1', '+']) {
      assert.equal(base58Decode(text), null, text);
    }
  });

  it('checks the checksum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 32 }), (version, payload) => {
        const text = base58CheckEncode(version, payload);
        assert.equal(text, Utils.toBase58Check([...payload], [version]));
        const decoded = base58CheckDecode(text);
        assert.equal(decoded?.version, version);
        assert.deepEqual(decoded?.payload, payload);
      }),
    );
    assert.equal(base58CheckDecode(''), null);
    assert.equal(base58CheckDecode('1111'), null);
  });
});

describe('bech32', () => {
  it('accepts the BIP 173 / BIP 350 mainnet vectors with their programs', () => {
    const valid: Array<[string, number, string]> = [
      ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 0, '751e76e8199196d454941c45d1b3a323f1433bd6'],
      [
        'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
        0,
        '1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
      ],
      [
        'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
        1,
        '751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
      ],
      ['BC1SW50QGDZ25J', 16, '751e'],
      ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', 2, '751e76e8199196d454941c45d1b3a323'],
      [
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
        1,
        '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
      ],
    ];
    for (const [text, version, program] of valid) {
      const decoded = decodeSegwitAddress(text, 'bc');
      assert.equal(decoded?.version, version, text);
      assert.equal(hex(decoded?.program ?? new Uint8Array()), program, text);
      assert.deepEqual(parseAddress(text), { kind: 'bech32', text: text.toLowerCase() });
    }
  });

  it('refuses the BIP 173 / BIP 350 invalid vectors and testnet addresses', () => {
    const invalid = [
      'tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty',
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5',
      'BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2',
      'bc1rw5uspcuh',
      'bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90',
      'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P',
      'bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du',
      'bc1gmk9yu',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd',
      'BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL',
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh',
      'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4',
      'BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R',
      'bc1pw5dgrnzv',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf',
      'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
      'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq',
    ];
    for (const text of invalid) {
      assert.equal(parseAddress(text), null, text);
      assert.equal(decodeSegwitAddress(text, 'bc'), null, text);
    }
  });

  it('tells bech32 from bech32m on the BIP checksum vectors', () => {
    assert.equal(bech32Decode('A12UEL5L')?.encoding, 'bech32');
    assert.equal(bech32Decode('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw')?.encoding, 'bech32');
    assert.equal(bech32Decode('A1LQFN3A')?.encoding, 'bech32m');
    assert.equal(bech32Decode('abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx')?.encoding, 'bech32m');
    for (const bad of ['A1G7SGD8', 'M1VUXWEZ', '1pzry9x0s0muk', 'x1b4n0q5v', 'li1dgmt3', '\u00201nwldj5']) {
      assert.equal(bech32Decode(bad), null, bad);
    }
  });
});

describe('parseAddress', () => {
  it('parses the reference client addresses as P2PKH, agreeing with @bsv/sdk', () => {
    for (const address of CLIENT_ADDRESSES) {
      const parsed = parseAddress(address);
      assert.equal(parsed?.kind, 'p2pkh', address);
      const sdk = Utils.fromBase58Check(address, 'hex');
      assert.equal(sdk.prefix, '00');
      assert.equal(hex(pubKeyHashOf(address) ?? new Uint8Array()), sdk.data);
      assert.equal(p2pkhAddress(bytesOf(String(sdk.data))), address);
      assert.ok(isValidAddress(address));
    }
  });

  it('parses well-known P2PKH and P2SH addresses to their hashes', () => {
    for (const [address, kind, hash] of KNOWN) {
      const parsed = parseAddress(address);
      assert.equal(parsed?.kind, kind, address);
      assert.equal(parsed !== null && 'hash' in parsed ? hex(parsed.hash) : null, hash);
      assert.equal(pubKeyHashOf(address) === null, kind !== 'p2pkh');
    }
  });

  it('round-trips the owner hashes of the real transactions in the vectors', () => {
    const hashes = vectorOwnerHashes();
    assert.ok(hashes.length >= 3, `found ${hashes.length} owner hashes`);
    for (const hash of hashes) {
      const address = p2pkhAddress(bytesOf(hash));
      assert.equal(address, Utils.toBase58Check([...bytesOf(hash)], [0]));
      assert.equal(hex(pubKeyHashOf(address) ?? new Uint8Array()), hash);
    }
  });

  it('fails the checksum when any one character is changed', () => {
    const addresses = [...CLIENT_ADDRESSES, ...KNOWN.map(([address]) => address)];
    for (const address of addresses) {
      for (let i = 0; i < address.length; i++) {
        for (const replacement of [ALPHABET[(ALPHABET.indexOf(address[i] ?? '') + 1) % 58], 'z', '2']) {
          if (replacement === address[i]) continue;
          const flipped = `${address.slice(0, i)}${replacement}${address.slice(i + 1)}`;
          assert.equal(parseAddress(flipped), null, flipped);
          assert.equal(isValidAddress(flipped), false, flipped);
        }
      }
    }
  });

  it('refuses other versions, lengths and junk', () => {
    const hash = new Uint8Array(20).fill(7);
    const refused = [
      base58CheckEncode(0x6f, hash), // testnet P2PKH
      base58CheckEncode(0xc4, hash), // testnet P2SH
      base58CheckEncode(0x80, new Uint8Array(32).fill(1)), // a WIF private key
      base58CheckEncode(0x00, new Uint8Array(21)),
      base58CheckEncode(0x00, new Uint8Array(19)),
      '',
      ' ',
      `${CLIENT_ADDRESSES[0]} `,
      ` ${CLIENT_ADDRESSES[0]}`,
      '1inHbiwj2jrEcZPiSYnfgJ8FmS1Bmk4Dh1',
      '0'.repeat(34),
      '1'.repeat(200),
    ];
    for (const text of refused) assert.equal(parseAddress(text), null, JSON.stringify(text));
  });
});

describe('p2pkhAddress', () => {
  it('matches @bsv/sdk toBase58Check on random hashes and parses back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (hash) => {
        const address = p2pkhAddress(hash);
        assert.equal(address, Utils.toBase58Check([...hash], [0]));
        assert.deepEqual(parseAddress(address), { kind: 'p2pkh', hash });
        assert.deepEqual(pubKeyHashOf(address), hash);
      }),
      { numRuns: 500 },
    );
  });

  it('answers a hash decoded before with bytes of its own each time', () => {
    const hash = new Uint8Array(20).fill(7);
    const address = p2pkhAddress(hash);
    const first = pubKeyHashOf(address)!;
    first.fill(0);
    assert.deepEqual(pubKeyHashOf(address), hash);
    assert.equal(pubKeyHashOf(`${address.slice(0, -1)}${address.endsWith('1') ? '2' : '1'}`), null);
  });

  it('refuses a hash that is not 20 bytes', () => {
    assert.throws(() => p2pkhAddress(new Uint8Array(19)), RangeError);
    assert.throws(() => p2pkhAddress(new Uint8Array(32)), RangeError);
  });
});
