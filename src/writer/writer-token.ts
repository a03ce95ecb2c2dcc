// The writer's bearer token (docs/adr/0007-one-writer-per-deployment.md): derived, never stored.
// Every process of a deployment holds the approver key (api processes cosign with it); the
// token is an HMAC of the writer's instance id under that key, so the registry row in `settings`
// carries only the instance id and the token's hash. Reading the database is not enough to
// call the writer; holding the approver key is.
import { createHash, createHmac } from 'node:crypto';

const PURPOSE = 'tokenproxy writer token v1\0';

/** The token callers of writer `instance` present. */
export function writerToken(approverKey: Uint8Array, instance: string): string {
  return createHmac('sha256', approverKey).update(`${PURPOSE}${instance}`, 'utf8').digest('base64url');
}

/** What the registry keeps of a token: its SHA-256, hex (a check that both ends derived the same). */
export function writerTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
