#!/usr/bin/env node
// The npm registry reachable from this project's machines lacks some other-platform optional
// packages (e.g. @biomejs/cli-darwin-arm64), so npm writes a lock file that `npm ci` then
// refuses ("Missing: ... from lock file"). After `npm install`, run `npm run lock:trim`: it
// drops optional dependencies that have no entry in the lock file.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const removed = [];
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
    const nested = `${key === '' ? '' : `${key}/`}node_modules/${dep}`;
    if (lock.packages[nested] === undefined && lock.packages[`node_modules/${dep}`] === undefined) {
      delete entry.optionalDependencies[dep];
      removed.push(`${key || '(root)'} -> ${dep}`);
    }
  }
}
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(removed.length === 0 ? 'lock file already complete' : `dropped:\n  ${removed.join('\n  ')}`);
