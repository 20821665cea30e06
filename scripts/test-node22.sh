#!/usr/bin/env bash
# Runs the Node ≥ 22 suites (vitest.node22.config.ts: ai 7) with a Node major from the npm
# registry (scripts/install-node.sh), without changing the project's own Node.
#   scripts/test-node22.sh        → Node 22
#   scripts/test-node22.sh 24     → Node 24
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
node_binary="$(bash "$root/scripts/install-node.sh" "${1:-22}")"
cd "$root"
exec "$node_binary" node_modules/vitest/vitest.mjs run --config vitest.node22.config.ts
