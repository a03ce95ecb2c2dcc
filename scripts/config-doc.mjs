// Rewrites the configuration reference in docs/operations.md from src/config-schema.ts.
// Run: node --import tsx scripts/config-doc.mjs   (test/config-doc.test.ts checks it is current)
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigReference } from '../src/config-doc.ts';

const path = new URL('../docs/operations.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = withConfigReference(before);
if (after === before) {
  console.log('docs/operations.md: configuration reference is current');
} else {
  writeFileSync(path, after);
  console.log('docs/operations.md: configuration reference rewritten');
}
