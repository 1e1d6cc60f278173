"""deploy/compose.yaml and deploy/Dockerfile say what docs/operations.md says they do."""

import os
import re
import sys

import yaml

deploy = sys.argv[1]
compose = yaml.safe_load(open(os.path.join(deploy, "compose.yaml")))
dockerfile = open(os.path.join(deploy, "Dockerfile")).read()
passed, failed = 0, 0


def check(ok, what):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(f"{'ok  ' if ok else 'FAIL'} {what}")


services = compose.get("services", {})
for name in ("herald-a", "herald-b", "lb", "postgres", "otel-collector"):
    check(name in services, f"compose has {name}")
a, b = services.get("herald-a", {}), services.get("herald-b", {})
env_a, env_b = a.get("environment", {}), b.get("environment", {})
same = ("HERALD_SECRET_KEY", "HERALD_DATABASE_URL", "HERALD_PUBLIC_URL")
check(all(env_a.get(k) and env_a.get(k) == env_b.get(k) for k in same),
      "both replicas share the instance key, the database and the public URL")
check("@postgres:5432/" in str(env_a.get("HERALD_DATABASE_URL")), "the replicas use the postgres service")
check(env_a.get("OTEL_EXPORTER_OTLP_ENDPOINT") == "http://otel-collector:4318", "OTLP goes to the collector")
check(a.get("build", {}).get("dockerfile") == "deploy/Dockerfile" and a.get("image") == b.get("image"),
      "both replicas run the image deploy/Dockerfile builds")
grace = int(str(a.get("stop_grace_period", "0s")).rstrip("s"))
check(grace > 20, f"stop_grace_period ({grace}s) outlasts the 20 s drain")
check(env_a.get("HERALD_METRICS_LISTEN") == "0.0.0.0:9090" and not a.get("ports") and not b.get("ports"),
      "the replicas serve metrics on their own port and publish no port")
lb = services.get("lb", {})
lb_ip = lb.get("networks", {}).get("default", {}).get("ipv4_address")
check(lb_ip is not None and env_a.get("HERALD_TRUSTED_PROXIES") == lb_ip,
      "the replicas believe X-Forwarded-For from the load balancer's fixed address only")
check(all(":9090" not in str(p) for p in lb.get("ports", [])), "the load balancer publishes no metrics port")
check(any(v.startswith("./haproxy:") for v in lb.get("volumes", [])), "the LB reads deploy/haproxy (the tested file)")
check("healthcheck" in services.get("postgres", {}) and services["postgres"].get("volumes"),
      "postgres has a healthcheck and a volume")
otel = services.get("otel-collector", {})
check(any("otel-collector.yaml" in v for v in otel.get("volumes", [])), "the collector reads otel-collector.yaml")
collector = yaml.safe_load(open(os.path.join(deploy, "otel-collector.yaml")))
check("otlp" in collector["receivers"] and "prometheus" in collector["exporters"],
      "the collector receives OTLP and exports for Prometheus")

haproxy = open(os.path.join(deploy, "haproxy", "haproxy.cfg")).read()
check(re.search(r"^\s*http-request return status 404 .* if \{ path /metrics \}", haproxy, re.M) is not None,
      "HAProxy answers /metrics itself with a 404")
check(re.search(r"^\s*option forwardfor", haproxy, re.M) is not None, "HAProxy appends the client to X-Forwarded-For")

stages = re.findall(r"^FROM\s+(\S+)", dockerfile, re.M)
check(len(stages) == 2 and stages[0].startswith("rust:1.95"), f"a two-stage build on rust:1.95 ({stages})")
check(re.search(r"^USER\s+65532", dockerfile, re.M) is not None, "the image runs as a non-root user")
check(re.search(r'^HEALTHCHECK .*\n?.*"healthcheck"', dockerfile, re.M) is not None,
      "the image's HEALTHCHECK runs `herald healthcheck`")
check(re.search(r"^EXPOSE\s+8080", dockerfile, re.M) is not None, "the image exposes 8080")
print(f"deploy files: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
