#!/usr/bin/env python3
"""Herald's fault suite: hostile load against a real `herald`, with bounded counts.

Every scenario gets a Herald of its own (a fresh database, `herald bootstrap`ed with one
organisation and its owner) and runs while a watch probes it: `GET /readyz` on a new
connection every 200 ms must answer 200 within READY_BOUND (1 s), and the process's resident
memory must stay under RSS_BOUND_MIB throughout. Afterwards the owner must still sign in, and
the database must be consistent (the scenario adds its own checks on the records it made).

Adding a scenario: write a function taking a `Rig` and decorate it with
`@scenario("name", env={...})` (env: extra HERALD_* settings for its Herald). Use `rig.base`,
`rig.post_json`, `rig.sql` and `rig.herald`; raise `Failed` (or use `check`) to fail. The
watch's bounds apply to every scenario without it doing anything; a scenario whose load is meant
to take memory states its own bound in `rig.rss_bound` (MiB), with the reason.

    HERALD_BIN=…/herald python3 tests/faults/faults.py [--database-url postgres://…] [name …]

HERALD_FAULTS_RSS_MIB changes the memory bound, HERALD_FAULTS_EXTRA_ENV (`K=V,K=V`) adds
settings to every Herald (to lift a limit and see what it prevents).

Stdlib only. Linux only (it reads /proc).
"""

import argparse
import http.client
import json
import os
import resource
import selectors
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

HERALD = os.environ.get("HERALD_BIN", "")
READY_BOUND = 1.0
RSS_BOUND_MIB = int(os.environ.get("HERALD_FAULTS_RSS_MIB", "160"))
PROBE_EVERY = 0.2
OWNER = "owner@example.com"
PASSWORD = "correct horse battery staple"
SECRET_KEY = "fault-suite-secret-key-0123456789abcdef"

# Settings for every scenario's Herald, over the scenarios' own (`K=V,K=V`): e.g. to lift a
# bound and see what it prevents.
EXTRA_ENV = dict(kv.split("=", 1) for kv in os.environ.get("HERALD_FAULTS_EXTRA_ENV", "").split(",") if kv)

SCENARIOS = []


class Failed(AssertionError):
    pass


def report(ok, what):
    print(f"  {'ok  ' if ok else 'FAIL'} {what}", flush=True)
    return ok


def check(ok, what):
    if not report(ok, what):
        raise Failed(what)


def scenario(name, env=None):
    """Registers `fn(rig)` as a scenario whose Herald runs with `env` added."""
    def register(fn):
        SCENARIOS.append((name, env or {}, fn))
        return fn
    return register


# --- a Herald of one's own ------------------------------------------------------------------


