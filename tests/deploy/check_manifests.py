"""Checks what `helm template` rendered from the chart's default values."""

import sys

import yaml

docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
by_kind = {d["kind"]: d for d in docs}
passed, failed = 0, 0


def check(ok, what):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(f"{'ok  ' if ok else 'FAIL'} {what}")


for kind in ("Deployment", "Service", "Ingress", "ConfigMap", "Secret", "HorizontalPodAutoscaler",
             "PodDisruptionBudget"):
    check(kind in by_kind, f"renders a {kind}")

deployment = by_kind.get("Deployment", {})
pod = deployment.get("spec", {}).get("template", {}).get("spec", {})
container = (pod.get("containers") or [{}])[0]
check(container.get("livenessProbe", {}).get("httpGet", {}).get("path") == "/healthz", "liveness probes /healthz")
check(container.get("readinessProbe", {}).get("httpGet", {}).get("path") == "/readyz", "readiness probes /readyz")
check("preStop" in container.get("lifecycle", {}), "a preStop hook lets the Service stop routing first")
grace = pod.get("terminationGracePeriodSeconds", 0)
check(grace >= 20 + 5, f"terminationGracePeriodSeconds ({grace}) covers the 20 s drain and the preStop pause")
security = container.get("securityContext", {})
check(pod.get("securityContext", {}).get("runAsNonRoot") is True, "runs as non-root")
check(security.get("readOnlyRootFilesystem") is True, "read-only root filesystem")
check(security.get("allowPrivilegeEscalation") is False, "no privilege escalation")
env = {e["name"]: e for e in container.get("env", [])}
check(env.get("HERALD_DATABASE_URL", {}).get("valueFrom", {}).get("secretKeyRef", {}).get("key") == "database-url",
      "HERALD_DATABASE_URL comes from the Secret")
check(env.get("HERALD_SECRET_KEY", {}).get("valueFrom", {}).get("secretKeyRef", {}).get("key") == "secret-key",
      "HERALD_SECRET_KEY comes from the Secret")
config = by_kind.get("ConfigMap", {}).get("data", {})
check(config.get("HERALD_LISTEN") == "0.0.0.0:8080" and "HERALD_PUBLIC_URL" in config,
      "the ConfigMap holds the non-secret settings")
check(not any("SECRET" in k or "DATABASE_URL" in k for k in config), "no secret in the ConfigMap")
# The metrics name every tenant's organisations and servers: their own port, never public.
check(config.get("HERALD_METRICS_LISTEN") == "0.0.0.0:9090", "metrics are served on a listener of their own")
ports = {p.get("name"): p.get("containerPort") for p in container.get("ports", [])}
check(ports.get("metrics") == 9090 and ports.get("http") == 8080, "the pod names its http and metrics ports")
service_ports = by_kind.get("Service", {}).get("spec", {}).get("ports", [])
check([p.get("targetPort") for p in service_ports] == ["http"], "the Service exposes the http port only")
ingress_rules = by_kind.get("Ingress", {}).get("spec", {}).get("rules", [])
backends = [path.get("backend", {}).get("service", {}).get("port", {}).get("name")
            for rule in ingress_rules for path in rule.get("http", {}).get("paths", [])]
check(backends == ["http"], "the Ingress routes to the http port only")
check("HERALD_METRICS_TOKEN" not in config, "no metrics token in the ConfigMap")
check(bool(config.get("HERALD_TRUSTED_PROXIES")), "the ingress controller's X-Forwarded-For is believed")
annotations = by_kind.get("Ingress", {}).get("metadata", {}).get("annotations", {})
check(int(annotations.get("nginx.ingress.kubernetes.io/proxy-read-timeout", 0)) >= 3600,
      "the Ingress keeps long-lived streams and websockets open")
selector = by_kind.get("PodDisruptionBudget", {}).get("spec", {}).get("selector", {}).get("matchLabels")
check(selector == deployment.get("spec", {}).get("selector", {}).get("matchLabels"),
      "the PodDisruptionBudget selects the Deployment's pods")
print(f"helm: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
