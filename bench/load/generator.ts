// The load generator: a fixed number of workers, each sending one request after another for a
// fixed time, spread round-robin over the targets. Four requests in five are reads in the
// reference client's shape (@mnee/ts-sdk: POST /v2/balance of several addresses, POST /v2/utxos
// paged, GET /v1/config, GET /v2/ticket, with `auth_token` in the query); the fifth is a
// transfer (POST /v2/transfer of a signed transaction), done when the ticket is accepted.
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';

export type Kind = 'read' | 'transfer';

export interface LoadPlan {
  readonly targets: readonly string[];
  readonly seconds: number;
  readonly concurrency: number;
  readonly apiKey: string;
  /** Groups of addresses a wallet would ask about at once. */
  readonly addressGroups: readonly (readonly string[])[];
  /** Signed transfers (base64), each sent once; when they run out the worker reads instead. */
  readonly transfers: string[];
  /** Instead of `transfers`: this one body every time (the baseline, which keeps no state). */
  readonly sameTransfer?: string;
  /** Ticket IDs to ask the status of; accepted transfers are added. */
  readonly ticketIds: string[];
}

export interface LoadResult {
  readonly seconds: number;
  readonly latencies: Record<Kind, number[]>;
  readonly errors: string[];
  /** Transfers due when none was left to send (a read was sent instead). */
  readonly starved: number;
}

const READS = ['balance', 'utxos', 'config', 'ticket'] as const;

export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const agent = new Agent({ connections: plan.concurrency, keepAliveTimeout: 30_000 });
  const latencies: Record<Kind, number[]> = { read: [], transfer: [] };
  const errors: string[] = [];
  let starved = 0;
  let next = 0;
  let target = 0;
  const auth = `auth_token=${encodeURIComponent(plan.apiKey)}`;

  const send = async (kind: Kind, method: 'GET' | 'POST', path: string, body?: string) => {
    const url = `${plan.targets[target++ % plan.targets.length]}${path}`;
    const started = performance.now();
    const res = await request(url, {
      dispatcher: agent,
      method,
      ...(body !== undefined && { body, headers: { 'content-type': 'application/json' } }),
    });
    const text = await res.body.text();
    const ms = performance.now() - started;
    if (res.statusCode !== 200) {
      errors.push(`${kind} ${method} ${path.split('?')[0]} ${res.statusCode} ${text.slice(0, 200)}`);
      return null;
    }
    latencies[kind].push(ms);
    return text;
  };

  const read = (n: number) => {
    const group = plan.addressGroups[n % plan.addressGroups.length]!;
    switch (READS[n % READS.length]!) {
      case 'balance':
        return send('read', 'POST', `/v2/balance?${auth}`, JSON.stringify(group));
      case 'utxos':
        return send('read', 'POST', `/v2/utxos?${auth}&page=${1 + (n % 3)}&size=10`, JSON.stringify(group));
      case 'config':
        return send('read', 'GET', `/v1/config?${auth}`);
      case 'ticket': {
        const id = plan.ticketIds[n % Math.max(1, plan.ticketIds.length)];
        if (id === undefined) return send('read', 'GET', `/v1/config?${auth}`);
        return send('read', 'GET', `/v2/ticket?ticketID=${id}&${auth}`);
      }
    }
  };

  const started = performance.now();
  const deadline = started + plan.seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const n = next++;
      if (n % 5 === 4) {
        const rawtx = plan.sameTransfer ?? plan.transfers.pop();
        if (rawtx !== undefined) {
          const ticket = await send('transfer', 'POST', `/v2/transfer?${auth}`, JSON.stringify({ rawtx }));
          if (ticket !== null && /^[0-9a-f-]{36}$/.test(ticket)) plan.ticketIds.push(ticket);
          continue;
        }
        starved++;
      }
      await read(n - Math.floor(n / 5));
    }
  };
  try {
    await Promise.all(Array.from({ length: plan.concurrency }, worker));
  } finally {
    await agent.close();
  }
  return { seconds: (performance.now() - started) / 1000, latencies, errors, starved };
}

/** The p-th percentile (0-100) of `values`, nearest rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
