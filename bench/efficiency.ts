// bench:api's efficiency line: ratios and counts from one run that mean the same on any machine,
// loaded or not (docs/performance.md "Efficiency"):
//   host CPU     (service + PostgreSQL CPU) per transfer / the service's own signature CPU per
//                transfer (OWN_SIGNS signs + OWN_VERIFIES verifies at this machine's speed, sampled
//                in the same run);
//   row writes   inserts + updates + deletes per transfer (pg_stat_user_tables), HOT updates in %;
//   WAL          bytes of WAL per transfer / the raw transaction's bytes (pg_current_wal_lsn);
//   score lock   the serial part of the write path per transfer in ceiling units (1 / the
//                crypto-only ceiling), and as a fraction of the window's wall time: since writers
//                draw under shared markers (ADR 0020), the scores drawn (the service's metric)
//                times nextval's cost (bench/score-draw-cost.ts);
//   devnet       the devnet's CPU per transfer / its own verifies' CPU (counted by the devnet).
// formatEfficiency prints the line; parseEfficiency reads it back (a script's side).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { publicKeyOf, signDigest, verifyDigest } from '../src/crypto/secp256k1.js';
import type { CryptoSpeed } from './crypto-ceiling.js';

/**
 * The service's signature work for the bench's transfers (one token input, one funding input):
 * the cosignature and the funding input's signature; the owner's signature verified once at
 * validation, and the two fresh signatures verified after signing. Fixed as the unit, as the
 * ceiling's is, so that a cut of the work itself shows as a lower ratio.
 */
export const OWN_SIGNS = 2;
export const OWN_VERIFIES = 3;

export interface Efficiency {
  /** (service + PostgreSQL CPU) / own signature CPU, per transfer. */
  readonly hostCpu: number;
  readonly rowWrites: number;
  /** HOT updates in % of updates. */
  readonly hotPercent: number;
  /** WAL bytes / raw transaction bytes, per transfer. */
  readonly wal: number;
  /** The serial part of drawing scores per transfer, in ceiling units. */
  readonly scoreLockUnits: number;
  /** That serial part, % of the window's wall time. */
  readonly scoreLockHeldPercent: number;
  /** Devnet CPU / its verifies' CPU, per transfer. */
  readonly devnet: number;
}

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : 'NaN');

export function formatEfficiency(e: Efficiency): string {
  return (
    `efficiency: host CPU x${fixed(e.hostCpu, 1)} of own signatures; ` +
    `row writes ${fixed(e.rowWrites, 1)} per transfer, HOT ${fixed(e.hotPercent, 0)}%; ` +
    `WAL x${fixed(e.wal, 1)} of raw tx; ` +
    `score lock ${fixed(e.scoreLockUnits, 4)} ceiling units, held ${fixed(e.scoreLockHeldPercent, e.scoreLockHeldPercent < 1 ? 2 : 0)}% of wall time; ` +
    `devnet x${fixed(e.devnet, 1)} of its verifies`
  );
}

const LINE =
  /efficiency: host CPU x(\S+) of own signatures; row writes (\S+) per transfer, HOT (\S+)%; WAL x(\S+) of raw tx; score lock (\S+) ceiling units, held (\S+)% of wall time; devnet x(\S+) of its verifies/;

/** The figures of the first efficiency line in `text`; undefined when there is none. */
export function parseEfficiency(text: string): Efficiency | undefined {
  const m = LINE.exec(text);
  if (m === null) return undefined;
  const [hostCpu, rowWrites, hotPercent, wal, scoreLockUnits, scoreLockHeldPercent, devnet] = m
    .slice(1)
    .map(Number) as [number, number, number, number, number, number, number];
  return { hostCpu, rowWrites, hotPercent, wal, scoreLockUnits, scoreLockHeldPercent, devnet };
}

/**
 * CPU seconds (not wall time) of one signature and one verification on this machine: the other
 * figures of the line are CPU too, so a machine busy with other work moves neither side.
 */
export function cryptoCpu(ops = 500): CryptoSpeed {
  const key = randomBytes(32);
  const pub = publicKeyOf(key);
  const digests = Array.from({ length: ops }, () => randomBytes(32));
  const cpu = (since?: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1e6;
  };
  let t = process.cpuUsage();
  const sigs = digests.map((d) => signDigest(d, key));
  const sign = cpu(t) / ops;
  t = process.cpuUsage();
  let ok = 0;
  for (const [i, d] of digests.entries()) if (verifyDigest(sigs[i]!, d, pub)) ok++;
  const verify = cpu(t) / ops;
  if (ok !== ops) throw new Error('verification failed');
  return { sign, verify };
}

/** Row writes and HOT share between two readings of tableWrites (bench/table-writes.ts). */
export function rowWritesOf(
  before: ReadonlyMap<string, { ins: number; upd: number; hot: number; del: number }>,
  after: ReadonlyMap<string, { ins: number; upd: number; hot: number; del: number }>,
  transfers: number,
): { readonly rowWrites: number; readonly hotPercent: number } {
  let writes = 0;
  let updates = 0;
  let hot = 0;
  for (const [table, a] of after) {
    const b = before.get(table) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    writes += a.ins - b.ins + (a.upd - b.upd) + (a.del - b.del);
    updates += a.upd - b.upd;
    hot += a.hot - b.hot;
  }
  return { rowWrites: writes / transfers, hotPercent: updates === 0 ? 0 : (hot / updates) * 100 };
}

/**
 * The server's WAL position, bytes, and its WAL records and full-page images so far (the whole
 * cluster: other databases' writes on a shared server count too).
 */
export async function walPosition(
  url: string,
): Promise<{ bytes: bigint; records: number; fullPages: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ at: string; records: string; fpi: string }>(
      `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS at, wal_records::text AS records,
              wal_fpi::text AS fpi FROM pg_stat_wal`,
    );
    return { bytes: BigInt(rows[0]!.at), records: Number(rows[0]!.records), fullPages: Number(rows[0]!.fpi) };
  } finally {
    await client.end();
  }
}

/** PIDs of the backends connected to the database of `url` (the service's connections). */
export async function backendPids(url: string): Promise<Set<number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return new Set(rows.map((r) => r.pid));
  } finally {
    await client.end();
  }
}

/** The devnet's signature counts (GET /v1/devnet/counts). */
export async function devnetCounts(arcUrl: string): Promise<{ signs: number; verifies: number }> {
  const res = await fetch(`${arcUrl}/v1/devnet/counts`);
  if (!res.ok) throw new Error(`devnet counts answered ${res.status}`);
  return (await res.json()) as { signs: number; verifies: number };
}
