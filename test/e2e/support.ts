// End-to-end support: a real tokenproxy (embedded default: PGlite + devnet) on a real port in
// a fresh data folder, and the reference client pointed at it by rewriting its base URL.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { ADMIN_KEY_FILE, type RunningService, startService } from '../../src/service.js';
import { checkAnswer } from './openapi-answers.js';

export const SANDBOX_URL = 'https://sandbox-proxy-api.mnee.net';

export interface TestService {
  readonly service: RunningService;
  readonly url: string;
  readonly adminKey: string;
  readonly dataDir: string;
  stop(): Promise<void>;
}

export async function startTestService(flags: readonly string[] = []): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-e2e-'));
  const config = loadConfig({
    argv: ['--data-dir', dataDir, '--port', '0', '--block-interval-ms', '0', '--log-level', 'warn', ...flags],
    env: {},
  });
  const service = await startService(config);
  const adminKey = readFileSync(join(dataDir, ADMIN_KEY_FILE), 'utf8').trim();
  return {
    service,
    url: service.url!,
    adminKey,
    dataDir,
    async stop() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
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
