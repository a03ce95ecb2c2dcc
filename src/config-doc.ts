// The configuration reference of docs/operations.md, generated from ConfigSchema: one row
// per setting with its env variable (and conventional alias), flag, default and
// description. `scripts/config-doc.mjs` rewrites the doc; a test fails when they differ.
import {
  CONFIG_KEYS,
  type ConfigKey,
  ConfigSchema,
  ENV_ALIASES,
  envNameOf,
  flagNameOf,
  secretKindOf,
} from './config-schema.js';

export const CONFIG_DOC_BEGIN =
  '<!-- config-reference:begin (generated from src/config-schema.ts by scripts/config-doc.mjs) -->';
export const CONFIG_DOC_END = '<!-- config-reference:end -->';

interface SchemaLike {
  readonly type?: unknown;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly description?: string;
  readonly items?: SchemaLike;
  readonly minimum?: number;
  readonly maximum?: number;
}

function typeOf(schema: SchemaLike): string {
  if (schema.enum !== undefined) return schema.enum.map((v) => `\`${String(v)}\``).join(' \\| ');
  if (schema.type === 'array') return `list of ${typeOf(schema.items ?? {})}`;
  if (schema.type === 'integer') {
    const range = [schema.minimum, schema.maximum].some((v) => v !== undefined)
      ? ` ${schema.minimum ?? ''}..${schema.maximum ?? ''}`
      : '';
    return `integer${range}`;
  }
  return String(schema.type ?? 'any');
}

function defaultOf(schema: SchemaLike): string {
  if (schema.default === undefined) return '';
  if (Array.isArray(schema.default))
    return schema.default.length === 0 ? '(none)' : `\`${schema.default.join(',')}\``;
  return `\`${String(schema.default)}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function row(key: ConfigKey): string {
  const schema = ConfigSchema.properties[key] as SchemaLike;
  const alias = ENV_ALIASES[key];
  const env = `\`${envNameOf(key)}\`${alias === undefined ? '' : ` (or \`${alias}\`)`}`;
  const secret = secretKindOf(key) === undefined ? '' : ' Secret: redacted in logs.';
  const description = cell(`${schema.description ?? ''}${secret}`);
  return `| \`${key}\` | ${env} | \`--${flagNameOf(key)}\` | ${typeOf(schema)} | ${defaultOf(schema)} | ${description} |`;
}

/** The generated table (without the markers). */
export function configReferenceMarkdown(): string {
  return [
    '| Setting | Environment | Flag | Type | Default | Description |',
    '|---|---|---|---|---|---|',
    ...CONFIG_KEYS.map(row),
  ].join('\n');
}

/** The document with the text between the markers replaced by the generated table. */
export function withConfigReference(doc: string): string {
  const begin = doc.indexOf(CONFIG_DOC_BEGIN);
  const end = doc.indexOf(CONFIG_DOC_END);
  if (begin < 0 || end < begin) throw new Error('the configuration reference markers are missing');
  return `${doc.slice(0, begin + CONFIG_DOC_BEGIN.length)}\n${configReferenceMarkdown()}\n${doc.slice(end)}`;
}
