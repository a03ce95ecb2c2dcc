// Moved to test/support/ledger-world.ts; this re-export keeps the old import path compiling.
export * from '../support/ledger-world.js';
