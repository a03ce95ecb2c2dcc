// POST /v2/transfer's answer: JSON by default (what a client generated from the OpenAPI document
// parses), the bare ticket ID as text to the published clients, which send their key as
// `auth_token` and read the answer as text, and whatever an Accept naming one of the two asks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answersAsText } from '../../src/http/routes/transfer-routes.js';

describe('the form of the ticket answer', () => {
  it('JSON to a caller with its key in a header, with or without a catch-all Accept', () => {
    for (const accept of [undefined, '*/*', 'application/*'])
      assert.equal(answersAsText(accept, false), false);
  });

  it('text to the published clients (the key as auth_token, no Accept or */*)', () => {
    for (const accept of [undefined, '*/*']) assert.equal(answersAsText(accept, true), true);
  });

  it('an Accept that names one of the two decides', () => {
    assert.equal(answersAsText('application/json', true), false);
    assert.equal(answersAsText('text/plain', false), true);
    assert.equal(answersAsText('text/plain;q=0.9', false), true);
    // Both named: as if none was.
    assert.equal(answersAsText('application/json, text/plain', false), false);
    assert.equal(answersAsText('application/json, text/plain', true), true);
  });
});
