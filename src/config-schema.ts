// The settings of the service, as one TypeBox schema: names, types, defaults, descriptions
// and `x-secret` (how describeConfig redacts a value). The configuration reference is
// generated from this file; env variables and flags derive from the names.
import { type Static, Type } from 'typebox';
import { APPROVAL_SETTINGS } from './config-approvals.js';
import { FUNDING_SETTINGS } from './config-funding.js';
import { InstanceNameSetting } from './config-instance.js';
import { RATE_LIMIT_SETTINGS } from './config-rate-limits.js';
import { SUBSCRIPTION_SETTINGS } from './config-subscriptions.js';

const Url = (description: string, secret?: 'password') =>
  Type.Optional(
    Type.String({
      pattern: '^[a-z][a-z0-9+.-]*://\\S+$',
      description,
      ...(secret ? { 'x-secret': secret } : {}),
    }),
  );
const SecretKey = (description: string) =>
  Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description, 'x-secret': 'value' }));
const Count = (def: number, description: string) => Type.Integer({ minimum: 1, default: def, description });

export const ROLES = ['api', 'tracker', 'deliverer', 'devnet', 'writer'] as const;
/** What a process runs when no roles are named: everything but the writer, which only a deployment of several api processes on PostgreSQL needs. */
export const DEFAULT_ROLES = ['api', 'tracker', 'deliverer', 'devnet'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const ConfigSchema = Type.Object(
  {
    env: Type.Enum(['sandbox', 'production'], { default: 'sandbox', description: 'Environment served.' }),
    host: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Address the HTTP server binds.' }),
    port: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 3000,
      description: 'HTTP port (0: any free port).',
    }),
    instanceName: InstanceNameSetting,
    dataDir: Type.String({
      minLength: 1,
      default: './.tokenproxy',
      description: 'Folder of PGlite and the devnet.',
    }),
    databaseUrl: Url('PostgreSQL URL (postgres://...); absent: PGlite in dataDir.', 'password'),
    arcUrl: Url('Base URL of the ARC ledger API; absent: the embedded devnet.'),
    arcApiKey: Type.Optional(
      Type.String({ minLength: 1, description: 'Bearer token for ARC.', 'x-secret': 'value' }),
    ),
    blockHeadersUrl: Url(
      "Base URL of a Block Headers Service (the one ARC uses) asked for the chain tip (GET /api/v1/chain/tip/longest); absent: the ARC URL (the devnet's ARC API answers it).",
    ),
    blockHeadersApiKey: Type.Optional(
      Type.String({
        minLength: 1,
        description: "Bearer token for the Block Headers Service; absent: ARC's.",
        'x-secret': 'value',
      }),
    ),
    arcCallbackToken: Type.Optional(
      Type.String({
        minLength: 16,
        description: 'Token ARC sends back on callbacks (needs publicBaseUrl); absent: polling only.',
        'x-secret': 'value',
      }),
    ),
    redisUrl: Url('Redis URL: rate limits shared between instances; absent: in-memory limits.', 'password'),
    roles: Type.Array(Type.Enum([...ROLES]), {
      minItems: 1,
      uniqueItems: true,
      default: [...DEFAULT_ROLES],
      description:
        "Roles this process runs (comma-separated in env and flags). 'writer' (PostgreSQL only, one per deployment) writes every api process's transfers and broadcast answers in shared batches (docs/adr/0007-one-writer-per-deployment.md); it is not run by default.",
    }),
    writerHost: Type.String({
      minLength: 1,
      default: '127.0.0.1',
      description:
        "Address the writer role's internal server binds, and that api processes are given to reach it (loopback by default; another address is this explicit setting. Callers present a token derived from the approver key; the database holds only its hash).",
    }),
    writerPort: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 0,
      description:
        "The writer role's internal port (0: any free port; api processes find it in the database).",
    }),
    blockIntervalMs: Type.Integer({
      minimum: 0,
      default: 10_000,
      description: 'Devnet block interval (0: on command only).',
    }),
    feeRateSatPerKb: Type.Integer({
      minimum: 0,
      default: 100,
      description: 'Network fee rate, satoshis per 1000 bytes.',
    }),
    bodyLimit: Type.Integer({
      minimum: 1024,
      default: 1_048_576,
      description: 'Maximum request body, bytes.',
    }),
    headersTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 10_000,
      description:
        "A request's headers must have arrived within this long of its first byte, ms; else 408 and the connection is closed (slow-loris headers).",
    }),
    requestTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 30_000,
      description:
        'A whole request, headers and body, must have arrived within this long, ms; else 408 and the connection is closed (slow bodies).',
    }),
    idleTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 60_000,
      description:
        'A connection on which nothing is read or written for this long is closed, ms (also a reader that stalls a long answer).',
    }),
    keepAliveTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 5_000,
      description: 'How long an idle keep-alive connection is kept between requests, ms.',
    }),
    maxAddresses: Count(1000, 'Addresses per request.'),
    anonymousMaxRecords: Count(
      5_000,
      'Records one anonymous request is answered at most (POST /v1/sync, /v2/history): the first of the order asked; it pages on with `from`. With a key, POST /v1/sync is not bounded (limit 0 is all, streamed) and /v2/history answers at most 100,000 records a request.',
    ),
    maxTxBytes: Count(100_000, 'Raw transaction size, bytes.'),
    maxInputs: Count(100, 'Inputs per transfer (and per transaction posted to /v2/parse).'),
    maxOutputs: Count(100, 'Outputs per transfer.'),
    transferLimit: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,19}$',
        description:
          "Issuer's limit: most a wallet's transfer may send to others, atomic units (TRANSFER_LIMIT_EXCEEDED); absent: none.",
      }),
    ),
    dailyLimitPerAddress: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,19}$',
        description:
          "Issuer's limit: most an address may send to others in a UTC day, atomic units (DAILY_LIMIT_EXCEEDED); absent: none.",
      }),
    ),
    screeningUrl: Url(
      'Screening service asked before each cosignature (POST: parties and amounts; answers allow or deny with a reason); absent: no screening.',
    ),
    screeningTimeoutMs: Type.Integer({
      minimum: 50,
      maximum: 30_000,
      default: 2_000,
      description: 'Deadline of one screening request, milliseconds.',
    }),
    screeningOnTimeout: Type.Enum(['refuse', 'allow'], {
      default: 'refuse',
      description:
        'What a screening timeout or failure means: refuse the transfer (SCREENING_UNAVAILABLE) or allow it (logged and counted).',
    }),
    anonymousRead: Type.Boolean({ default: true, description: 'Allow read endpoints without an API key.' }),
    anonymousTokens: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        description:
          "Well-known public tokens read as no key (anonymous callers), e.g. the reference client's built-in defaults; absent: the client's sandbox and production defaults in sandbox, none in production.",
      }),
    ),
    sandboxPublicSubmit: Type.Boolean({
      default: true,
      description:
        "In sandbox, the reference client's built-in sandbox token submits transfers (one shared principal, rate-limited per client address); production never accepts it.",
    }),
    faucetAmount: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 1_000_000,
      description: 'Atomic units the sandbox faucet (POST /v2/faucet) sends per grant.',
    }),
    faucetPerAddressPerDay: Count(3, 'Sandbox faucet grants per receiving address in any 24 hours.'),
    faucetPerClientPerDay: Count(
      10,
      'Sandbox faucet grants per client address (IP, IPv6 /64) in any 24 hours.',
    ),
    streamPollMs: Type.Integer({
      minimum: 10,
      maximum: 10_000,
      default: 200,
      description:
        "How often a process with live feed streams open (GET /v2/sync/stream) looks at the feed's stamp, ms (one look for all its streams).",
    }),
    streamHeartbeatMs: Type.Integer({
      minimum: 1000,
      default: 15_000,
      description: 'Heartbeat comment sent on every live feed stream, ms.',
    }),
    streamMaxPerKey: Count(20, 'Live feed streams open at once per API key, per instance.'),
    streamMaxPerClient: Count(
      20,
      'Live feed streams open at once per client address (IP, IPv6 /64), per instance.',
    ),
    corsOrigins: Type.Array(Type.String({ minLength: 1 }), {
      default: ['*'],
      description:
        "Origins browser wallets may call the public API from ('*': any; empty: no CORS). Never the admin or console routes.",
    }),
    ...RATE_LIMIT_SETTINGS,
    callbackTimeoutMs: Type.Integer({
      minimum: 1000,
      maximum: 30_000,
      default: 10_000,
      description: 'Deadline of one callback attempt (connect to last byte), milliseconds.',
    }),
    callbackConcurrency: Count(32, 'Callback attempts in flight at once, per deliverer.'),
    callbackPerReceiver: Count(8, 'Callback attempts in flight to one receiver origin, per deliverer.'),
    callbackAllow: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Hosts or CIDRs allowed as callback targets despite being private (sandbox and tests only).',
    }),
    publicBaseUrl: Url('Public base URL of the service, as clients reach it.'),
    trustProxy: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Addresses or CIDRs of trusted reverse proxies (empty: X-Forwarded-* ignored).',
    }),
    metricsToken: Type.Optional(
      Type.String({
        minLength: 16,
        description: 'Bearer token that may read /metrics (besides an admin key); absent: admin key only.',
        'x-secret': 'value',
      }),
    ),
    readinessRoundMs: Type.Integer({
      minimum: 1000,
      default: 60_000,
      description:
        'A tracker or deliverer that has finished no round of its loop for this long is not ready (/readyz answers 503, tokenproxy_role_ready 0), milliseconds.',
    }),
    stopTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 20_000,
      description:
        "How long an orderly stop (SIGTERM or SIGINT) may take before the process exits without finishing it (exit code 1; a second signal exits at once), milliseconds. Below the supervisor's own grace period (Kubernetes: 30 s).",
    }),
    logLevel: Type.Enum([...LOG_LEVELS], { default: 'info', description: 'Log level.' }),
    approverKey: SecretKey(
      'Approver private key (hex); absent: keys.json in dataDir (refused in production).',
    ),
    mintKey: SecretKey(
      'Mint (treasury) private key (hex); absent: keys.json in dataDir (refused in production).',
    ),
    feeKey: SecretKey('Fee address private key (hex); absent: keys.json in dataDir (refused in production).'),
    fundingKey: SecretKey(
      'Funding pool private key (hex); absent: keys.json in dataDir (refused in production).',
    ),
    masterKey: SecretKey(
      'Master key sealing secrets at rest (64 hex); absent: master.key in dataDir (refused in production).',
    ),
    genesisFunding: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}_[0-9]+:[1-9][0-9]*$',
        description:
          'A coin of the funding key to deploy the token from on a real ledger: <txid>_<vout>:<satoshis> (first start only).',
      }),
    ),
    trackerPollMs: Type.Optional(
      Type.Integer({
        minimum: 100,
        description:
          'How often the tracker polls: a BROADCASTING ticket, a MINED one through its block (on its own every 40 polls), a SUCCESS one when a block comes or as a canary (on its own every 10 polls); absent: 2000 on the devnet, 30000 on ARC.',
      }),
    ),
    trackerFirstLookMs: Type.Integer({
      minimum: 0,
      default: 5000,
      description:
        'How long after a transfer the tracker first looks at its ticket, should its broadcast not have settled it, ms.',
    }),
    finalConfirmations: Count(
      6,
      'Blocks on top of a mined ticket that make it final (no longer watched for reorgs).',
    ),
    feeRateCacheMs: Type.Integer({
      minimum: 0,
      default: 60_000,
      description: "How long the ledger's fee rate is reused before it is asked again, ms.",
    }),
    ...FUNDING_SETTINGS,
    submissionBatchMax: Count(
      256,
      'Most transfers written in one database transaction (docs/adr/0002-batched-write-path.md).',
    ),
    submissionBatchesInFlight: Count(
      1,
      'Batches of transfers written at once, per process: with one, the next batch gathers what arrives meanwhile (fewer, larger batches: less CPU per transfer in PostgreSQL and here).',
    ),
    cosignThreads: Type.Integer({
      minimum: 0,
      maximum: 64,
      default: 1,
      description:
        'Worker threads that validate and cosign transfers, per api process; 0: the event loop does it. On 2 cores one thread gave the embedded service and an in-process devnet 3-16% more transfers/s, and changed nothing with PostgreSQL and ARC in processes of their own (docs/adr/0010-claims-by-primary-key.md).',
    }),
    submissionWindowMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'How long a lone transfer waits for company before its batch is written, ms; absent: 2 on PGlite, 4 on PostgreSQL.',
      }),
    ),
    idempotencyKeepMs: Type.Integer({
      minimum: 60_000,
      default: 86_400_000,
      description: 'How long the answer to an Idempotency-Key is kept (retries come within minutes), ms.',
    }),
    idempotencyPurgeMs: Type.Integer({
      minimum: 1000,
      default: 600_000,
      description:
        'How often the tracker deletes Idempotency-Key answers older than idempotencyKeepMs and folds the kept ticket and event counts of ended database connections, ms.',
    }),
    tokenSymbol: Type.String({
      minLength: 1,
      maxLength: 32,
      default: 'TPX',
      description: 'Symbol of a token deployed at first start.',
    }),
    tokenSupply: Type.String({
      pattern: '^[1-9][0-9]{0,15}$',
      default: '1000000000000000',
      description: 'Supply (atomic units) of a token deployed at first start; at most 2^53-1.',
    }),
    ...APPROVAL_SETTINGS,
    ...SUBSCRIPTION_SETTINGS,
  },
  { additionalProperties: false },
);

