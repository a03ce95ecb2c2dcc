// Well-known public tokens: the reference client (@mnee/ts-sdk, src/constants.ts) sends a
// built-in token for its environment when it is given no `apiKey`. They are public (in the
// client's published source), so they identify no one: the service reads them as no key,
// an anonymous caller, when the operator lists them (config `anonymousTokens`).
import type { Config } from '../config.js';
import type { ApiKeyPrincipal } from './plugins/auth.js';

/** The reference client's defaults: PUBLIC_SANDBOX_MNEE_API_TOKEN and PUBLIC_PROD_MNEE_API_TOKEN. */
export const REFERENCE_CLIENT_TOKENS = {
  sandbox: '54f1fd1688ba66a58a67675b82feb93e',
  production: '92982ec1c0975f31979da515d46bae9f',
} as const;

/** The tokens read as anonymous: the configured list, else both client defaults in sandbox. */
export function anonymousTokensOf(config: Pick<Config, 'env' | 'anonymousTokens'>): ReadonlySet<string> {
  if (config.anonymousTokens !== undefined) return new Set(config.anonymousTokens);
  if (config.env === 'production') return new Set();
  return new Set([REFERENCE_CLIENT_TOKENS.sandbox, REFERENCE_CLIENT_TOKENS.production]);
}

/** The principal the reference client's sandbox default stands for when it may submit. */
export const SANDBOX_PUBLIC_PRINCIPAL: ApiKeyPrincipal = {
  id: 'public:sandbox',
  name: "the reference client's sandbox default token",
  scopes: ['read', 'submit'],
  shared: true,
};

/**
 * Tokens that stand for a shared principal: in sandbox (never production) with
 * `sandboxPublicSubmit` on, the client's sandbox default submits transfers, as the public
 * sandbox of the API accepts it, so `new Mnee({ environment: 'sandbox' })` transfers with no key
 * made by hand. It then is no anonymous token, whatever `anonymousTokens` says.
 */
export function publicPrincipalsOf(
  config: Partial<Pick<Config, 'env' | 'sandboxPublicSubmit'>>,
): ReadonlyMap<string, ApiKeyPrincipal> {
  if ((config.env ?? 'sandbox') === 'production' || config.sandboxPublicSubmit === false) return new Map();
  return new Map([[REFERENCE_CLIENT_TOKENS.sandbox, SANDBOX_PUBLIC_PRINCIPAL]]);
}
