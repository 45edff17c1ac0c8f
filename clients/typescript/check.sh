#!/usr/bin/env bash
# The TypeScript SDK's whole check, as `mvn verify` runs it (modules/rota-typescript): npm ci from
# package-lock.json, tsc --strict over the sources and tests, ESLint, the build, then the node:test
# suite against one real node started from rota-server.jar for all the test files (test/with-node.ts).
#
#   clients/typescript/check.sh            # after `mvn -B -q package -DskipTests`
#
# ROTA_SERVER_JAR  the node's jar (default: modules/rota-server/target/rota-server.jar)
# ROTA_TS_WORK     where the JUnit report goes (default: clients/typescript/.check)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repository="$(cd "$here/../.." && pwd)"
work="${ROTA_TS_WORK:-$here/.check}"
install_hint="install Node.js 20 or later with npm (Debian: apt-get install -y nodejs npm, or the machine's Node.js 20 packages)"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "rota-typescript: node and npm are needed for the TypeScript SDK's suite: $install_hint" >&2
  exit 1
fi
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
  echo "rota-typescript: Node.js $(node --version) is too old (the SDK needs 20 or later): $install_hint" >&2
  exit 1
fi

mkdir -p "$work"
cd "$here"
echo "rota-typescript: npm ci"
if ! npm ci --no-audit --no-fund --loglevel=error >"$work/npm.log" 2>&1; then
  cat "$work/npm.log" >&2
  echo "rota-typescript: npm ci failed: the npm registry must be reachable (npm config get registry)" >&2
  exit 1
fi
rm -rf build dist
echo "rota-typescript: tsc --strict (sources and tests)"
npx --no-install tsc -p tsconfig.json
echo "rota-typescript: eslint"
npx --no-install eslint --max-warnings 0 .
echo "rota-typescript: build"
npm run --silent build
export ROTA_SERVER_JAR="${ROTA_SERVER_JAR:-$repository/modules/rota-server/target/rota-server.jar}"
echo "rota-typescript: node --test against one node from $ROTA_SERVER_JAR"
# One node for every file (starting a JVM per file cost a minute); the files run one at a time,
# since one of them pauses the whole system.
node build/test/with-node.js --test-concurrency=1 --test-timeout=600000 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=junit --test-reporter-destination="$work/node-test.xml" \
  build/test/*.test.js