class Database:
    """A fresh database per scenario: a SQLite file, or a PostgreSQL database on the server."""

    def __init__(self, work, server_url):
        self.server_url = server_url
        if server_url:
            self.name = f"herald_faults_{uuid.uuid4().hex[:12]}"
            self.psql("postgres", f"CREATE DATABASE {self.name}")
            self.url = server_url.rsplit("/", 1)[0] + "/" + self.name
        else:
            self.path = os.path.join(work, "herald.db")
            self.url = f"sqlite://{self.path}"

    def psql(self, database, statement):
        url = self.server_url.rsplit("/", 1)[0] + "/" + database
        out = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-Atc", statement],
                             capture_output=True, text=True, check=True)
        return [line.split("|") for line in out.stdout.splitlines() if line]

    def query(self, statement):
        """Rows as lists of strings, from either database."""
        if self.server_url:
            return self.psql(self.name, statement)
        with sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10) as db:
            return [[str(v) for v in row] for row in db.execute(statement)]

    def drop(self):
        if self.server_url:
            self.psql("postgres", f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


class Herald:
    def __init__(self, work, database, env):
        self.work, self.database = work, database
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HERALD_DATABASE_URL": database.url,
            "HERALD_SECRET_KEY": SECRET_KEY,
            "HERALD_LOG_FORMAT": "json",
            "HERALD_LOG_LEVEL": "warn,herald_gateway::cli=info",
            "HERALD_LISTEN": "127.0.0.1:0",
            "HERALD_METRICS_LISTEN": "127.0.0.1:0",
            **env,
            **EXTRA_ENV,
        }
        boot = subprocess.run(
            [HERALD, "bootstrap", "--org", "acme", "--org-name", "Acme", "--email", OWNER, "--password-stdin"],
            input=PASSWORD + "\n", capture_output=True, text=True, env=self.env, cwd=work)
        check(boot.returncode == 0, f"herald bootstrap ({boot.stderr.strip()[-200:]})")
        self.log_path = os.path.join(work, "herald.log")
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen([HERALD, "serve"], env=self.env, cwd=work, stdout=self.log,
                                        stderr=self.log, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            serving = self.serving_line()
            if serving:
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise Failed(f"herald did not start: {open(self.log_path).read()[-2000:]}")
            time.sleep(0.1)
        host, port = serving["listen"].rsplit(":", 1)
        self.host, self.port = host, int(port)
        self.metrics = serving.get("metrics_listen") or None
        self.pid = self.process.pid

    def serving_line(self):
        with open(self.log_path, "rb") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("message") == "herald is serving":
                    return entry
        return None

    def rss_mib(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def open_fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class Watch(threading.Thread):
    """Probes readiness the way a load balancer does, and samples memory, until stopped."""

    def __init__(self, herald):
        super().__init__(daemon=True)
        self.herald = herald
        self.stopping = threading.Event()
        self.probes, self.failures, self.slowest, self.peak_rss, self.peak_fds = 0, [], 0.0, 0.0, 0

    def run(self):
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                conn = http.client.HTTPConnection(self.herald.host, self.herald.port, timeout=READY_BOUND)
                conn.request("GET", "/readyz")
                status = conn.getresponse().status
                conn.close()
                if status != 200:
                    self.failures.append(f"status {status}")
            except OSError as e:
                self.failures.append(f"{type(e).__name__}: {e}")
            took = time.monotonic() - started
            self.probes += 1
            self.slowest = max(self.slowest, took)
            if took >= READY_BOUND:
                self.failures.append(f"answered in {took:.2f}s")
            try:
                self.peak_rss = max(self.peak_rss, self.herald.rss_mib())
                self.peak_fds = max(self.peak_fds, self.herald.open_fds())
            except OSError:
                pass
            self.stopping.wait(max(0.0, PROBE_EVERY - took))

    def stop(self):
        self.stopping.set()
        self.join()


class Rig:
    """What a scenario gets: its Herald, its database, and a few helpers."""

    def __init__(self, herald, database):
        self.herald, self.database = herald, database
        self.base = f"http://{herald.host}:{herald.port}"
        self.rss_bound = None  # the scenario's own memory bound in MiB, if not RSS_BOUND_MIB

    def post_json(self, path, body, headers=None, timeout=30):
        """(status, lower-cased headers, parsed body or None) of one request on a new connection."""
        conn = http.client.HTTPConnection(self.herald.host, self.herald.port, timeout=timeout)
        try:
            conn.request("POST", path, body=json.dumps(body),
                         headers={"content-type": "application/json", **(headers or {})})
            response = conn.getresponse()
            raw = response.read()
            head = {k.lower(): v for k, v in response.getheaders()}
            return response.status, head, json.loads(raw) if raw else None
        finally:
            conn.close()

    def sql(self, statement):
        return self.database.query(statement)


def run_scenario(name, env, fn, server_url):
    print(f"\n--- {name}", flush=True)
    work = tempfile.mkdtemp(prefix="herald-faults-")
    database = Database(work, server_url)
    herald = None
    try:
        herald = Herald(work, database, env)
        rig = Rig(herald, database)
        idle_rss = herald.rss_mib()
        watch = Watch(herald)
        watch.start()
        # The watch's bounds are checked (and reported) whatever the scenario found.
        failure = None
        try:
            fn(rig)
        except Failed as e:
            failure = e
        finally:
            watch.stop()
        healthy = [
            report(not watch.failures,
                   f"/readyz answered 200 within {READY_BOUND:.0f} s throughout: {watch.probes} probes, slowest "
                   f"{watch.slowest * 1000:.0f} ms{'; ' + '; '.join(watch.failures[:5]) if watch.failures else ''}"),
        ]
        bound = getattr(rig, "fd_bound", None)
        if bound:
            # The cap's worth of sockets (and a few being closed) and Herald's own files.
            healthy.append(report(watch.peak_fds < bound,
                                  f"Herald's open files stayed under {bound}: at most {watch.peak_fds}"))
        rss_bound = rig.rss_bound or RSS_BOUND_MIB
        healthy.append(report(watch.peak_rss < rss_bound,
                              f"RSS stayed under {rss_bound} MiB: {idle_rss:.0f} MiB idle, peak "
                              f"{watch.peak_rss:.0f} MiB (open files at most {watch.peak_fds})"))
        if not all(healthy):
            raise Failed("Herald was not healthy throughout")
        if failure:
            raise failure
        status, _, _ = rig.post_json("/api/v1/auth/login", {"email": OWNER, "password": PASSWORD})
        check(status == 200, f"the owner still signs in afterwards ({status})")
        consistent(rig)
        return True
    except Failed:
        if herald:
            print(f"  last log lines:\n{open(herald.log_path, errors='replace').read()[-1500:]}")
        return False
    finally:
        if herald:
            herald.stop()
        database.drop()
        shutil.rmtree(work, ignore_errors=True)


def consistent(rig):
    """What every scenario leaves intact: the database's own checks, and no question left open."""
    if not rig.database.server_url:
        check(rig.sql("PRAGMA integrity_check") == [["ok"]], "SQLite integrity_check is ok")
        check(rig.sql("PRAGMA foreign_key_check") == [], "no foreign key points nowhere")
    pending = rig.sql("SELECT COUNT(*) FROM elicitations WHERE status = 'pending'")[0][0]
    check(pending == "0", f"no elicitation is left pending ({pending})")


# --- scenarios ----------------------------------------------------------------------------------

IDLE_FLOOD = int(os.environ.get("HERALD_FAULTS_IDLE_CONNECTIONS", "3000"))
IDLE_CAP = 1000
IDLE_SECONDS = 15
# A client whose request trails its connection (a busy client, a thread that loses its turn):
# it must still be heard, not taken for part of the flood. Herald guarantees a newcomer 100 ms
# (listener.rs, NEWCOMER_GRACE); without that pace a flood this fast leaves it 30-50 ms here.
LATE_SEND_SECONDS = 0.05


class LateProbe(threading.Thread):
    """`GET /readyz` every PROBE_EVERY, its request sent LATE_SEND_SECONDS after connecting."""

    def __init__(self, herald):
        super().__init__(daemon=True)
        self.herald = herald
        self.stopping = threading.Event()
        self.probes, self.failures = 0, []

    def run(self):
        while not self.stopping.is_set():
            try:
                with socket.create_connection((self.herald.host, self.herald.port), timeout=READY_BOUND) as s:
                    time.sleep(LATE_SEND_SECONDS)
                    s.sendall(b"GET /readyz HTTP/1.1\r\nHost: herald\r\nConnection: close\r\n\r\n")
                    answer = s.recv(64)
                if not answer.startswith(b"HTTP/1.1 200"):
                    self.failures.append(f"answered {answer[:40]!r}")
            except OSError as e:
                self.failures.append(f"{type(e).__name__}: {e}")
            self.probes += 1
            self.stopping.wait(PROBE_EVERY)

    def stop(self):
        self.stopping.set()
        self.join()


@scenario("idle-connection flood", env={"HERALD_MAX_CONNECTIONS": str(IDLE_CAP), "HERALD_HEADER_TIMEOUT_SECS": "5"})
def idle_connection_flood(rig):
    """IDLE_FLOOD unauthenticated connections that send nothing (a third trickle half a
    request head), kept up for IDLE_SECONDS: each one Herald closes is opened again."""
    sel = selectors.DefaultSelector()
    opened = closed = 0

    def open_one(i):
        nonlocal opened
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex((rig.herald.host, rig.herald.port))
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, i)
        opened += 1

    for i in range(IDLE_FLOOD):
        open_one(i)
    late = LateProbe(rig.herald)
    late.start()
    deadline = time.monotonic() + IDLE_SECONDS
    while time.monotonic() < deadline:
        for key, events in sel.select(timeout=0.2):
            s, i = key.fileobj, key.data
            if events & selectors.EVENT_WRITE:
                # Connected: a third start a request head and never finish it.
                if i % 3 == 0:
                    try:
                        s.send(b"GET /api/v1/me HTTP/1.1\r\nHost: herald\r\n")
                    except OSError:
                        pass
                sel.modify(s, selectors.EVENT_READ, i)
                continue
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                # Herald closed it (displaced at the cap, or timed out): the attacker comes back.
                sel.unregister(s)
                s.close()
                closed += 1
                open_one(i)
    late.stop()
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    sel.close()
    check(closed > 0, f"Herald closed idle connections ({opened} opened, {closed} closed by Herald)")
    check(late.probes > 0 and not late.failures,
          f"a request sent {LATE_SEND_SECONDS * 1000:.0f} ms after connecting was answered throughout: "
          f"{late.probes} probes, {len(late.failures)} not answered" + "".join(f"; {f}" for f in late.failures[:3]))
    rig.fd_bound = IDLE_CAP + 200


LOGIN_CONCURRENCY = 64
LOGIN_ROUNDS = 4


@scenario("login flood", env={"HERALD_TRUSTED_PROXIES": "127.0.0.1"})
def login_flood(rig):
    """LOGIN_CONCURRENCY concurrent failed sign-ins, LOGIN_ROUNDS each: first a spray (a new
    email from a new address every time: nothing to throttle, every attempt wants a hash),
    then a brute force (one email, one address)."""
    statuses = []
    lock = threading.Lock()

    def attempt(email, address):
        status, head, body = rig.post_json("/api/v1/auth/login", {"email": email, "password": "a wrong guess"},
                                           headers={"x-forwarded-for": address})
        if status in (429, 503) and not ("retry-after" in head and body.get("retry_after")):
            raise Failed(f"a {status} without a time to retry after: {head} {body}")
        with lock:
            statuses.append((email, status))

    def spray(worker):
        for n in range(LOGIN_ROUNDS):
            attempt(f"sprayed-{worker}-{n}@example.com", f"198.51.{worker}.{n + 1}")

    def brute(worker):
        for _ in range(LOGIN_ROUNDS):
            attempt("victim@example.com", "203.0.113.66")

    for wave in (spray, brute):
        with ThreadPoolExecutor(LOGIN_CONCURRENCY) as pool:
            list(pool.map(wave, range(LOGIN_CONCURRENCY)))
    counts = {s: sum(1 for _, st in statuses if st == s) for s in sorted({st for _, st in statuses})}
    check(set(counts) <= {401, 429, 503}, f"every attempt was answered 401, 429 or 503: {counts}")
    brute_counts = {s: sum(1 for e, st in statuses if e == "victim@example.com" and st == s) for s in (401, 429)}
    check(brute_counts[429] > 0 and brute_counts[401] <= 30,
          f"the brute force was throttled: {brute_counts[401]} passwords checked, {brute_counts[429]} refused unchecked")
    # Each 401 counted one failure under its email and one under its address; nothing else did.
    failures = sum(int(row[0]) for row in rig.sql("SELECT failures FROM login_failures"))
    check(failures == 2 * counts.get(401, 0),
          f"the throttle's records add up: {failures} failures recorded for {counts.get(401, 0)} refusals")


# --- hostile upstream servers -------------------------------------------------------------------


class HostileServer:
    """An MCP server of a tenant's choosing, speaking 2025-11-25 badly on purpose (stdlib HTTP on
    loopback). `mode` is `endless` (every call's stream is one event that never ends) or `flood`
    (a call's stream pushes FLOOD_QUESTIONS questions at once, then answers the call once it has
    had an answer for each question not left waiting for a person, or after a while)."""

    def __init__(self, mode):
        import http.server

        server = self
        self.mode = mode
        self.answers = 0
        self.lock = threading.Lock()
        self.answered = threading.Condition(self.lock)

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args):
                pass

            def reply(self, status, body=None, headers=None):
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                if body is not None:
                    data = json.dumps(body).encode()
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                else:
                    self.send_header("content-length", "0")
                    self.end_headers()

            def stream(self):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()

            def do_DELETE(self):
                self.reply(200)

            def do_GET(self):
                if server.mode != "endless":
                    return self.reply(405)
                self.stream()
                self.endless()

            def endless(self):
                chunk = b"x" * 65536
                try:
                    self.wfile.write(b"event: message\ndata: ")
                    while True:
                        self.wfile.write(chunk)
                except OSError:
                    return  # Herald hung up: as it should

            def do_POST(self):
                length = int(self.headers.get("content-length", "0"))
                message = json.loads(self.rfile.read(length) or b"{}")
                method = message.get("method")
                if method is None:
                    with server.answered:
                        server.answers += 1
                        server.answered.notify_all()
                    return self.reply(202)
                if "id" not in message:
                    return self.reply(202)
                if method == "initialize":
                    result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                              "serverInfo": {"name": f"hostile-{server.mode}", "version": "1"}}
                    return self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "result": result},
                                      {"mcp-session-id": uuid.uuid4().hex})
                if method != "tools/call":
                    return self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}})
                self.stream()
                if server.mode == "endless":
                    return self.endless()
                try:
                    for n in range(FLOOD_QUESTIONS):
                        ask = {"jsonrpc": "2.0", "id": n, "method": "elicitation/create", "params": {
                            "mode": "form", "message": f"Question {n}",
                            "requestedSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}}
                        self.wfile.write(f"event: message\ndata: {json.dumps(ask)}\n\n".encode())
                    self.wfile.flush()
                    with server.answered:
                        server.answered.wait_for(lambda: server.answers >= FLOOD_QUESTIONS - FLOOD_SHOWN, 60)
                    done = {"jsonrpc": "2.0", "id": message["id"],
                            "result": {"content": [{"type": "text", "text": "flood over"}]}}
                    self.wfile.write(f"event: message\ndata: {json.dumps(done)}\n\n".encode())
                except OSError:
                    pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/mcp"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self):
        self.http.shutdown()
        self.http.server_close()


class Owner:
    """The owner signed in (a cookie, no jar): registers servers, makes API tokens."""

    def __init__(self, rig):
        self.rig = rig
        conn = http.client.HTTPConnection(rig.herald.host, rig.herald.port, timeout=30)
        conn.request("POST", "/api/v1/auth/login", body=json.dumps({"email": OWNER, "password": PASSWORD}),
                     headers={"content-type": "application/json"})
        response = conn.getresponse()
        response.read()
        check(response.status == 200, f"the owner signs in ({response.status})")
        self.cookie = response.getheader("set-cookie").split(";")[0]
        conn.close()

    def post(self, path, body):
        return self.rig.post_json(path, body, headers={"cookie": self.cookie, "origin": self.rig.base})

    def server(self, slug, url):
        status, _, body = self.post("/api/v1/orgs/acme/servers", {"slug": slug, "name": slug, "url": url})
        check(status == 201, f"{slug} is registered ({status} {body})")

    def token(self):
        status, _, body = self.post("/api/v1/orgs/acme/tokens", {"name": "agent"})
        check(status == 201, f"an agent token is made ({status})")
        return body["secret"]


def legacy_call(rig, token, server, timeout=120):
    """A 2025-11-25 agent: initialize, then one tools/call; the call's final JSON-RPC message."""
    auth = {"authorization": f"Bearer {token}", "accept": "application/json, text/event-stream"}
    status, head, body = rig.post_json(f"/mcp/acme/{server}", {
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "faults", "version": "1"}},
    }, headers=auth)
    check(status == 200 and "mcp-session-id" in head, f"the agent's session opens ({status} {body})")
    session = {**auth, "mcp-session-id": head["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    conn = http.client.HTTPConnection(rig.herald.host, rig.herald.port, timeout=timeout)
    try:
        conn.request("POST", f"/mcp/acme/{server}", headers={**session, "content-type": "application/json"},
                     body=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                      "params": {"name": "anything", "arguments": {}}}))
        response = conn.getresponse()
        if response.getheader("content-type", "").startswith("application/json"):
            return json.loads(response.read())
        last = None
        for line in response:  # SSE: the last `data:` line is the final message
            if line.startswith(b"data: "):
                last = json.loads(line[6:])
        return last
    finally:
        conn.close()


