"""Drives deploy/compose.yaml's topology, run as plain processes by topology.sh:
two Herald replicas on one PostgreSQL behind HAProxy (deploy/haproxy/haproxy.cfg),
the demo MCP server upstream. Everything goes through the load balancer, like
an agent and a browser would. Then the faults: kill -9 of the replica holding a
suspended call, a PostgreSQL restart under a stream of requests, SIGTERM of the
replica holding a suspended call.

Standard library only. Prints one line per check and `topology: N passed, N failed`.
"""

import base64
import http.client
import json
import os
import secrets
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

WORK = os.environ["WORK"]
ROOT = os.environ["ROOT"]
HERALD = os.environ["HERALD_BIN"]
DEMO = os.environ["HERALD_DEMO_BIN"]
PG_URL = os.environ["PG_URL"]
PG_CTL = os.environ["PG_CTL"].split()  # e.g. "runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D …"
PASSWORD = "correct horse battery staple"
SECRET_KEY = base64.b64encode(os.urandom(36)).decode()
PATIENCE = 30  # seconds to wait for what should happen promptly (a deadline, not a sleep)

passed, failed = 0, 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}", flush=True)
    else:
        failed += 1
        print(f"FAIL {what}", flush=True)
    return ok


def wait_for(condition, what, timeout=PATIENCE, every=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- processes ---------------------------------------------------------------------------


class Process:
    """A child whose pid is kept in WORK/NAME.pid so topology.sh's trap can end it."""

    def __init__(self, name, argv, env=None, stdout=None):
        self.name = name
        self.log = os.path.join(WORK, f"{name}.log")
        logfile = open(self.log, "ab")
        self.popen = subprocess.Popen(
            argv,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=stdout or logfile,
            stderr=logfile,
            start_new_session=True,
        )
        with open(os.path.join(WORK, f"{name}.pid"), "w") as f:
            f.write(str(self.popen.pid))

    def signal(self, sig):
        self.popen.send_signal(sig)

    def wait(self, timeout):
        return self.popen.wait(timeout=timeout)

    def stop(self):
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait()


class Replica:
    def __init__(self, name, port, lb_port, metrics_port):
        self.name, self.port, self.lb_port, self.metrics_port = name, port, lb_port, metrics_port
        self.process = None

    def start(self):
        env = {
            "HERALD_LISTEN": f"127.0.0.1:{self.port}",
            "HERALD_PUBLIC_URL": f"http://127.0.0.1:{self.lb_port}",
            "HERALD_DATABASE_URL": PG_URL,
            "HERALD_SECRET_KEY": SECRET_KEY,
            "HERALD_LOG_FORMAT": "json",
            # As in compose: metrics on a port of their own, and HAProxy's X-Forwarded-For believed.
            "HERALD_METRICS_LISTEN": f"127.0.0.1:{self.metrics_port}",
            "HERALD_TRUSTED_PROXIES": "127.0.0.1",
        }
        offset = os.path.getsize(os.path.join(WORK, f"{self.name}.log")) if self.process else 0
        self.process = Process(self.name, [HERALD, "serve"], env)
        # Generous: a loaded machine slows the first start (migrations) a lot, and this is no timing test.
        wait_for(lambda: '"herald is serving"' in read_from(self.process.log, offset), f"{self.name} to serve",
                 timeout=90)

    def ready(self):
        try:
            return http_request("127.0.0.1", self.port, "GET", "/readyz", timeout=5)[0]
        except OSError:
            return None


def read_from(path, offset=0):
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read().decode(errors="replace")


# --- HTTP --------------------------------------------------------------------------------


def http_request(host, port, method, path, body=None, headers=None, timeout=PATIENCE):
    """(status, headers as a lowercase dict, body bytes)."""
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        data = json.dumps(body).encode() if body is not None else None
        all_headers = {"content-type": "application/json"} if data is not None else {}
        all_headers.update(headers or {})
        conn.request(method, path, body=data, headers=all_headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


class Client:
    """Talks to Herald through the load balancer, as a browser (cookie) or an agent (token)."""

    def __init__(self, lb_port):
        self.port = lb_port
        self.origin = f"http://127.0.0.1:{lb_port}"
        self.cookie = None
        self.token = None

    def request(self, method, path, body=None, timeout=PATIENCE):
        headers = {"origin": self.origin}
        if self.cookie:
            headers["cookie"] = self.cookie
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        status, head, raw = http_request("127.0.0.1", self.port, method, path, body, headers, timeout)
        if "set-cookie" in head:
            self.cookie = head["set-cookie"].split(";", 1)[0]
        return status, head, raw

    def json(self, method, path, body=None, expect=200):
        status, _, raw = self.request(method, path, body)
        if status != expect:
            raise AssertionError(f"{method} {path}: {status} {raw[:300]!r}")
        return json.loads(raw) if raw else None


def call_tool(lb_port, token, tool, arguments, timeout=300, on_headers=None):
    """A 2026-07-28 tools/call through the LB. Returns a dict: status, replica, content type,
    and `message` (the final JSON-RPC message) or `problem` (an HTTP error body) or `error`."""
    params = {
        "name": tool,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "herald-topology-test", "version": "1"},
        },
    }
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()
    headers = {
        "authorization": f"Bearer {token}",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": tool,
    }
    outcome = {"status": None, "replica": None}
    conn = http.client.HTTPConnection("127.0.0.1", lb_port, timeout=timeout)
    try:
        conn.request("POST", "/mcp/acme/demo", body=body, headers=headers)
        response = conn.getresponse()
        outcome["status"] = response.status
        outcome["replica"] = response.getheader("x-herald-replica")
        if on_headers:
            on_headers(outcome["replica"])
        kind = (response.getheader("content-type") or "").split(";")[0]
        outcome["content_type"] = kind
        if kind == "text/event-stream":
            data = []
            for line in response:
                line = line.decode().rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].lstrip(" "))
                elif line == "" and data:
                    message = json.loads("\n".join(data))
                    data = []
                    if "id" in message and ("result" in message or "error" in message):
                        outcome["message"] = message
                        return outcome
            outcome["error"] = "the stream ended without a response"
        elif kind == "application/json":
            outcome["message"] = json.loads(response.read())
        else:
            outcome["problem"] = response.read().decode(errors="replace")
    except (OSError, http.client.HTTPException, ValueError) as e:
        outcome["error"] = f"{type(e).__name__}: {e}"
    finally:
        conn.close()
    return outcome


