// Builds the running service from its configuration: the only place adapters are chosen.
// Embedded default: PGlite in the data folder and the devnet ledger, token deployed at first
// start. Scale-out: PostgreSQL (DATABASE_URL) and ARC (ARC_URL), keys from the environment.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { composeWritePath } from './compose-write-path.js';
import {
  type Config,
  ConfigError,
  fundingLeaseProblems,
  operatorKeyProblems,
  productionProblems,
  writerProblems,
} from './config.js';
import { hash160 } from './crypto/hash.js';
import { uuidv7 } from './crypto/random-id.js';
import { publicKeyOf } from './crypto/secp256k1.js';
import { MASTER_KEY_FILE, masterKeyFromEnv, readOrMakeMasterKey } from './crypto/secret-box.js';
import { DEFAULT_FEE_TIERS } from './domain/fee-tiers.js';
import type { TokenConfig } from './domain/token-config.js';
import { buildP2pkhScript } from './domain/token-script.js';
import { ARC_CALLBACK_PATH } from './http/routes/arc-callback-routes.js';
import { checkMasterKey } from './keys/master-key-check.js';
import {
  addressesOf,
  checkKeysDeployed,
  keysFromConfig,
  type OperatorKeys,
  readOrMakeKeyFile,
} from './keys/operator-keys.js';
import { type ArcLedger, createArcLedger } from './ledger/arc/arc-ledger.js';
import { cachedFeeRate } from './ledger/cached-fee-rate.js';
import { createDevnet, type Devnet } from './ledger/devnet/devnet.js';
import type { Ledger } from './ledger/port.js';
import { controlMetrics } from './metrics/control-metrics.js';
import { instrumentLedger } from './metrics/ledger-metrics.js';
import { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics.js';
import { ticketTimings } from './metrics/ticket-timings.js';
import { claimInstanceIdentity, type InstanceIdentity } from './process/instance-identity.js';
import type { Db } from './store/db/db.js';
import { instanceRegistryOf } from './store/db/instance-registry.js';
import { openPgliteDb } from './store/db/pglite-db.js';
import { openPostgresDb } from './store/db/postgres-db.js';
import { releaseAllFundingLeases } from './store/funding/funding-leases.js';
import { migrate } from './store/migrate.js';
import type { ApiContext, ServiceContext } from './usecases/context.js';
import type { SubmissionCommitter } from './usecases/submit/submission-committer.js';
import {
  devnetFundingCoin,
  type FundingCoin,
  loadOrDeployToken,
  loadTokenSettings,
  type TokenSettings,
} from './usecases/supply/deploy-token.js';
import { applyLedgerStatus } from './usecases/track/apply-ledger-status.js';
import type { WriterLink } from './writer/writer-link.js';

/** Satoshis the devnet's genesis coinbase pays the funding key: 100 coins. */
const DEVNET_GENESIS_SATOSHIS = 10_000_000_000n;

export interface Parts {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: Db;
  readonly ledger: Ledger;
  readonly devnet: Devnet | null;
  readonly arc: ArcLedger | null;
  readonly keys: OperatorKeys;
  readonly masterKey: Uint8Array;
  readonly token: TokenSettings;
  readonly ctx: ServiceContext;
  /** The api role's context (the same parts, with the submission pipeline and broadcast queue); null without the api role. */
  readonly api: ApiContext | null;
  /** The service's Prometheus metrics (the ledger above is timed into them). */
  readonly metrics: ServiceMetrics;
  /** This process's committer of submissions (api and writer processes; drained at the stop). */
  readonly committer: SubmissionCommitter | null;
  /** An api process's way to the deployment's writer (PostgreSQL, when it does not run the writer itself). */
  readonly writerLink: WriterLink | null;
  /** This process's instance identity: the owner of its leases, the same after a restart. */
  readonly identity: InstanceIdentity;
}

/** The api role's context of parts composed with the api role; a start without it is refused here, once. */
export function apiContextOf(parts: Pick<Parts, 'api'>): ApiContext {
  if (parts.api === null)
    throw new Error('the api role needs the api context: compose the parts with the api role');
  return parts.api;
}

export async function composeParts(
  config: Config,
  logger: Logger = pino({ level: config.logLevel }),
): Promise<Parts> {
  // The whole configuration is checked before anything is opened or written (loadConfig did
  // it too; a Config built another way is checked here). Production never writes key files.
  const problems = [
    ...operatorKeyProblems(config),
    ...fundingLeaseProblems(config),
    ...writerProblems(config),
    ...productionProblems(config),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  const production = config.env === 'production';
  if (!production) mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Keys made at a first start are written only once the database has not refused them (a
  // token deployed with other keys, another master key): a refused start writes nothing.
  const keyFile = config.approverKey !== undefined ? null : readOrMakeKeyFile(config.dataDir);
  const keys = keyFile?.keys ?? keysFromConfig(config);
  const masterFile = config.masterKey !== undefined ? null : readOrMakeMasterKey(config.dataDir);
  const masterKey = masterFile?.key ?? masterKeyFromEnv(config.masterKey ?? '');
  const masterSource =
    masterFile === null
      ? 'from the configuration: TOKENPROXY_MASTER_KEY'
      : join(config.dataDir, MASTER_KEY_FILE);
  if (keyFile === null) logger.info({ step: 'keys' }, 'operator keys from the configuration');
  else
    logger.info(
      { step: 'keys', file: join(config.dataDir, 'keys.json') },
      keyFile.existed
        ? 'operator keys loaded'
        : 'operator keys made (written once the database accepts them)',
    );
  const addresses = addressesOf(keys);
  // Progress of a start, first start above all (~20 s on the embedded default: the database,
  // the keys, the deploy, the pool fill), as log records: stdout stays JSON.
  logger.info(
    { step: 'database', database: config.databaseUrl ? 'postgresql' : 'pglite', dataDir: config.dataDir },
    'opening the database and applying migrations',
  );
  const db = config.databaseUrl
    ? await openPostgresDb(config.databaseUrl)
    : await openPgliteDb(config.dataDir);
  const closers: (() => Promise<void>)[] = [() => db.close()];
  try {
    const { applied } = await migrate(db);
    logger.info({ step: 'database', migrationsApplied: applied }, 'database ready');
    // PGlite has one user, this process: leases an earlier run held outlived it.
    if (db.dialect === 'pglite') await releaseAllFundingLeases(db);
    // A token deployed with other keys: refuse before the ledger is opened (a devnet would
    // first complain of its genesis, a real ledger would be asked for nothing).
    const recorded = await loadTokenSettings(db);
    if (recorded !== null) checkKeysDeployed(recorded, addresses);
    await checkMasterKey(db, masterKey, masterSource, new Date());
    // The data folder is this process's alone (its lock): what save writes is what was checked.
    keyFile?.save();
    masterFile?.save();
    if (keyFile?.existed === false)
      logger.info({ step: 'keys', file: join(config.dataDir, 'keys.json') }, 'operator keys created');
    // Refused while another live process holds the name (two would take each other's leases).
    const identity = await claimInstanceIdentity({
      registry: instanceRegistryOf(db),
      config,
      log: logger,
      now: () => new Date(),
    });
    closers.unshift(() => identity.release());
    const feeRate = BigInt(config.feeRateSatPerKb);

    let devnet: Devnet | null = null;
    let arc: ArcLedger | null = null;
    let ledger: Ledger;
    if (config.arcUrl) {
      const callbacks =
        config.arcCallbackToken !== undefined && config.publicBaseUrl !== undefined
          ? {
              callbackUrl: `${config.publicBaseUrl.replace(/\/+$/, '')}${ARC_CALLBACK_PATH}`,
              callbackToken: config.arcCallbackToken,
            }
          : {};
      arc = createArcLedger({
        url: config.arcUrl,
        ...(config.arcApiKey !== undefined && { apiKey: config.arcApiKey }),
        ...(config.blockHeadersUrl !== undefined && { tipUrl: config.blockHeadersUrl }),
        ...(config.blockHeadersApiKey !== undefined && { tipApiKey: config.blockHeadersApiKey }),
        ...callbacks,
      });
      ledger = arc;
    } else {
      devnet = await createDevnet({
        dataDir: join(config.dataDir, 'devnet'),
        genesis: [
          {
            lockingScript: buildP2pkhScript(hash160(publicKeyOf(keys.funding))),
            satoshis: DEVNET_GENESIS_SATOSHIS,
          },
        ],
        blockIntervalMs: config.blockIntervalMs,
        feeRateSatPerKb: feeRate,
        onError: (err) => logger.error({ err }, 'devnet miner failed'),
      });
      ledger = devnet;
    }
    closers.unshift(() => ledger.close());
    const metrics = createServiceMetrics();
    ledger = instrumentLedger(ledger, metrics);

    const now = () => new Date();
    const newId = () => uuidv7();
    logger.info(
      { step: 'token', ledger: devnet !== null ? 'devnet' : 'arc' },
      'loading the token (deployed once, at first start)',
    );
    // Deploys the token on first start (once, even when several instances start at once).
    const loaded = await loadOrDeployToken(
      { db, ledger, keys, addresses, feeRate, now, newId },
      { supply: BigInt(config.tokenSupply), symbol: config.tokenSymbol, icon: '', decimals: 5 },
      () =>
        devnet !== null
          ? devnetFundingCoin(devnet, keys.funding)
          : fundingCoinOf(config.genesisFunding, addresses.fundingAddress),
    );
    const token = loaded.settings;
    // Deployed meanwhile by another instance (several starting at once): the same check.
    if (!loaded.deployed) checkKeysDeployed(token, addresses);
    const deployed = loaded.deployed ? token.tokenId.split('_')[0]! : null;
    if (deployed !== null) {
      if (devnet !== null) await devnet.mine(1);
      logger.info({ step: 'token', tokenId: token.tokenId }, 'token deployed');
    }
    const base: ServiceContext = {
      db,
      ledger,
      token: tokenConfigOf(token, config),
      keys: { approver: keys.approver, funding: keys.funding },
      now,
      newId,
      feeRate: cachedFeeRate(ledger, config.feeRateCacheMs),
      tracker: {
        pollIntervalMs: config.trackerPollMs ?? (config.arcUrl ? 30_000 : 2_000),
        finalConfirmations: config.finalConfirmations,
        firstLookAfterMs: config.trackerFirstLookMs,
      },
      log: logger,
      onTransition: ticketTimings(metrics),
      controls: {
        limits: {
          perTransfer: config.transferLimit === undefined ? null : BigInt(config.transferLimit),
          perAddressPerDay:
            config.dailyLimitPerAddress === undefined ? null : BigInt(config.dailyLimitPerAddress),
        },
        screening:
          config.screeningUrl === undefined
            ? null
            : {
                url: config.screeningUrl,
                timeoutMs: config.screeningTimeoutMs,
                onTimeout: config.screeningOnTimeout,
              },
        counted: controlMetrics(metrics.registry),
      },
    };
    const { committer, writerLink, api } = await composeWritePath({
      config,
      db,
      logger,
      metrics,
      base,
      approverKey: keys.approver,
      fundingOwner: identity.leaseOwner('funding'),
      now,
      closers,
    });
    const ctx: ServiceContext = api ?? base;
    // The funding leases an earlier run of this instance left are back before it serves.
    await api?.submissions.funding.started();
    // Record what the ledger already says of a fresh deploy (mined at once on the devnet).
    if (deployed !== null) await applyLedgerStatus(ctx, deployed, { status: await ledger.status(deployed) });
    return {
      config,
      logger,
      db,
      ledger,
      devnet,
      arc,
      keys,
      masterKey,
      token,
      ctx,
      api,
      metrics,
      committer,
      writerLink,
      identity,
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => undefined);
    throw err;
  }
}

export function tokenConfigOf(token: TokenSettings, config: Config): TokenConfig {
  return {
    tokenId: token.tokenId,
    approver: new Uint8Array(Buffer.from(token.approver, 'hex')),
    decimals: token.decimals,
    symbol: token.symbol,
    icon: token.icon,
    feeAddress: token.feeAddress,
    burnAddress: token.burnAddress,
    mintAddress: token.mintAddress,
    feeTiers: DEFAULT_FEE_TIERS,
    limits: {
      maxTxBytes: config.maxTxBytes,
      maxInputs: config.maxInputs,
      maxOutputs: config.maxOutputs,
      maxDataBytes: 512,
    },
  };
}

/** The operator's named coin for the first deploy on a real ledger (`<txid>_<vout>:<satoshis>`). */
function fundingCoinOf(text: string | undefined, fundingAddress: string): FundingCoin {
  if (text === undefined) {
    throw new Error(
      `no token is recorded in this database: pay a coin to the funding address ${fundingAddress} ` +
        'and name it to deploy the token from (genesisFunding, TOKENPROXY_GENESIS_FUNDING=<txid>_<vout>:<satoshis>), ' +
        'or restore a database',
    );
  }
  const [outpoint, satoshis] = text.split(':') as [string, string];
  const cut = outpoint.lastIndexOf('_');
  return { txid: outpoint.slice(0, cut), vout: Number(outpoint.slice(cut + 1)), satoshis: BigInt(satoshis) };
}
