// Request validation with TypeBox (no Ajv): bodies are checked as sent (no type coercion),
// query strings, path parameters and headers are strings converted strictly by the schema
// ("1.5", "", "0x10" are not integers: out of range is a 400, never silently clamped).
// Defaults declared in schemas are applied to every part.
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

export type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

export interface ValidationIssue {
  /** Where the value came from: body, query, path or header. */
  readonly in: 'body' | 'query' | 'path' | 'header';
  /** The field, e.g. `page`, `rawtx`, `[0]`, `outputs[1].amt`; empty for the whole part. */
  readonly name: string;
  readonly reason: string;
}

interface RawIssue {
  readonly keyword?: string;
  readonly instancePath?: string;
  readonly message?: string;
  readonly params?: Record<string, unknown>;
}

const INTEGER = /^-?\d{1,16}$/;
const NUMBER = /^-?\d{1,16}(\.\d{1,16})?$/;

function typesOf(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as { type?: unknown; anyOf?: unknown; oneOf?: unknown; const?: unknown };
  const out: string[] = [];
  const restricted = s.const !== undefined || Array.isArray((s as { enum?: unknown }).enum);
  const own = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type : [];
  for (const t of own) {
    // a string const or enum is not "any string": a number may still be meant
    if (typeof t === 'string') out.push(t === 'string' && restricted ? 'string-literal' : t);
  }
  for (const list of [s.anyOf, s.oneOf]) {
    if (Array.isArray(list)) for (const member of list) out.push(...typesOf(member));
  }
  if (typeof s.const === 'number') out.push('number');
  if (typeof s.const === 'boolean') out.push('boolean');
  return out;
}

/** Converts one query/path/header string by the types its schema allows; leaves it alone otherwise. */
export function convertScalar(schema: unknown, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const types = typesOf(schema);
  if (types.includes('string')) return raw;
  if (types.includes('integer') && INTEGER.test(raw)) {
    const n = Number(raw);
    if (Number.isSafeInteger(n)) return n;
  }
  if (types.includes('number') && NUMBER.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  if (types.includes('null') && raw === '') return null;
  return raw;
}

/** Converts the top-level properties of a string map (query, params, headers) by the schema. */
export function convertStringMap(schema: unknown, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (properties === undefined) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [name, propertySchema] of Object.entries(properties)) {
    const raw = out[name];
    if (raw === undefined) continue;
    const isArray = typesOf(propertySchema).includes('array');
    if (isArray) {
      const items = (propertySchema as { items?: unknown }).items;
      const list = Array.isArray(raw) ? raw : [raw];
      out[name] = list.map((item) => convertScalar(items, item));
    } else {
      out[name] = convertScalar(propertySchema, raw);
    }
  }
  return out;
}

/** Fastify validator compiler over TypeBox: set with `app.setValidatorCompiler(typeboxValidatorCompiler)`. */
export const typeboxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const validator = Compile(schema);
  const converts = httpPart !== 'body';
  return (input: unknown) => {
    const value = validator.Default(converts ? convertStringMap(schema, input) : input);
    if (validator.Check(value)) return { value };
    return { error: validator.Errors(value) as unknown as Error };
  };
};

const PART_NAMES: Record<HttpPart, ValidationIssue['in']> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** `/outputs/1/amt` -> `outputs[1].amt`; `/0` -> `[0]`. */
export function formatInstancePath(instancePath: string): string {
  let out = '';
  for (const segment of instancePath.split('/').slice(1)) {
    const name = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(name)) out += `[${name}]`;
    else out += out === '' ? name : `.${name}`;
  }
  return out;
}

function join(base: string, property: string): string {
  return base === '' ? property : `${base}.${property}`;
}

function toIssue(part: ValidationIssue['in'], raw: RawIssue): ValidationIssue {
  const base = formatInstancePath(raw.instancePath ?? '');
  const params = raw.params ?? {};
  switch (raw.keyword) {
    case 'required': {
      const missing = params.requiredProperties ?? params.missingProperty;
      const names = Array.isArray(missing) ? missing.map(String) : [String(missing)];
      return { in: part, name: join(base, names[0] ?? ''), reason: 'is required' };
    }
    case 'additionalProperties': {
      const extra = params.additionalProperties;
      const names = Array.isArray(extra) ? extra.map(String) : [String(extra)];
      return { in: part, name: join(base, names[0] ?? ''), reason: 'is not allowed' };
    }
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues.map(String) : [];
      return { in: part, name: base, reason: `must be one of ${allowed.join(', ')}` };
    }
    default:
      return { in: part, name: base, reason: raw.message ?? 'is invalid' };
  }
}

/** Turns validator errors (TypeBox or Ajv shaped) into issues naming the field. */
export function validationIssues(part: string | undefined, errors: readonly unknown[]): ValidationIssue[] {
  const where = PART_NAMES[(part ?? 'body') as HttpPart] ?? 'body';
  return errors.slice(0, 10).map((e) => toIssue(where, (e ?? {}) as RawIssue));
}

/** One sentence for `detail`, naming the first offending field. */
export function describeIssue(issue: ValidationIssue): string {
  switch (issue.in) {
    case 'query':
      return issue.name === ''
        ? `query string ${issue.reason}`
        : `query parameter '${issue.name}' ${issue.reason}`;
    case 'path':
      return issue.name === '' ? `path ${issue.reason}` : `path parameter '${issue.name}' ${issue.reason}`;
    case 'header':
      return issue.name === '' ? `headers ${issue.reason}` : `header '${issue.name}' ${issue.reason}`;
    default:
      return issue.name === '' ? `body ${issue.reason}` : `body field '${issue.name}' ${issue.reason}`;
  }
}