ENDLESS_CALLS = 4


HOSTILE_BUFFER_MIB = 32


@scenario("hostile upstream", env={"HERALD_UPSTREAM_BUFFER_MIB": str(HOSTILE_BUFFER_MIB)})
def hostile_upstream(rig):
    """A server whose every stream is one event without end (the standalone stream too), called
    by ENDLESS_CALLS agents at once, twice: each call fails naming the server, once its event
    passes the message limit (16 MiB) or all of them together the read budget (32 MiB here), and
    memory stays bounded."""
    # The read budget counts buffers at their capacity; the allocator keeps about as much again
    # of what the doubling buffers left behind (measured: a peak of 112-173 MiB at 32 MiB, 291 MiB
    # at the default 256 MiB, flat over repeated rounds). The bound: idle Herald plus 6x the budget.
    rig.rss_bound = max(RSS_BOUND_MIB, 40 + 6 * HOSTILE_BUFFER_MIB)
    hostile = HostileServer("endless")
    try:
        owner = Owner(rig)
        owner.server("endless", hostile.url)
        token = owner.token()
        for _ in range(2):
            with ThreadPoolExecutor(ENDLESS_CALLS) as pool:
                ends = list(pool.map(lambda _: legacy_call(rig, token, "endless"), range(ENDLESS_CALLS)))
            for end in ends:
                message = (end or {}).get("error", {}).get("message", "")
                check("upstream server endless" in message
                      and ("exceeds 16 MiB" in message or "from upstream servers at once" in message),
                      f"the call fails naming the server and the limit: {message[:200]}")
    finally:
        hostile.close()


