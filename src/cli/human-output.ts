// What an admin command prints for a person on a terminal: its JSON answer as indented
// `name: value` lines, amounts as tokens. Scripts get the JSON itself (--json, or stdout not a
// terminal), which is the stable form; this one may change wording.

/** `{"atomic": "1250000", "tokens": "12.5"}` as the service writes amounts. */
function isAmount(value: unknown): value is { atomic: unknown; tokens: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 2 && keys.includes('atomic') && keys.includes('tokens');
}

function scalar(value: unknown): string | undefined {
  if (value === null) return '-';
  if (typeof value === 'string') return value === '' ? '""' : value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (isAmount(value)) return `${String(value.tokens)} tokens (${String(value.atomic)} atomic)`;
  if (Array.isArray(value) && value.length === 0) return '(none)';
  if (typeof value === 'object' && Object.keys(value as object).length === 0) return '(none)';
  return undefined;
}

/** `camelCase` -> `camel case`, `tx_id` -> `tx id`. */
function label(key: string): string {
  return key
    .replace(/_/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);
}

function lines(value: unknown, indent: string): string[] {
  const flat = scalar(value);
  if (flat !== undefined) return [`${indent}${flat}`];
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => {
      const one = scalar(item);
      if (one !== undefined) return [`${indent}- ${one}`];
      const inner = lines(item, `${indent}  `);
      return [`${indent}${i + 1}.`, ...inner];
    });
  }
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) => {
    const one = scalar(inner);
    if (one !== undefined) return [`${indent}${label(key)}: ${one}`];
    return [`${indent}${label(key)}:`, ...lines(inner, `${indent}  `)];
  });
}

/** The answer as text for a person, ending in a newline. */
export function humanText(value: unknown): string {
  return `${lines(value, '').join('\n')}\n`;
}
