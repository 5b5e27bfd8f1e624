#!/usr/bin/env bash
# Prints the path of a node binary of the oldest Node.js Capstan supports (package.json's engines.node, ">=22.13" ->
# 22.13.0), installing it on first use from the npm registry's prebuilt binary package (node-<platform>-<arch>, about
# 30 MB) into node_modules/.cache/, as scripts/fetch-helm.ts keeps helm. test/e2e/oldest-node.test.ts runs the server
# with it. CAPSTAN_OLDEST_NODE_DIR overrides the directory.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(node -p "const v = require('./package.json').engines.node.replace(/^>=\s*/, ''); v.split('.').length === 2 ? v + '.0' : v")
package=$(node -p "'node-' + ({ win32: 'win' }[process.platform] ?? process.platform) + '-' + process.arch")
dir="${CAPSTAN_OLDEST_NODE_DIR:-$PWD/node_modules/.cache/capstan-node-$version}"
bin="$dir/node_modules/$package/bin/node"

if [ ! -x "$bin" ]; then
  echo "installing Node.js $version ($package) into $dir" >&2
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{ "private": true }' > "$dir/package.json"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "$package@$version" >&2
fi
"$bin" --version >/dev/null
echo "$bin"
