// Waiting for whichever of some events an emitter sends first, with the listeners taken off
// once it has: a signal among SIGINT and SIGTERM, a socket's drain or its close.
import type { EventEmitter } from 'node:events';

/** Resolves with the name of the first of `names` that `emitter` emits. */
export function firstEvent(emitter: EventEmitter, names: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    const listeners = names.map((name) => {
      const listener = () => {
        for (const [n, l] of listeners) emitter.off(n, l);
        resolve(name);
      };
      return [name, listener] as const;
    });
    for (const [n, l] of listeners) emitter.on(n, l);
  });
}
