#!/usr/bin/env node
// Runs every *.test.ts under test/ with node:test through tsx (tests live only under test/).
// Node 20 does not expand globs in --test arguments, so the files are listed here.
// Usage: node scripts/run-tests.mjs [path-filter ...]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (name.endsWith('.test.ts')) out.push(relative(root, full));
  }
  return out;
}

const files = collect(join(root, 'test'))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort();

if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// A test that hangs fails after this long instead of holding CI to its own limit; a file that
// hangs, or lingers after its tests ended, fails too (test-file-deadline.mjs).
const timeoutMs = process.env.TEST_TIMEOUT_MS ?? '900000';
const deadline = join(root, 'scripts', 'test-file-deadline.mjs');
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    deadline,
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${timeoutMs}`,
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: process.env },
);
process.exit(result.status ?? 1);
