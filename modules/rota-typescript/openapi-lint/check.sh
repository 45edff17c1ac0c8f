#!/usr/bin/env bash
# Lints the node's OpenAPI document (modules/rota-http/.../openapi.yaml) with the pinned linters of
# package-lock.json beside this script, as `mvn verify` runs it (modules/rota-typescript):
#   Redocly CLI, recommended rules: no error and no warning (waivers, each with its reason, in
#     .redocly.lint-ignore.yaml);
#   Spectral, spectral:oas: no error and no warning.
#
#   modules/rota-typescript/openapi-lint/check.sh
#
# ROTA_OPENAPI_LINT_WORK  where node_modules goes (default: ./.check beside this script)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repository="$(cd "$here/../../.." && pwd)"
document="$repository/modules/rota-http/src/main/resources/dev/rota/http/openapi.yaml"
work="${ROTA_OPENAPI_LINT_WORK:-$here/.check}"
install_hint="install Node.js 20 or later with npm (Debian: apt-get install -y nodejs npm, or the machine's Node.js 20 packages)"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "openapi-lint: node and npm are needed to lint openapi.yaml: $install_hint" >&2
  exit 1
fi
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
  echo "openapi-lint: Node.js $(node --version) is too old for the linters: $install_hint" >&2
  exit 1
fi

# npm ci into the work directory, from this directory's lock file, so that the source tree stays
# clean and a rerun starts from the same pinned versions.
mkdir -p "$work"
cp "$here/package.json" "$here/package-lock.json" "$work/"
if ! (cd "$work" && npm ci --no-audit --no-fund --loglevel=error >"$work/npm.log" 2>&1); then
  cat "$work/npm.log" >&2
  echo "openapi-lint: npm ci failed: the npm registry must be reachable (npm config get registry)" >&2
  exit 1
fi

export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
echo "openapi-lint: redocly lint (recommended) $document"
# The ignore file is found beside the config, and names the document relative to itself.
# Redocly exits 0 on warnings: the readable report first, then its totals decide.
redocly=("$work/node_modules/.bin/redocly" lint --config redocly.yaml "$document")
(cd "$here" && "${redocly[@]}" --format stylish 2>&1 | grep -v '[║╔╚]') || true
(cd "$here" && "${redocly[@]}" --format json 2>/dev/null) >"$work/redocly.json" || true
if ! node -e '
  const { totals } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`openapi-lint: redocly: ${totals.errors} errors, ${totals.warnings} warnings, ${totals.ignored} waived`);
  process.exit(totals.errors + totals.warnings === 0 ? 0 : 1);' "$work/redocly.json"; then
  echo "openapi-lint: redocly reports problems in openapi.yaml (above); fix them, or waive one" \
    "with its reason in $here/.redocly.lint-ignore.yaml" >&2
  exit 1
fi
echo "openapi-lint: spectral lint (spectral:oas) $document"
"$work/node_modules/.bin/spectral" lint --ruleset "$here/.spectral.yaml" --fail-severity warn \
  "$document"
echo "openapi-lint: openapi.yaml passes both linters"
