import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import {
  convertScalar,
  convertStringMap,
  describeIssue,
  formatInstancePath,
  typeboxValidatorCompiler,
  validationIssues,
} from '../../src/http/validation.js';

const Int = Type.Integer();

describe('strict conversion of query strings', () => {
  it('converts only plain decimal integers', () => {
    assert.equal(convertScalar(Int, '42'), 42);
    assert.equal(convertScalar(Int, '-3'), -3);
    for (const raw of ['1.5', '', ' 2', '0x10', '1e3', 'abc', '99999999999999999']) {
      assert.equal(convertScalar(Int, raw), raw, JSON.stringify(raw));
    }
  });

  it('converts numbers, booleans, and leaves strings alone', () => {
    assert.equal(convertScalar(Type.Number(), '1.25'), 1.25);
    assert.equal(convertScalar(Type.Boolean(), 'true'), true);
    assert.equal(convertScalar(Type.Boolean(), 'yes'), 'yes');
    assert.equal(convertScalar(Type.String(), '12'), '12');
    assert.equal(convertScalar(Type.Union([Type.Integer(), Type.Literal('all')]), '7'), 7);
  });

  it('wraps single values for array properties', () => {
    const schema = Type.Object({ a: Type.Array(Type.Integer()), b: Type.Integer() });
    assert.deepEqual(convertStringMap(schema, { a: '1', b: '2' }), { a: [1], b: 2 });
    assert.deepEqual(convertStringMap(schema, { a: ['1', '2'] }), { a: [1, 2] });
  });
});

describe('the validator compiler', () => {
  it('applies defaults and converts the query, not the body', () => {
    const q = Type.Object({ page: Type.Integer({ minimum: 1, default: 1 }) });
    const query = typeboxValidatorCompiler({ schema: q, httpPart: 'querystring', method: 'GET', url: '/' });
    assert.deepEqual(query({}), { value: { page: 1 } });
    assert.deepEqual(query({ page: '4' }), { value: { page: 4 } });
    const body = typeboxValidatorCompiler({ schema: q, httpPart: 'body', method: 'POST', url: '/' });
    assert.ok('error' in (body({ page: '4' }) as object));
  });
});

describe('issue naming', () => {
  it('formats instance paths as field names', () => {
    assert.equal(formatInstancePath(''), '');
    assert.equal(formatInstancePath('/0'), '[0]');
    assert.equal(formatInstancePath('/outputs/1/amt'), 'outputs[1].amt');
    assert.equal(formatInstancePath('/a~1b'), 'a/b');
  });

  it('names missing properties and lists allowed values', () => {
    const [missing] = validationIssues('body', [
      { keyword: 'required', instancePath: '', params: { requiredProperties: ['rawtx'] } },
    ]);
    assert.deepEqual(missing, { in: 'body', name: 'rawtx', reason: 'is required' });
    const [order] = validationIssues('querystring', [
      { keyword: 'enum', instancePath: '/order', params: { allowedValues: ['asc', 'desc'] } },
    ]);
    assert.ok(order);
    assert.equal(describeIssue(order), "query parameter 'order' must be one of asc, desc");
    const [txid] = validationIssues('params', [
      { keyword: 'pattern', instancePath: '/txid', message: 'bad' },
    ]);
    assert.ok(txid);
    assert.equal(describeIssue(txid), "path parameter 'txid' bad");
  });
});
