// End-to-end support: a real tokenproxy (embedded default: PGlite + devnet) on a real port in
// a fresh data folder, and the reference client pointed at it by rewriting its base URL.
import { after, before } from 'node:test';
import { type ServiceInTemp, startServiceIn } from '../support/service-in-temp.js';
import { checkAnswer } from './openapi-answers.js';

export const SANDBOX_URL = 'https://sandbox-proxy-api.mnee.net';

/** An end-to-end service: the embedded defaults with the api role, so `url` and `adminKey` are set. */
export type TestService = ServiceInTemp;

export function startTestService(flags: readonly string[] = []): Promise<TestService> {
  return startServiceIn('e2e', ['--log-level', 'warn', ...flags]);
}

/**
 * The suite's service, started in a `before` and stopped in an `after` registered where this is
 * called (first in the describe body: the suite's own `before` hooks find it started). Read its
 * fields inside hooks and tests.
 */
export function serviceForSuite(flags: readonly string[] = []): TestService {
  let started: TestService | undefined;
  before(async () => {
    started = await startTestService(flags);
  });
  after(async () => {
    await started?.stop();
  });
  const get = (): TestService => {
    if (started === undefined) throw new Error("the suite's service starts in its first before hook");
    return started;
  };
  return {
    get service() {
      return get().service;
    },
    get url() {
      return get().url;
    },
    get adminKey() {
      return get().adminKey;
    },
    get dataDir() {
      return get().dataDir;
    },
    stop: () => get().stop(),
  };
}

/**
 * Points the reference client (which hard-codes its base URL) at `baseUrl` until restored; its
 * answers are checked against the OpenAPI document.
 */
export function redirectClientTo(baseUrl: string): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!href.startsWith(SANDBOX_URL)) return original(input, init);
    const target = href.replace(SANDBOX_URL, baseUrl);
    return original(target, init).then(async (res) => {
      // Every answer the client reads matches the OpenAPI document (openapi-answers.ts).
      const url = new URL(target);
      const text = await res.clone().text();
      await checkAnswer(
        baseUrl,
        init?.method ?? 'GET',
        url.pathname + url.search,
        res.status,
        res.headers.get('content-type'),
        text,
      );
      return res;
    });
  };
  return () => {
    globalThis.fetch = original;
  };
}

export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  tries = 100,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
