#!/usr/bin/env bash
# Installs schemathesis (PyPI, pinned) once into a virtualenv under .tools (git-ignored) and prints the path of
# that virtualenv's python. Used by ./cc fuzz and the e2e tier's short fuzz run. Needs python3 with venv and pip.
set -euo pipefail
SCHEMATHESIS_VERSION=4.32.5
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="${CC_TOOLS_DIR:-$root/.tools}"
venv="$tools/schemathesis-$SCHEMATHESIS_VERSION"
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import schemathesis' 2>/dev/null; then
  command -v python3 >/dev/null || { echo "schemathesis-env: python3 is required" >&2; exit 2; }
  printf '[fuzz] installing schemathesis %s from PyPI into %s (once)\n' "$SCHEMATHESIS_VERSION" "$venv" >&2
  mkdir -p "$tools"
  # Built aside and renamed, so an interrupted install never leaves a half-made virtualenv in place.
  tmp=$(mktemp -d "$tools/schemathesis.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  python3 -m venv "$tmp/venv" >&2
  "$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
    "schemathesis==$SCHEMATHESIS_VERSION" >&2
  rm -rf "$venv"
  mv "$tmp/venv" "$venv"
fi
printf '%s\n' "$venv/bin/python"
