// Builds the HTTP frame for tests with an in-memory key list and a captured log.
import pino from 'pino';
import { type Config, loadConfig } from '../../src/config.js';
import { type AppDeps, type AppInstance, buildApp, type RoutePlugin } from '../../src/http/app.js';
import type { Readiness } from '../../src/http/health.js';
import { type InMemoryApiKey, InMemoryApiKeyVerifier } from '../support/in-memory-api-keys.js';

export const KEYS = {
  read: 'tp_read_0123456789abcdef',
  submit: 'tp_submit_0123456789abcdef',
  admin: 'tp_admin_0123456789abcdef',
  revoked: 'tp_revoked_0123456789abcdef',
} as const;

export const TEST_KEYS: readonly InMemoryApiKey[] = [
  { key: KEYS.read, id: 'k-read', name: 'reader', scopes: ['read'] },
  { key: KEYS.submit, id: 'k-submit', name: 'submitter', scopes: ['submit'] },
  { key: KEYS.admin, id: 'k-admin', name: 'operator', scopes: ['admin'] },
  { key: KEYS.revoked, id: 'k-revoked', name: 'old', scopes: ['admin'], revoked: true },
];

export interface TestApp {
  readonly app: AppInstance;
  readonly logs: string[];
  readonly verifier: InMemoryApiKeyVerifier;
  /** Parsed log lines. */
  records(): Record<string, unknown>[];
}

export interface TestAppOptions {
  readonly routes?: readonly RoutePlugin[];
  readonly config?: Partial<Record<keyof Config, string>>;
  readonly argv?: readonly string[];
  readonly readiness?: () => Promise<Readiness>;
  readonly deps?: Partial<AppDeps>;
}

export function testApp(options: TestAppOptions = {}): TestApp {
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(line) });
  const config = loadConfig({ argv: options.argv ?? [], env: {} });
  const verifier = new InMemoryApiKeyVerifier(TEST_KEYS);
  const app = buildApp({
    config,
    logger,
    apiKeys: verifier,
    readiness: options.readiness ?? (async () => ({ ready: true })),
    routes: options.routes ?? [],
    ...options.deps,
  });
  return {
    app,
    logs,
    verifier,
    records: () => logs.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

export const PROBLEM_KEYS = ['code', 'detail', 'message', 'status', 'title', 'type'];
