#!/usr/bin/env bash
# Installs node-llama-cpp and its prebuilt Linux x64 binary (@node-llama-cpp/linux-x64) from npm
# into .cache/llama-engine/ (gitignored), for the real-engine reuse tests of the local-engine cache
# model. Not a project dependency: the tests skip when this prefix is absent (outside CI).
# Idempotent: a second run with the pinned version in place installs nothing. Prints the prefix.
#   scripts/install-llama-engine.sh → .cache/llama-engine
set -euo pipefail
version="3.22.1"
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$root/.cache/llama-engine"
manifest="$prefix/node_modules/node-llama-cpp/package.json"
binary_manifest="$prefix/node_modules/@node-llama-cpp/linux-x64/package.json"
installed() {
  [ -f "$1" ] && node -e "process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)" "$1" "$version"
}
if installed "$manifest" && installed "$binary_manifest"; then
  echo "$prefix"
  exit 0
fi
mkdir -p "$prefix"
# --ignore-scripts: never build llama.cpp from source or download anything beyond npm; the
# prebuilt binary package is what the tests load. NODE_LLAMA_CPP_SKIP_DOWNLOAD for the same reason.
NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund \
  --ignore-scripts --loglevel=error "node-llama-cpp@$version" "@node-llama-cpp/linux-x64@$version" >&2
echo "$prefix"
