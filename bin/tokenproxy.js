#!/usr/bin/env node
// The installed entry point: runs the compiled CLI (built by `npm run build`, which `npm ci` runs).
import { main } from '../dist/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