export type Config = Readonly<Static<typeof ConfigSchema>>;
export type ConfigKey = keyof Static<typeof ConfigSchema>;
export const CONFIG_KEYS = Object.keys(ConfigSchema.properties) as ConfigKey[];

/** `feeRateSatPerKb` -> `TOKENPROXY_FEE_RATE_SAT_PER_KB`. */
export function envNameOf(key: ConfigKey): string {
  return `TOKENPROXY_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/** `feeRateSatPerKb` -> `fee-rate-sat-per-kb` (used as `--fee-rate-sat-per-kb`). */
export function flagNameOf(key: ConfigKey): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Conventional variable names also read (the TOKENPROXY_* name wins when both are set). */
export const ENV_ALIASES: Readonly<Partial<Record<ConfigKey, string>>> = {
  port: 'PORT',
  host: 'HOST',
  databaseUrl: 'DATABASE_URL',
  arcUrl: 'ARC_URL',
  arcApiKey: 'ARC_API_KEY',
  redisUrl: 'REDIS_URL',
};

/** How a secret setting is shown: `value` hides it all, `password` hides a URL's password. */
export function secretKindOf(key: ConfigKey): 'value' | 'password' | undefined {
  const kind = (ConfigSchema.properties[key] as { 'x-secret'?: unknown })['x-secret'];
  return kind === 'value' || kind === 'password' ? kind : undefined;
}