FLOOD_QUESTIONS = 2000
FLOOD_SHOWN = 6  # the default rate cap per person, server and minute


@scenario("question flood")
def question_flood(rig):
    """One call pushes FLOOD_QUESTIONS questions at once: every one is answered, but what is
    stored stays bounded (the shown ones, the first automatic answers of the minute, one audit
    entry for the rest when the minute is over)."""
    hostile = HostileServer("flood")
    try:
        owner = Owner(rig)
        owner.server("flood", hostile.url)
        token = owner.token()
        started = threading.Thread(target=lambda: legacy_call(rig, token, "flood"), daemon=True)
        started.start()
        with hostile.answered:
            hostile.answered.wait_for(lambda: hostile.answers >= FLOOD_QUESTIONS - FLOOD_SHOWN, 90)
        check(hostile.answers >= FLOOD_QUESTIONS - FLOOD_SHOWN,
              f"every question not shown was answered at once ({hostile.answers} of {FLOOD_QUESTIONS})")
        started.join(60)
        stored = int(rig.sql("SELECT COUNT(*) FROM elicitations")[0][0])
        audited = int(rig.sql("SELECT COUNT(*) FROM audit_log WHERE action = 'elicitation.auto_answered'")[0][0])
        check(stored <= FLOOD_SHOWN + 10, f"{stored} records stored for {FLOOD_QUESTIONS} questions")
        check(audited <= 10, f"{audited} audit entries for them (the rest summed up when the minute ends)")
    finally:
        hostile.close()


# --- main -------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("HERALD_FAULTS_DATABASE_URL", ""),
                        help="a PostgreSQL server (postgres://…/postgres) to run on instead of SQLite")
    parser.add_argument("names", nargs="*", help="scenarios to run (default: all)")
    args = parser.parse_args()
    if not HERALD or not os.access(HERALD, os.X_OK):
        sys.exit("faults.py: set HERALD_BIN to a built herald binary")
    # The idle flood needs thousands of sockets on this side too.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    check(hard >= IDLE_FLOOD + IDLE_CAP + 500,
          f"the open-file limit ({hard}) leaves room for the idle flood ({IDLE_FLOOD}) and Herald")
    chosen = [s for s in SCENARIOS if not args.names or s[0] in args.names]
    on = "PostgreSQL" if args.database_url else "SQLite"
    results = [(name, run_scenario(name, env, fn, args.database_url)) for name, env, fn in chosen]
    passed = sum(ok for _, ok in results)
    print(f"\nfaults ({on}): {passed} passed, {len(results) - passed} failed"
          + "".join(f"\n  FAILED {name}" for name, ok in results if not ok))
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    main()
