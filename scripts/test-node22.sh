#!/usr/bin/env bash
# Runs the Node ≥ 22 suites (vitest.node22.config.ts: ai 7) with a Node major from the npm
# registry (scripts/install-node.sh), without changing the project's own Node.
#   scripts/test-node22.sh              → Node 22
#   scripts/test-node22.sh 24           → Node 24
#   scripts/test-node22.sh --if-needed  → nothing when the running Node is ≥ 22 (`npm test`: its
#                                         `vitest run` ran these suites already), else Node 22
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${1:-}" = "--if-needed" ]; then
  if [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ]; then
    echo "test:node22: Node $(node --version) ran the *.node22.test.ts suites in vitest run" >&2
    exit 0
  fi
  shift
fi
node_binary="$(bash "$root/scripts/install-node.sh" "${1:-22}")"
cd "$root"
exec "$node_binary" node_modules/vitest/vitest.mjs run --config vitest.node22.config.ts
