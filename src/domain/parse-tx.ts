// The Parse response (spec 2.7), computed exactly as the reference client's `parseTx` /
// `parseTxFromRawTx` (@mnee/ts-sdk 1.1.2: processTransactionInputs/Outputs,
// determineTransactionType, validateTransaction, buildParseResponse) computes it, with every
// quirk: loose address reading, type precedence, hard-coded mint addresses, "deploy" whenever
// no input source is known. Only `environment` is the service's own. Amounts are exact bigint
// (the client's per-entry amounts are JS numbers from parseInt: equal within 2^53); an amount
// the client reads as NaN is null here (JSON null, as JSON.stringify(NaN)). Pure.

import {
  CLIENT_BUILTIN_MINT_ADDRESSES,
  type ClientChunk,
  type ClientCosign,
  type ClientTokenConfig,
  clientChunks,
  clientCosign,
  clientInscriptionJson,
  clientParseInt,
  clientScriptBytes,
  jsonField,
  truthy,
} from './client-script-reading.js';
import { type ClientTransaction, readClientTransaction } from './client-transaction.js';
import { DomainError } from './domain-error.js';
import type {
  AddressAmount,
  Environment,
  ParseRaw,
  ParseResponse,
  TokenData,
  TxOperation,
} from './parse-response.js';
import type { SourceOutputs } from './parse-source-outputs.js';
import { validateLikeClient } from './parse-tx-validity.js';
import { toHex } from './script-chunks.js';

interface ProcessedEntry {
  readonly address: string | undefined;
  readonly amount: bigint | null;
  readonly satoshis: bigint;
  readonly inscription: unknown;
}

interface ProcessedSide {
  readonly entries: readonly ProcessedEntry[];
  readonly total: bigint;
  readonly type: TxOperation | undefined;
}

const UNKNOWN_INPUT: ProcessedEntry = { address: undefined, amount: 0n, satoshis: 0n, inscription: null };

/**
 * Parses a raw transaction as the client does.
 * @throws DomainError INVALID_TX when the bytes are not a transaction, or where the client itself
 *   would fail on this transaction (it throws, e.g. on an inscription `amt` BigInt cannot read).
 */
export function parseTransaction(
  raw: Uint8Array,
  sourceOutputs: SourceOutputs,
  config: ClientTokenConfig,
  environment: Environment,
  options: { readonly includeRaw?: boolean } = {},
): ParseResponse {
  const tx = readClientTransaction(raw);
  try {
    return parseClientTransaction(tx, sourceOutputs, config, environment, options.includeRaw === true);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new DomainError('INVALID_TX', `the reference client cannot parse this transaction: ${reason}`);
  }
}

function parseClientTransaction(
  tx: ClientTransaction,
  sourceOutputs: SourceOutputs,
  config: ClientTokenConfig,
  environment: Environment,
  includeRaw: boolean,
): ParseResponse {
  const inputs = processInputs(tx, sourceOutputs, config);
  const outputs = processOutputs(tx, config);
  let type: TxOperation = outputs.type ?? inputs.type ?? 'transfer';
  if (type === 'transfer' && inputs.entries.some((e) => truthy(e.inscription) && isBuiltinMint(e.address))) {
    type = 'mint';
  }
  if (
    (type === 'transfer' || type === 'mint') &&
    outputs.entries.some((e) => jsonField(jsonField(e.inscription, 'metadata'), 'action') === 'redeem')
  ) {
    type = 'redeem';
  }
  if (inputs.entries.length > 0 && !inputs.entries.some((e) => truthy(e.inscription))) type = 'deploy';
  const isValid = validateLikeClient(tx, config) && (type === 'deploy' || inputs.total === outputs.total);
  const response: ParseResponse = {
    txid: tx.txid,
    environment,
    type,
    inputs: listed(inputs.entries),
    outputs: listed(outputs.entries),
    isValid,
    inputTotal: inputs.total.toString(),
    outputTotal: outputs.total.toString(),
  };
  return includeRaw ? { ...response, raw: rawPart(tx, inputs, outputs) } : response;
}

