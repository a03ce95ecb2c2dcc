// The signing keys of callbacks, opened once: a sealed secret (a ticket's callback_secret or
// its API key's whsec_ secret) always opens to the same key under one master key, so the key
// of each sealed box is kept (the last 1,024) instead of decrypting it again for every event.
// A box that does not open is not kept: it is tried again, and fails again, each time.
import { openString } from '../crypto/secret-box.js';
import { signingKeyOf } from './signer.js';

export type SigningKey =
  | { readonly kind: 'key'; readonly key: Uint8Array | null }
  | { readonly kind: 'unreadable'; readonly error: unknown };

const NONE: SigningKey = { kind: 'key', key: null };
const KEPT = 1024;

export class SigningKeys {
  readonly #opened = new Map<string, SigningKey>();

  constructor(private readonly masterKey: Uint8Array) {}

  /** The key of a sealed secret; null key when there is none (the callback goes unsigned). */
  keyOf(sealed: Uint8Array | null): SigningKey {
    if (sealed === null) return NONE;
    const id = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength).toString('base64');
    const kept = this.#opened.get(id);
    if (kept !== undefined) return kept;
    let key: SigningKey;
    try {
      key = { kind: 'key', key: signingKeyOf(openString(this.masterKey, sealed)) };
    } catch (error) {
      return { kind: 'unreadable', error };
    }
    if (this.#opened.size >= KEPT) this.#opened.delete(this.#opened.keys().next().value!);
    this.#opened.set(id, key);
    return key;
  }
}