def text_of(outcome):
    message = outcome.get("message") or {}
    content = (message.get("result") or {}).get("content") or []
    return "\n".join(c.get("text", "") for c in content)


class Call(threading.Thread):
    """A tool call running in the background."""

    def __init__(self, lb_port, token, tool, arguments):
        super().__init__(daemon=True)
        self.args = (lb_port, token, tool, arguments)
        self.outcome = None
        # Which replica serves it, as soon as the response headers arrive.
        self.replica_seen = None
        self.start()

    def run(self):
        self.outcome = call_tool(*self.args, on_headers=lambda r: setattr(self, "replica_seen", r))

    def result(self, timeout=PATIENCE):
        self.join(timeout)
        if self.is_alive():
            raise AssertionError("the tool call did not end in time")
        return self.outcome


# --- the dashboard's websocket (RFC 6455, just enough of it) ------------------------------


class Closed(Exception):
    pass


class Dashboard:
    def __init__(self, lb_port, token):
        self.sock = socket.create_connection(("127.0.0.1", lb_port), timeout=PATIENCE)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET /api/v1/ws HTTP/1.1\r\nHost: 127.0.0.1:{lb_port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Authorization: Bearer {token}\r\n\r\n"
            ).encode()
        )
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise Closed("closed during the handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        if " 101 " not in lines[0]:
            raise AssertionError(f"websocket refused: {lines[0]}")
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        self.replica = {k.lower(): v for k, v in headers.items()}.get("x-herald-replica")

    def _read(self, n, deadline):
        while len(self.buffer) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no websocket frame in time")
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise TimeoutError("no websocket frame in time") from None
            if not chunk:
                raise Closed("the websocket closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _send(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def next(self, timeout=PATIENCE):
        deadline = time.monotonic() + timeout
        message = b""
        while True:
            first, second = self._read(2, deadline)
            opcode, n = first & 0x0F, second & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", self._read(2, deadline))
            elif n == 127:
                (n,) = struct.unpack("!Q", self._read(8, deadline))
            payload = self._read(n, deadline)
            if opcode == 0x8:
                raise Closed("the server closed the websocket")
            if opcode == 0x9:
                self._send(0xA, payload)
                continue
            if opcode in (0x1, 0x0):
                message += payload
                if first & 0x80:
                    return json.loads(message)
            # binary and pong frames: not used by Herald

    def next_of(self, kind, timeout=PATIENCE, where=lambda frame: True):
        deadline = time.monotonic() + timeout
        while True:
            frame = self.next(max(0.01, deadline - time.monotonic()))
            if frame.get("type") == kind and where(frame):
                return frame

    def respond(self, id, action, content=None):
        frame = {"type": "respond", "id": id, "action": action}
        if content is not None:
            frame["content"] = content
        self._send(0x1, json.dumps(frame).encode())
        return self.next_of("ack", where=lambda f: f.get("id") == id) if action else None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def about(service):
    return lambda frame: f"{service} " in (frame.get("message") or "")


def dashboards_on_each(lb_port, token, replicas):
    """Round robin: open dashboards until one is on each replica."""
    by_replica, spare = {}, []
    for _ in range(8):
        board = Dashboard(lb_port, token)
        if board.replica in by_replica or board.replica not in replicas:
            spare.append(board)
        else:
            by_replica[board.replica] = board
        if len(by_replica) == len(replicas):
            break
    for board in spare:
        board.close()
    if len(by_replica) != len(replicas):
        raise AssertionError(f"the load balancer put every dashboard on {list(by_replica)}")
    return by_replica


# --- the run -----------------------------------------------------------------------------


def main():
    ports = {name: free_port() for name in ("lb", "stats", "herald-a", "herald-b", "demo", "metrics-a", "metrics-b")}
    lb = ports["lb"]

    demo = Process("demo-server", [DEMO, "--listen", f"127.0.0.1:{ports['demo']}"])
    demo_url = f"http://127.0.0.1:{ports['demo']}/mcp"
    wait_for(lambda: "READY" in read_from(demo.log) or demo_listening(ports["demo"]), "the demo server")

    bootstrap = subprocess.run(
        [HERALD, "bootstrap", "--org", "acme", "--org-name", "Acme", "--email", "ada@example.com",
         "--password-stdin"],
        input=PASSWORD + "\n", capture_output=True, text=True,
        env={**os.environ, "HERALD_DATABASE_URL": PG_URL, "HERALD_SECRET_KEY": SECRET_KEY},
    )
    check(bootstrap.returncode == 0, f"herald bootstrap on PostgreSQL {bootstrap.stderr.strip()}")

    replicas = {name: Replica(name, ports[name], lb, ports["metrics-" + name[-1]]) for name in ("herald-a", "herald-b")}
    for replica in replicas.values():
        replica.start()

    haproxy_env = {
        "HERALD_LB_BIND": f"127.0.0.1:{lb}",
        "HERALD_A_ADDR": f"127.0.0.1:{ports['herald-a']}",
        "HERALD_B_ADDR": f"127.0.0.1:{ports['herald-b']}",
        "HERALD_LB_STATS": f"127.0.0.1:{ports['stats']}",
    }
    cfg = os.path.join(ROOT, "deploy/haproxy/haproxy.cfg")
    haproxy = Process("haproxy", ["haproxy", "-db", "-f", cfg], haproxy_env)
    wait_for(lambda: lb_serves_both(lb, replicas), "the load balancer to route to both replicas")

    # --- the real flow, through the load balancer -----------------------------------------
    owner = Client(lb)
    owner.json("POST", "/api/v1/auth/login", {"email": "ada@example.com", "password": PASSWORD})
    owner.json("POST", "/api/v1/orgs/acme/servers",
               {"slug": "demo", "name": "Demo Server", "url": demo_url}, expect=201)
    # The default cap (6 questions a minute from one server to one person) is for people;
    # this run asks one person a few dozen.
    owner.json("PUT", "/api/v1/orgs/acme/policy", {"rate_caps": {"per_user_server_per_minute": 600}})
    token = owner.json("POST", "/api/v1/orgs/acme/tokens", {"name": "topology agent"}, expect=201)["secret"]
    agent = Client(lb)
    agent.token = token
    check(True, "signed in, registered the demo server and made an agent token through the LB")

    # --- what strangers see ---------------------------------------------------------------
    status, head, raw = http_request("127.0.0.1", lb, "GET", "/metrics")
    check(status == 404 and head.get("content-type") == "application/problem+json" and b"herald_" not in raw,
          f"GET /metrics through the LB is a 404 problem, no metrics ({status})")
    for name, replica in replicas.items():
        status, _, raw = http_request("127.0.0.1", replica.metrics_port, "GET", "/metrics")
        check(status == 200 and b"herald_http_requests_total" in raw, f"{name} serves its metrics on its own port")
        status, _, _ = http_request("127.0.0.1", replica.port, "GET", "/metrics")
        check(status == 404, f"{name}'s public port has no /metrics ({status})")
    # Failed sign-ins through the LB land on both replicas and are counted as one (an email
    # without an account is throttled like one with).
    answers = []
    # The fifth failure starts a 1 s wait (doubling with each further failure): a few more
    # attempts meet a 429 whatever the machine's pace.
    while len(answers) < 10 and not any(a[0] == 429 for a in answers):
        status, head, _ = Client(lb).request("POST", "/api/v1/auth/login",
                                             {"email": "mallory@example.com", "password": "a wrong guess"})
        answers.append((status, head.get("x-herald-replica"), head.get("retry-after")))
    check([a[0] for a in answers[:5]] == [401] * 5 and answers[-1][0] == 429 and answers[-1][2] is not None
          and {a[1] for a in answers[:5]} == set(replicas),
          f"the sign-in throttle holds across replicas: {answers}")

    served_by = set()
    board = Dashboard(lb, token)
    for i in range(2):
        service = f"flow-{i}"
        call = Call(lb, token, "deploy", {"service": service, "environment": "staging"})
        created = board.next_of("elicitation.created", where=about(service))
        ack = board.respond(created["id"], "accept", {"confirm": True})
        outcome = call.result()
        served_by.add(outcome["replica"])
        check(ack["type"] == "ack" and text_of(outcome) == f"Deployed {service} to staging",
              f"call {i} through the LB ({outcome['replica']}), answered on the dashboard "
              f"({board.replica}): {text_of(outcome)!r}")
    check(served_by == set(replicas), f"round robin spread the calls over both replicas: {sorted(served_by)}")
    board.close()
    legacy_session_is_served_by_every_replica(lb, token)

    # --- (a) kill -9 of the replica holding a suspended call ------------------------------
    boards = dashboards_on_each(lb, token, replicas)
    holder, call = suspended_call(lb, token, boards, "kill9", replicas)
    survivor = other(holder, replicas)
    created_id = call.created["id"]
    replicas[holder].process.signal(signal.SIGKILL)
    replicas[holder].process.wait(PATIENCE)
    killed_at = time.monotonic()
    resolved = boards[survivor].next_of("elicitation.resolved", timeout=60,
                                        where=lambda f: f.get("id") == created_id)
    elapsed = time.monotonic() - killed_at
    check((resolved["decided_by"], resolved["reason"]) == ("system", "interrupted"),
          f"kill -9 {holder}: the dashboard on {survivor} was told `interrupted` after {elapsed:.1f}s")
    record = agent.json("GET", f"/api/v1/orgs/acme/elicitations/{created_id}")
    check((record["status"], record["reason"]) == ("resolved", "interrupted"),
          f"the record ends resolved/interrupted: {record['status']}/{record['reason']}")
    outcome = call.result(60)
    check(outcome["status"] in (None, 200) and "message" not in outcome,
          f"the agent's stream on the dead replica ended without a result ({outcome.get('error')})")
    boards[holder].close()
    for i in range(3):
        service = f"after-kill-{i}"
        call = Call(lb, token, "deploy", {"service": service, "environment": "staging"})
        created = boards[survivor].next_of("elicitation.created", where=about(service))
        boards[survivor].respond(created["id"], "accept", {"confirm": True})
        outcome = call.result()
        check(text_of(outcome) == f"Deployed {service} to staging" and outcome["replica"] == survivor,
              f"a new call through the LB works, on {outcome['replica']}")
    replicas[holder].start()
    wait_for(lambda: lb_serves_both(lb, replicas), f"the LB to take {holder} back")
    check(True, f"{holder} restarted and the LB routes to it again")
    for board in boards.values():
        board.close()

    # --- (b) PostgreSQL restarted under a stream of requests ------------------------------
    boards = dashboards_on_each(lb, token, replicas)
    waiting = []
    for i in range(2):
        service = f"across-restart-{i}"
        call = Call(lb, token, "deploy", {"service": service, "environment": "staging"})
        call.created = boards["herald-a"].next_of("elicitation.created", where=about(service))
        waiting.append((service, call))
    for board in boards.values():
        board.close()
    load = Load(lb, token, replicas)
    time.sleep(1)  # a little traffic before the outage, to compare against
    subprocess.run(PG_CTL + ["stop", "-m", "fast", "-w"], check=True, capture_output=True)
    stopped_at = time.monotonic()
    wait_for(lambda: all(r.ready() == 503 for r in replicas.values()), "both replicas to report not ready")
    check(True, f"/readyz went 503 on both replicas {time.monotonic() - stopped_at:.1f}s after the stop")
    # The outage itself is the scenario: long enough for the replicas' heartbeats to look
    # stale to each other (15 s), so a replica that judged the others dead would show it.
    time.sleep(max(0.0, stopped_at + 20 - time.monotonic()))
    subprocess.run(PG_CTL + ["start", "-w", "-l", os.path.join(WORK, "postgres.log")], check=True,
                   capture_output=True)
    started_at = time.monotonic()
    wait_for(lambda: all(r.ready() == 200 for r in replicas.values()), "readiness to recover", timeout=90)
    check(True, f"/readyz back to 200 on both replicas by itself, {time.monotonic() - started_at:.1f}s "
                f"after PostgreSQL came back")
    wait_for(lambda: lb_serves_both(lb, replicas), "the LB to route to both replicas again", timeout=60)
    time.sleep(1)  # some of the stream after recovery too, to compare against
    results = load.stop()
    statuses = sorted({r["status"] for r in results}, key=str)
    bad = [r for r in results if r["status"] not in (200, 503)]
    check(not bad, f"{len(results)} requests during the restart: statuses {statuses}, none other than "
                   f"200 and 503 {bad[:3]}")
    unavailable = [r for r in results if r["status"] == 503]
    # From a replica (before the LB's health checks take it out) or from HAProxy's error page.
    from_herald = sum(1 for r in unavailable if r["replica"])
    check(unavailable and all(r["type"] == "application/problem+json" for r in unavailable),
          f"{len(unavailable)} answered 503 with a problem document ({from_herald} by Herald, "
          f"{len(unavailable) - from_herald} by HAProxy once both replicas were out)")
    check(all(r["seconds"] < 25 for r in results),
          f"none hung: the slowest took {max(r['seconds'] for r in results):.1f}s")
    pending = agent.json("GET", "/api/v1/orgs/acme/elicitations?status=pending")["elicitations"]
    pending_ids = {e["id"] for e in pending}
    check({c.created["id"] for _, c in waiting} <= pending_ids,
          f"the questions pending before the restart are still pending ({len(pending_ids)} pending)")
    for service, call in waiting:
        answered = agent.request("POST", f"/api/v1/orgs/acme/elicitations/{call.created['id']}/respond",
                                 {"action": "accept", "content": {"confirm": True}})
        outcome = call.result()
        check(answered[0] == 200 and text_of(outcome) == f"Deployed {service} to staging",
              f"answered after the restart, the call held across it completes: {text_of(outcome)!r}")
    left = agent.json("GET", "/api/v1/orgs/acme/elicitations?status=pending")["elicitations"]
    check(not left, f"no pending record is left stuck ({len(left)})")

    # --- (c) SIGTERM of the replica holding a suspended call ------------------------------
    boards = dashboards_on_each(lb, token, replicas)
    holder, call = suspended_call(lb, token, boards, "sigterm", replicas)
    survivor = other(holder, replicas)
    replicas[holder].process.signal(signal.SIGTERM)
    resolved = boards[survivor].next_of("elicitation.resolved",
                                        where=lambda f: f.get("id") == call.created["id"])
    check((resolved["decided_by"], resolved["reason"]) == ("system", "interrupted"),
          f"SIGTERM {holder}: the dashboard on {survivor} was told `interrupted`")
    outcome = call.result()
    check(text_of(outcome) == "Deployment cancelled by the user",
          f"the agent got a clean result: {text_of(outcome)!r}")
    code = replicas[holder].process.wait(PATIENCE)
    check(code == 0, f"{holder} exited {code}")
    service = "after-sigterm"
    new = Call(lb, token, "deploy", {"service": service, "environment": "staging"})
    created = boards[survivor].next_of("elicitation.created", where=about(service))
    boards[survivor].respond(created["id"], "accept", {"confirm": True})
    check(text_of(new.result()) == f"Deployed {service} to staging", "a new call through the LB works")
    for board in boards.values():
        board.close()

    # --- the logs ---------------------------------------------------------------------------
    for name in replicas:
        log = read_from(os.path.join(WORK, f"{name}.log"))
        check("panicked" not in log, f"{name}: no panic in its log")
        check(PASSWORD not in log and token not in log and SECRET_KEY not in log,
              f"{name}: no password, token or instance key in its log")
    haproxy.stop()
    demo.stop()
    for replica in replicas.values():
        if replica.process.popen.poll() is None:
            replica.process.signal(signal.SIGTERM)
            replica.process.wait(PATIENCE)


def legacy_session_is_served_by_every_replica(lb, token):
    """A 2025-11-25 agent's session is kept in the database: its follow-up requests, spread
    round robin with no stickiness, are served by both replicas."""
    headers = {"authorization": f"Bearer {token}", "accept": "application/json, text/event-stream"}

    def post(message, extra=None):
        return http_request("127.0.0.1", lb, "POST", "/mcp/acme/demo", message, {**headers, **(extra or {})})

    status, head, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "herald-topology-test", "version": "1"}}})
    session, minted_by = head.get("mcp-session-id"), head.get("x-herald-replica")
    if not check(status == 200 and session, f"a legacy agent initialises through the LB ({status})"):
        return
    extra = {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, extra)
    seen = []
    for i in range(4):
        status, head, raw = post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                                  "params": {"name": "echo", "arguments": {"text": f"legacy {i}"}}}, extra)
        seen.append((status, head.get("x-herald-replica"), f"legacy {i}" in raw.decode(errors="replace")))
    check(all(s == 200 and echoed for s, _, echoed in seen),
          f"every follow-up call of the session minted by {minted_by} is served: {seen}")
    check(len({r for _, r, _ in seen}) == 2, f"both replicas served the session, no stickiness: {seen}")


