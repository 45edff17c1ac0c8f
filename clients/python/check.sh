#!/usr/bin/env bash
# The Python SDK's whole check, as `mvn verify` runs it (modules/rota-python): a fresh virtual
# environment with the package and its test extras installed from this directory, then ruff,
# mypy --strict and pytest against a real node started from rota-server.jar.
#
#   clients/python/check.sh                # after `mvn -B -q package -DskipTests`
#
# ROTA_SERVER_JAR  the node's jar (default: modules/rota-server/target/rota-server.jar)
# ROTA_PYTHON_WORK where the venv, caches and the JUnit report go (default: clients/python/.check)
# ROTA_PIP_ARGS    extra pip arguments, e.g. "--index-url file:///mirror/simple"
# PYTHON           the interpreter to build the venv from (default: python3)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repository="$(cd "$here/../.." && pwd)"
work="${ROTA_PYTHON_WORK:-$here/.check}"
python="${PYTHON:-python3}"
install_hint="install python3 (>= 3.10) and python3-venv (Debian: apt-get install -y python3 python3-venv)"

if ! command -v "$python" >/dev/null 2>&1; then
  echo "rota-python: $python not found: $install_hint" >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "rota-python: $("$python" --version 2>&1) is too old: $install_hint" >&2
  exit 1
fi

mkdir -p "$work"
rm -rf "$work/venv"
if ! "$python" -m venv "$work/venv" >"$work/venv.log" 2>&1; then
  cat "$work/venv.log" >&2
  echo "rota-python: cannot create a virtual environment with $python: $install_hint" >&2
  exit 1
fi

# pip's own configuration names the package index; no retries, so an unreachable index costs
# seconds, not minutes.
export PIP_RETRIES="${PIP_RETRIES:-0}" PIP_TIMEOUT="${PIP_TIMEOUT:-15}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
# shellcheck disable=SC2086 # ROTA_PIP_ARGS is a list of arguments
if ! "$work/venv/bin/pip" install -q ${ROTA_PIP_ARGS:-} "$here[test]" >"$work/pip.log" 2>&1; then
  cat "$work/pip.log" >&2
  echo "rota-python: pip could not install rota-client[test] (httpx, pytest, pytest-asyncio," \
    "mypy, ruff, hatchling): point pip at a reachable index (pip config, or ROTA_PIP_ARGS)" >&2
  exit 1
fi

export RUFF_CACHE_DIR="$work/ruff-cache" MYPY_CACHE_DIR="$work/mypy-cache"
export PYTHONPYCACHEPREFIX="$work/pycache"
export ROTA_SERVER_JAR="${ROTA_SERVER_JAR:-$repository/modules/rota-server/target/rota-server.jar}"
cd "$here"
echo "rota-python: ruff"
"$work/venv/bin/ruff" check --no-fix .
"$work/venv/bin/ruff" format --check .
echo "rota-python: mypy --strict"
"$work/venv/bin/mypy" --strict
echo "rota-python: pytest against a node from $ROTA_SERVER_JAR"
"$work/venv/bin/pytest" -p no:cacheprovider -q --junitxml="$work/pytest.xml"
