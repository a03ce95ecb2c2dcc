#!/usr/bin/env node
// The installed command: the compiled entry (built by `npm run build`, which `npm ci` runs).
import '../dist/cli/entry.js';