def demo_listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def lb_serves_both(lb, replicas):
    seen = set()
    for _ in range(6):
        try:
            status, head, _ = http_request("127.0.0.1", lb, "GET", "/readyz", timeout=5)
        except OSError:
            return False
        if status == 200:
            seen.add(head.get("x-herald-replica"))
    return seen == set(replicas)


def other(name, replicas):
    return next(r for r in replicas if r != name)


def suspended_call(lb, token, boards, label, replicas):
    """Starts an eliciting call; returns the replica holding it (the LB names it in the headers,
    which Herald sends as the call's SSE stream starts) once its question is on the dashboards."""
    service = f"{label}-{secrets.token_hex(3)}"
    call = Call(lb, token, "deploy", {"service": service, "environment": "staging"})
    any_board = next(iter(boards.values()))
    call.created = any_board.next_of("elicitation.created", where=about(service))
    holder = wait_for(lambda: call.replica_seen, "the call's stream to start")
    if holder not in replicas:
        raise AssertionError(f"unknown replica {holder!r}")
    return holder, call


class Load(threading.Thread):
    """A stream of requests through the LB (a REST read and an MCP call that asks nothing),
    each with a deadline: what came back, how fast."""

    def __init__(self, lb, token, replicas):
        super().__init__(daemon=True)
        self.lb, self.token = lb, token
        self.results = []
        self.stopping = threading.Event()
        self.start()

    def run(self):
        client = Client(self.lb)
        client.token = self.token
        i = 0
        while not self.stopping.is_set() and i < 2000:
            i += 1
            started = time.monotonic()
            try:
                status, head, _ = client.request("GET", "/api/v1/orgs/acme/elicitations?status=pending",
                                                 timeout=30)
                kind = head.get("content-type", "").split(";")[0]
            except OSError as e:
                status, kind = f"error {e}", None
            self.results.append({"status": status, "type": kind, "seconds": time.monotonic() - started,
                                 "what": "rest", "replica": head.get("x-herald-replica") if kind else None})
            started = time.monotonic()
            outcome = call_tool(self.lb, self.token, "echo", {"text": f"ping {i}"}, timeout=30)
            status = outcome["status"] if "error" not in outcome else f"error {outcome['error']}"
            if status == 200 and text_of(outcome) != f"ping {i}":
                status = f"200 without the echo: {outcome.get('message')}"
            self.results.append({"status": status, "type": outcome.get("content_type"),
                                 "seconds": time.monotonic() - started, "what": "mcp",
                                 "replica": outcome.get("replica")})
            time.sleep(0.1)

    def stop(self):
        self.stopping.set()
        self.join(60)
        return self.results


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a step that could not go on: count it and say where
        import traceback

        traceback.print_exc()
        check(False, f"the run stopped: {type(e).__name__}: {e}")
    print(f"topology: {passed} passed, {failed} failed", flush=True)
    sys.exit(1 if failed else 0)
