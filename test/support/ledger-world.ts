// Several tokenproxy processes' worth of roles on one PostgreSQL database and one ARC: a fresh
// database per test file (freshDatabase, test-databases.ts), the devnet behind its ARC API in
// this process, and instances of chosen roles started with the same operator keys.
import { after, before } from 'node:test';
import { hash160 } from '../../src/crypto/hash.js';
import { bytesEqual } from '../../src/domain/script-chunks.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import { type ArcServer, startArcServer } from '../../src/ledger/devnet/arc-http-server.js';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import { operatorKeyFlags, operatorOf } from './operator-world.js';
import { listenRestartable } from './restartable-port.js';
import { type ServiceInTemp, startServiceIn } from './service-in-temp.js';
import { freshDatabase, testDatabaseUrl } from './test-databases.js';

export interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
}

export interface Ledger {
  readonly devnet: Devnet;
  /** The funding key's genesis coins: the first is the one the first instance deploys from. */
  readonly coins: readonly Coin[];
  readonly arcUrl: string;
  /** The txid of every transaction sent to the ARC server, in order (repeats included). */
  readonly broadcasts: readonly string[];
  /** The operator's flags: keys, ARC, the coin the first instance deploys from. */
  readonly flags: readonly string[];
  /** Closes the ARC server (the devnet keeps its state): ARC is down until arcUp(). */
  arcDown(): Promise<void>;
  /** Starts the ARC server again on the same port. */
  arcUp(): Promise<void>;
  close(): Promise<void>;
}

/** The devnet with its ARC server, and genesis coins of the operator's funding key. */
export async function startLedger(
  label: string,
  options: {
    readonly genesis?: readonly bigint[];
    readonly feeRateSatPerKb?: bigint;
    /** More genesis outputs, to other keys (an operator's wallet, say). */
    readonly others?: readonly { readonly lockingScript: Uint8Array; readonly satoshis: bigint }[];
  } = {},
): Promise<Ledger> {
  const operator = operatorOf(label);
  const fundingScript = buildP2pkhScript(hash160(operator.funding.publicKey));
  const devnet = await createDevnet({
    genesis: [
      ...(options.genesis ?? [5_000_000_000n]).map((satoshis) => ({
        lockingScript: fundingScript,
        satoshis,
      })),
      ...(options.others ?? []),
    ],
    blockIntervalMs: 0,
    ...(options.feeRateSatPerKb !== undefined && { feeRateSatPerKb: options.feeRateSatPerKb }),
  });
  const broadcasts: string[] = [];
  const recorded: Devnet = new Proxy(devnet, {
    get(target, name, receiver) {
      if (name === 'broadcastMany') {
        return async (raws: readonly Uint8Array[]) => {
          const results = await target.broadcastMany(raws);
          broadcasts.push(...results.map((r) => r.txid));
          return results;
        };
      }
      if (name !== 'broadcast') return Reflect.get(target, name, receiver);
      return async (raw: Uint8Array) => {
        const result = await target.broadcast(raw);
        broadcasts.push(result.txid);
        return result;
      };
    },
  });
  // Restarted on its port by the chaos suites: a port no retrying client can take meanwhile.
  let arc: ArcServer | null = await listenRestartable((port) =>
    startArcServer({ devnet: recorded, host: '127.0.0.1', port }),
  );
  const { url: arcUrl, port: arcPort } = arc;
  const coins = devnet
    .utxos()
    .filter((u) => bytesEqual(u.lockingScript, fundingScript))
    .map((u) => ({ txid: u.txid, vout: u.vout, satoshis: u.satoshis }))
    .sort((a, b) => a.vout - b.vout);
  const coin = coins[0]!;
  return {
    devnet,
    coins,
    arcUrl,
    broadcasts,
    flags: [
      '--arc-url',
      arcUrl,
      '--genesis-funding',
      `${coin.txid}_${coin.vout}:${coin.satoshis}`,
      ...operatorKeyFlags(operator),
    ],
    async arcDown() {
      await arc?.close();
      arc = null;
    },
    async arcUp() {
      arc ??= await startArcServer({ devnet: recorded, host: '127.0.0.1', port: arcPort });
    },
    async close() {
      await arc?.close();
      await devnet.close();
    },
  };
}

/** One instance: a service in a data folder of its own (`url` set when it runs the api role). */
export type Instance = ServiceInTemp;

/** One instance running `roles` on the shared database and ledger, in a data folder of its own. */
export function startInstance(
  ledger: Ledger,
  databaseUrl: string,
  roles: string,
  extra: readonly string[] = [],
): Promise<Instance> {
  return startServiceIn('scale', [
    '--log-level',
    'error',
    '--database-url',
    databaseUrl,
    '--roles',
    roles,
    '--tracker-poll-ms',
    '200',
    '--no-rate-limit-enabled',
    ...ledger.flags,
    ...extra,
  ]);
}

export interface SharedWorld {
  readonly ledger: Ledger;
  readonly databaseUrl: string;
  /** An instance on the world's database and ledger, stopped with the world. */
  start(roles: string, extra?: readonly string[]): Promise<Instance>;
  /**
   * A service the suite started on the world itself, stopped with the world's instances: before
   * the ledger closes and the database is dropped, never against them gone. Returns it.
   */
  own<S extends Stoppable>(service: S): S;
}

interface Stoppable {
  stop(): Promise<void>;
}

/** How long the world's making or ending may take before the suite fails instead of hanging. */
const WORLD_HOOK_TIMEOUT_MS = 120_000;

/**
 * A suite's world on the PostgreSQL of TEST_DATABASE_URL (the suite skips without it): a fresh
 * database and the ledger, made in the suite's `before`; the instances it starts, the ledger and
 * the database ended in its `after`. Call it in the describe body.
 */
export function sharedWorld(label: string): SharedWorld {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let ledger: Ledger | undefined;
  const started: Stoppable[] = [];
  const made = () => {
    if (database === undefined || ledger === undefined)
      throw new Error(`${label}: made in the suite's before`);
    return { database, ledger };
  };
  before(
    async () => {
      database = await freshDatabase(testDatabaseUrl!, label.replaceAll(' ', '_'));
      ledger = await startLedger(label);
    },
    { timeout: WORLD_HOOK_TIMEOUT_MS },
  );
  after(
    async () => {
      for (const s of started) await s.stop().catch(() => undefined);
      await ledger?.close();
      await database?.drop();
    },
    { timeout: WORLD_HOOK_TIMEOUT_MS },
  );
  return {
    get ledger() {
      return made().ledger;
    },
    get databaseUrl() {
      return made().database.url;
    },
    async start(roles, extra = []) {
      const { database, ledger } = made();
      const instance = await startInstance(ledger, database.url, roles, extra);
      started.push(instance);
      return instance;
    },
    own(service) {
      started.push(service);
      return service;
    },
  };
}
