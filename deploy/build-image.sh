#!/usr/bin/env bash
# Builds Rota's container image as a tar file, from the repository root, without
# a Docker daemon and without installing anything first:
#
#   deploy/build-image.sh                      # -> modules/rota-server/target/jib-image.tar
#   deploy/build-image.sh -Djib.from.image=tar:///path/to/temurin-17-jre.tar
#   deploy/build-image.sh -Djib.goal=build -Djib.to.image=registry.example.com/rota:0.1
#
# Extra arguments go to Maven. It runs
#   mvn -B -q -Pimage package -DskipTests -pl modules/rota-server -am
# and prints one line: where the image is, or why it could not be built (for
# instance that the base image's registry cannot be reached). See deploy/README.md.
set -uo pipefail
cd "$(dirname "$0")/.."

base="eclipse-temurin:17-jre"
for arg in "$@"; do
  case "$arg" in -Djib.from.image=*) base="${arg#-Djib.from.image=}" ;; esac
done

log="$(mktemp -t rota-image.XXXXXX.log)"
if mvn -B -q -Pimage package -DskipTests -pl modules/rota-server -am "$@" >"$log" 2>&1; then
  if [ -f modules/rota-server/target/jib-image.tar ]; then
    echo "rota image: wrote modules/rota-server/target/jib-image.tar (base $base); load it with: docker load -i modules/rota-server/target/jib-image.tar"
  else
    echo "rota image: built (base $base)"
  fi
  rm -f "$log"
  exit 0
fi

jib_error="$(grep -m1 'Failed to execute goal com.google.cloud.tools:jib' "$log" \
  | sed -E 's/.*on project rota-server: //; s/ -> \[Help 1\]$//')"
if [ -n "$jib_error" ]; then
  if grep -qiE 'UnknownHost|Unknown host|Name or service not known|Connect(ion)? (timed out|refused)|Network is unreachable|I/O error for image|unauthorized|credentials' "$log"; then
    echo "rota image: cannot pull the base image $base from its registry ($jib_error); build where the registry is reachable, or pass -Djib.from.image=tar:///path/to/base-image.tar (full log: $log)" >&2
  else
    echo "rota image: Jib failed: $jib_error (full log: $log)" >&2
  fi
else
  echo "rota image: the Maven build failed before Jib ran: $(grep -m1 '^\[ERROR\]' "$log" | cut -c1-300) (full log: $log)" >&2
fi
exit 1
