// Random identifiers: UUIDv7 (ticket ids, API key ids) and prefixed random tokens.
import { randomBytes, randomFillSync } from 'node:crypto';

const MAX_MS = 2 ** 48 - 1;
/** rand_a (12 bits) and rand_b (62 bits) taken together. */
const RANDOM_BITS = 74n;
const RANDOM_LIMIT = 1n << RANDOM_BITS;
/** A fresh millisecond starts its random part below 2^73, leaving room to count up. */
const FRESH_MASK = (1n << (RANDOM_BITS - 1n)) - 1n;

let lastMs = -1;
let lastRandom = 0n;

/**
 * Random bytes for ids, taken from the system's CSPRNG a page at a time and zeroed once used: a
 * call of its own for each id's 10 bytes made an id cost 6 us, against 1.6 from the page (a
 * ticket id is made for every transfer).
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomBigInt(bytes: number): bigint {
  if (poolAt + bytes > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + bytes);
  pool.fill(0, poolAt, poolAt + bytes);
  poolAt += bytes;
  return BigInt(`0x${hex}`);
}

/**
 * A UUID version 7 (RFC 9562): 48-bit Unix time in milliseconds, version 7, variant 10,
 * and 74 random bits. Ids made in this process for the same millisecond increase: the
 * random part of the previous one is stepped up by a random amount (RFC 9562 6.2, method 2),
 * and should it overflow, the time field moves on by one millisecond. A time earlier than
 * the previous call's is taken as given (ids are then ordered by the time they carry).
 */
export function uuidv7(now: number = Date.now()): string {
  if (!Number.isSafeInteger(now) || now < 0 || now > MAX_MS)
    throw new RangeError(`invalid UUIDv7 time ${now}`);
  let ms = now;
  let random: bigint;
  if (ms === lastMs) {
    random = lastRandom + 1n + (randomBigInt(4) & 0x7fff_ffffn);
    if (random >= RANDOM_LIMIT) {
      ms = lastMs + 1;
      random = randomBigInt(10) & FRESH_MASK;
    }
  } else {
    random = randomBigInt(10) & FRESH_MASK;
  }
  if (ms > MAX_MS) throw new RangeError('UUIDv7 time field exhausted');
  lastMs = ms;
  lastRandom = random;
  return formatUuidv7(ms, random);
}

function formatUuidv7(ms: number, random: bigint): string {
  const randA = random >> 62n; // 12 bits
  const randB = random & ((1n << 62n) - 1n); // 62 bits
  const hex =
    ms.toString(16).padStart(12, '0') +
    (0x7000n | randA).toString(16).padStart(4, '0') +
    ((2n << 62n) | randB).toString(16).padStart(16, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The Unix time in milliseconds carried by a UUIDv7. */
export function uuidv7Time(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for any UUID in its canonical 8-4-4-4-12 hex form (any version). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** `prefix` followed by `bytes` random bytes in base64url (no padding), e.g. `tp_...`. */
export function randomToken(prefix: string, bytes: number): string {
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new RangeError(`invalid random token size ${bytes}`);
  return prefix + randomBytes(bytes).toString('base64url');
}