function processInputs(
  tx: ClientTransaction,
  sourceOutputs: SourceOutputs,
  config: ClientTokenConfig,
): ProcessedSide {
  const entries: ProcessedEntry[] = [];
  let total = 0n;
  let type: TxOperation | undefined;
  for (const input of tx.inputs) {
    const source = sourceOutputs.get(`${input.sourceTxid}_${input.sourceVout}`);
    if (!source) {
      entries.push(UNKNOWN_INPUT);
      continue;
    }
    const { entry, cosign } = processScript(clientChunks(source.lockingScript), source.satoshis);
    entries.push(entry);
    if (truthy(entry.inscription) && cosign !== undefined) {
      total += BigInt(jsonField(entry.inscription, 'amt') as string);
      type ??= transactionType(entry.inscription, cosign.address, tx.txid, config);
    }
  }
  return { entries, total, type };
}

function processOutputs(tx: ClientTransaction, config: ClientTokenConfig): ProcessedSide {
  const entries: ProcessedEntry[] = [];
  let total = 0n;
  let type: TxOperation | undefined;
  for (const output of tx.outputs) {
    const { entry, cosign } = processScript(output.lockingScript, output.satoshis);
    entries.push(entry);
    if (truthy(entry.inscription) && cosign !== undefined) {
      total += BigInt(jsonField(entry.inscription, 'amt') as string);
      const t = transactionType(entry.inscription, cosign.address, tx.txid, config);
      if (t === 'burn' || t === 'deploy') type = t;
      else type ??= t;
    }
  }
  return { entries, total, type };
}

/** One input's source output or one output, as the client's ProcessedInput/Output. */
function processScript(
  script: readonly ClientChunk[],
  satoshis: bigint,
): { entry: ProcessedEntry; cosign: ClientCosign | undefined } {
  const cosign = clientCosign(script);
  const inscription = clientInscriptionJson(script);
  const amount = truthy(inscription) ? clientParseInt(jsonField(inscription, 'amt')) : 0n;
  return { entry: { address: cosign?.address, amount, satoshis, inscription }, cosign };
}

/** The client's determineTransactionType. */
function transactionType(
  inscription: unknown,
  address: string,
  txid: string,
  config: ClientTokenConfig,
): TxOperation {
  const op = jsonField(inscription, 'op');
  if (op === 'burn') return 'burn';
  if (op === 'deploy+mint' || address === config.mintAddress) {
    return txid === config.tokenId.split('_')[0] ? 'deploy' : 'mint';
  }
  return isBuiltinMint(address) ? 'mint' : 'transfer';
}

function isBuiltinMint(address: string | undefined): boolean {
  return address !== undefined && CLIENT_BUILTIN_MINT_ADDRESSES.includes(address);
}

function listed(entries: readonly ProcessedEntry[]): AddressAmount[] {
  return entries
    .filter((e) => truthy(e.inscription) && e.address)
    .map((e) => ({ address: e.address!, amount: e.amount }));
}

function tokenData(entry: ProcessedEntry | undefined): TokenData | undefined {
  return entry !== undefined && truthy(entry.inscription) ? { amount: entry.amount } : undefined;
}

function rawPart(tx: ClientTransaction, inputs: ProcessedSide, outputs: ProcessedSide): ParseRaw {
  return {
    txHex: toHex(tx.bytes),
    inputs: tx.inputs.map((input, i) => {
      const entry = inputs.entries[i];
      return {
        txid: input.sourceTxid,
        vout: input.sourceVout,
        scriptSig: toHex(clientScriptBytes(input.unlockingScript)),
        sequence: input.sequence || 0xffffffff,
        address: entry?.address,
        satoshis: entry?.satoshis || 0n,
        tokenData: tokenData(entry),
      };
    }),
    outputs: tx.outputs.map((output, i) => {
      const entry = outputs.entries[i];
      return {
        value: output.satoshis,
        scriptPubKey: toHex(clientScriptBytes(output.lockingScript)),
        address: entry?.address,
        tokenData: tokenData(entry),
      };
    }),
    version: tx.version,
    lockTime: tx.lockTime,
    size: tx.bytes.length,
    hash: tx.txid,
  };
}
