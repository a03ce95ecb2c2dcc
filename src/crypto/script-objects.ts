// @bsv/sdk script objects over bytes we already hold, without copying or parsing them
// (the sdk parses chunks lazily; sighash and our fast paths only need the bytes).
import { LockingScript, UnlockingScript } from '@bsv/sdk';

export function lockingScriptOf(bytes: Uint8Array): LockingScript {
  return new LockingScript([], bytes, undefined, false);
}

export function unlockingScriptOf(bytes: Uint8Array): UnlockingScript {
  return new UnlockingScript([], bytes, undefined, false);
}
