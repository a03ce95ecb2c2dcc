// The chain tip on ARC, whose API has none: asked of the Block Headers Service ARC itself uses
// (GET /api/v1/chain/tip/longest), at tipUrl (default: the ARC URL, which the devnet's ARC API
// answers). Few retries and a short deadline: a status page waits for it.
import { type ChainTip, LedgerUnavailableError } from '../port.js';
import { ArcHttpClient, type ArcHttpOptions } from './arc-http-client.js';

const TIP_PATH = '/api/v1/chain/tip/longest';

/** The client the tip is asked with: the ledger's options, its own URL and key. */
export function headersClient(
  opts: ArcHttpOptions & { readonly tipUrl?: string; readonly tipApiKey?: string },
): ArcHttpClient {
  const key = opts.tipApiKey ?? opts.apiKey;
  return new ArcHttpClient({
    ...opts,
    url: opts.tipUrl ?? opts.url,
    ...(key !== undefined && { apiKey: key }),
    retries: Math.min(opts.retries ?? 1, 1),
    timeoutMs: Math.min(opts.timeoutMs ?? 5000, 5000),
  });
}

/** The tip, or LedgerUnavailableError saying what was answered and what to set. */
export async function headersTip(client: ArcHttpClient, baseUrl: string): Promise<ChainTip> {
  const reply = await client.request('GET', TIP_PATH);
  const tip = reply.status === 200 ? tipOf(reply.body) : null;
  if (tip !== null) return tip;
  const where = `${baseUrl.replace(/\/+$/, '')}${TIP_PATH}`;
  throw new LedgerUnavailableError(
    `the chain tip: GET ${where} answered ${reply.status}${reply.status === 200 ? ' without a height and hash' : ''}; ` +
      'ARC serves no tip of its own: set blockHeadersUrl (TOKENPROXY_BLOCK_HEADERS_URL) to a Block Headers Service',
  );
}

/**
 * A Block Headers Service's tip: `{height, header: {hash, creationTimestamp}}` (the time as Unix
 * seconds or an ISO date; 0 when absent). Null when the height or hash is missing.
 */
function tipOf(body: unknown): ChainTip | null {
  const b = (body ?? {}) as { height?: unknown; header?: { hash?: unknown; creationTimestamp?: unknown } };
  const hash = b.header?.hash;
  if (!isCount(b.height) || typeof hash !== 'string' || !/^[0-9a-f]{64}$/i.test(hash)) return null;
  const stamp = b.header?.creationTimestamp;
  const time =
    typeof stamp === 'number' && Number.isFinite(stamp)
      ? Math.floor(stamp > 1e12 ? stamp / 1000 : stamp)
      : typeof stamp === 'string' && Number.isFinite(Date.parse(stamp))
        ? Math.floor(Date.parse(stamp) / 1000)
        : 0;
  return { height: b.height, hash: hash.toLowerCase(), time };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
