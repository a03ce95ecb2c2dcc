// One HTTP exchange with ARC, as the client (arc-http-client.ts) needs it: method, URL,
// headers, an optional text body and a signal that cuts it; back come the status, the
// Retry-After header and the body as text.
//
// The service's transport is undici's `request` on an Agent of the client's own: about a third
// of the CPU of a `fetch` per exchange (126 vs 390-430 µs per status GET on a 2-core machine:
// docs/adr/0012-bounded-scans-and-cheap-edges.md), which counts because the tracker asks ARC about each ticket that no callback
// settled. `fetch` stays available (tests inject one to play ARC).
import { Agent, request } from 'undici';

export interface ArcExchange {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal: AbortSignal;
}

export interface ArcAnswer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly text: string;
}

export interface ArcTransport {
  send(exchange: ArcExchange): Promise<ArcAnswer>;
  /** Lets go of its connections (after the exchanges under way were cut). */
  close(): Promise<void>;
}

/** undici's request on an Agent of its own (keep-alive connections to ARC). */
export function undiciTransport(): ArcTransport {
  const agent = new Agent();
  return {
    async send({ method, url, headers, body, signal }) {
      const res = await request(url, {
        method,
        headers,
        ...(body !== undefined && { body }),
        signal,
        dispatcher: agent,
      });
      const text = await res.body.text();
      const retryAfter = res.headers['retry-after'];
      return {
        status: res.statusCode,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : (retryAfter?.[0] ?? null),
        text,
      };
    },
    close: () => agent.close(),
  };
}

/** A fetch function (the global one, or a test's stand-in for ARC). */
export function fetchTransport(fetchFn: typeof fetch): ArcTransport {
  return {
    async send({ method, url, headers, body, signal }) {
      const res = await fetchFn(url, { method, headers, ...(body !== undefined && { body }), signal });
      const text = await res.text();
      return { status: res.status, retryAfter: res.headers.get('retry-after'), text };
    },
    close: async () => undefined,
  };
}
