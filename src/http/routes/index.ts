// The route index: every route plugin of the public, admin and console API, in registration
// order, each handed its deps from the service's parts (compose.ts). The api role builds the
// app with this list; a new resource's routes are added here.
import { parseCallbackAllow } from '../../callbacks/address-guard.js';
import type { Config } from '../../config.js';
import { addressesOf, type OperatorKeys } from '../../keys/operator-keys.js';
import type { ArcLedger } from '../../ledger/arc/arc-ledger.js';
import type { Devnet } from '../../ledger/devnet/devnet.js';
import type { ServiceMetrics } from '../../metrics/service-metrics.js';
import type { ApiContext } from '../../usecases/context.js';
import type { RoutePlugin } from '../app.js';
import { consolePageRoutes } from '../console/console-page-routes.js';
import { metricsRoutes } from '../metrics.js';
import type { ApiKeyVerifier } from '../plugins/auth.js';
import { adminRoutes } from './admin-routes.js';
import { allowanceRoutes } from './allowance-routes.js';
import { arcCallbackRoutes } from './arc-callback-routes.js';
import { consoleRoutes } from './console-routes.js';
import { consoleSearchRoutes } from './console-search-routes.js';
import { controlRoutes } from './control-routes.js';
import { deliveryRoutes } from './delivery-routes.js';
import { faucetRoutes } from './faucet-routes.js';
import { freezeRoutes } from './freeze-routes.js';
import { historyRoutes } from './history-routes.js';
import { keyRoutes } from './key-routes.js';
import { parseRoutes } from './parse-routes.js';
import { policyRoutes } from './policy-routes.js';
import { proposalRoutes } from './proposal-routes.js';
import { readRoutes } from './read-routes.js';
import { reconcileRoutes } from './reconcile-routes.js';
import type { RouteDeps } from './route-deps.js';
import { seizureRoutes } from './seizure-routes.js';
import { spvRoutes } from './spv-routes.js';
import { streamRoutes } from './stream-routes.js';
import { subscriptionEventRoutes } from './subscription-event-routes.js';
import { subscriptionRoutes } from './subscription-routes.js';
import { supplyRoutes } from './supply-routes.js';
import { transferRoutes } from './transfer-routes.js';

/** What the routes are built from: the service's parts (compose.ts Parts satisfies it). */
export interface RouteParts {
  readonly config: Pick<
    Config,
    | 'env'
    | 'maxAddresses'
    | 'anonymousMaxRecords'
    | 'metricsToken'
    | 'callbackAllow'
    | 'fundingPoolLowWater'
    | 'faucetAmount'
    | 'faucetPerAddressPerDay'
    | 'faucetPerClientPerDay'
    | 'streamPollMs'
    | 'streamHeartbeatMs'
    | 'streamMaxPerKey'
    | 'streamMaxPerClient'
    | 'proposalTtlMs'
    | 'proposalExecutionLeaseMs'
    | 'subscriptionMaxAddresses'
    | 'subscriptionsPerKey'
  >;
  /** The api role's context: routes that accept transfers submit through it. */
  readonly ctx: ApiContext;
  readonly masterKey: Uint8Array;
  readonly keys: OperatorKeys;
  readonly token: { readonly supply: string };
  readonly devnet: Devnet | null;
  readonly arc: ArcLedger | null;
  readonly metrics: ServiceMetrics;
}

/** The API keys the routes check and forget (a revocation takes effect at once). */
export interface RouteApiKeys extends ApiKeyVerifier {
  forget(): void;
}

/** Every route plugin, in the order the app registers them. */
export function routeIndex(parts: RouteParts, apiKeys: RouteApiKeys): RoutePlugin[] {
  const { config } = parts;
  const deps: RouteDeps = {
    ctx: parts.ctx,
    masterKey: parts.masterKey,
    environment: config.env,
    maxAddresses: config.maxAddresses,
    anonymousMaxRecords: config.anonymousMaxRecords,
    proposalTtlMs: config.proposalTtlMs,
    proposalExecutionLeaseMs: config.proposalExecutionLeaseMs,
  };
  const genesisSupply = BigInt(parts.token.supply);
  const { fundingAddress } = addressesOf(parts.keys);
  return [
    metricsRoutes({
      metrics: parts.metrics,
      apiKeys,
      ...(config.metricsToken !== undefined && { metricsToken: config.metricsToken }),
    }),
    readRoutes(deps),
    transferRoutes({ ...deps, callbackAllow: parseCallbackAllow(config.callbackAllow) }),
    deliveryRoutes(deps),
    historyRoutes(deps),
    streamRoutes({
      ...deps,
      pollMs: config.streamPollMs,
      heartbeatMs: config.streamHeartbeatMs,
      maxPerKey: config.streamMaxPerKey,
      maxPerClient: config.streamMaxPerClient,
    }),
    subscriptionRoutes({
      ...deps,
      callbackAllow: parseCallbackAllow(config.callbackAllow),
      subscriptionMaxAddresses: config.subscriptionMaxAddresses,
      subscriptionsPerKey: config.subscriptionsPerKey,
    }),
    subscriptionEventRoutes(deps),
    parseRoutes(deps),
    spvRoutes(deps),
    keyRoutes({ ...deps, forgetApiKeys: () => apiKeys.forget() }),
    adminRoutes({ ...deps, mintKey: parts.keys.mint, miner: parts.devnet, genesisSupply }),
    controlRoutes(deps),
    seizureRoutes({ ...deps, mintKey: parts.keys.mint }),
    proposalRoutes({ ...deps, mintKey: parts.keys.mint, forgetApiKeys: () => apiKeys.forget() }),
    policyRoutes(deps),
    allowanceRoutes(deps),
    supplyRoutes({
      ...deps,
      burnKeys: { mint: parts.keys.mint, fee: parts.keys.fee },
      fundingAddress,
      poolLowWater: config.fundingPoolLowWater,
    }),
    reconcileRoutes({ ...deps, devnet: parts.devnet, fundingAddress }),
    consoleRoutes({
      ...deps,
      genesisSupply,
      fundingAddress,
      poolLowWater: config.fundingPoolLowWater,
      devnet: parts.devnet,
    }),
    consoleSearchRoutes(deps),
    freezeRoutes(deps),
    consolePageRoutes(),
    faucetRoutes({
      ...deps,
      mintKey: parts.keys.mint,
      amount: BigInt(config.faucetAmount),
      perAddressPerDay: config.faucetPerAddressPerDay,
      perClientPerDay: config.faucetPerClientPerDay,
    }),
    ...(parts.arc === null ? [] : [arcCallbackRoutes(parts.arc)]),
  ];
}
