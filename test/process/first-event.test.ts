// firstEvent: resolves with the first of the events named, and leaves no listener behind.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { firstEvent } from '../../src/process/first-event.js';

describe('firstEvent', () => {
  it('answers the first event sent and takes its listeners off', async () => {
    const emitter = new EventEmitter();
    const first = firstEvent(emitter, ['drain', 'close']);
    assert.equal(emitter.listenerCount('drain'), 1);
    emitter.emit('close');
    emitter.emit('drain');
    assert.equal(await first, 'close');
    assert.equal(emitter.listenerCount('drain') + emitter.listenerCount('close'), 0);
  });
});
