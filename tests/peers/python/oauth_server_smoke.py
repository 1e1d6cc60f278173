"""Smoke test for oauth_server.py: drives the whole OAuth + MCP flow as a client would.

Usage:  tests/peers/.venv/bin/python tests/peers/python/oauth_server_smoke.py [-v]

Starts oauth_server.py as a child process, then checks (one line per check, exit 1 on the first
failure): 401 challenge, PRM, AS metadata, DCR, authorize via the login form with PKCE + resource,
RFC 9207 iss, code exchange, MCP initialize + whoami, 403 insufficient_scope for write_note, step-up,
a token for another resource, refresh rotation, revocation, expiry, revoke-subject, deny, client auth
methods, the control endpoints, and a clean SIGTERM shutdown.  -v passes the server's stderr through.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import select
import signal
import subprocess
import sys
import threading
import time
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import httpx2 as httpx

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "oauth_server.py")
REDIRECT = "http://127.0.0.1:9/callback"  # never contacted: redirects are read, not followed
PROTOCOL = "2025-11-25"

stderr_lines: list[str] = []


class Failed(Exception):
    pass


def check(name: str, cond: bool, detail: str = "") -> None:
    line = f"{'ok  ' if cond else 'FAIL'} {name}" + (f": {detail}" if detail else "")
    print(line, flush=True)
    if not cond:
        raise Failed(line)


def info(name: str, detail: str) -> None:
    print(f"info {name}: {detail}", flush=True)


def challenge_params(header: str) -> dict[str, str]:
    return dict(re.findall(r'(\w+)="([^"]*)"', header))


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


class FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inputs: dict[str, dict[str, str]] = {}
        self.buttons: list[dict[str, str]] = []
        self.labels: list[str] = []
        self.form: dict[str, str] = {}
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.form = a
        elif tag == "input":
            self.inputs[a.get("name", "")] = a
        elif tag == "button":
            self.buttons.append(a)
            self._in = "button"
        elif tag == "label":
            self._in = "label"

    def handle_data(self, data: str) -> None:
        if self._in == "label":
            self.labels.append(data.strip())
        elif self._in == "button":
            self.buttons[-1]["_text"] = data.strip()

    def handle_endtag(self, tag: str) -> None:
        if tag in ("label", "button"):
            self._in = None


class Peer:
    def __init__(self, verbose: bool):
        env = dict(os.environ); env.setdefault("ACCESS_TTL", "3600")
        self.proc = subprocess.Popen([sys.executable, "-u", SERVER, "--log-level", "info"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, text=True)
        threading.Thread(target=self._drain, args=(verbose,), daemon=True).start()
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline() if ready else ""  # type: ignore[union-attr]
        m = re.fullmatch(r"listening (\d+) (\d+)\n", line)
        check("first stdout line", m is not None, repr(line))
        assert m
        self.rs_port, self.as_port = int(m[1]), int(m[2])
        self.issuer = f"http://127.0.0.1:{self.as_port}"
        self.rs_url = f"http://127.0.0.1:{self.rs_port}/mcp"

    def _drain(self, verbose: bool) -> None:
        for line in self.proc.stderr:  # type: ignore[union-attr]
            stderr_lines.append(line)
            if verbose:
                sys.stderr.write("  [server] " + line)


class Client:
    """An OAuth client registered at the peer, plus helpers for the flows."""

    def __init__(self, http: httpx.Client, peer: Peer, reg: dict[str, Any]):
        self.http, self.peer, self.reg = http, peer, reg
        self.id = reg["client_id"]
        self.secret = reg.get("client_secret")
        self.method = reg["token_endpoint_auth_method"]

    def _auth(self, form: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        form = dict(form, client_id=self.id)  # the SDK needs client_id in the body for every method
        headers: dict[str, str] = {}
        if self.method == "client_secret_post":
            form["client_secret"] = self.secret
        elif self.method == "client_secret_basic":
            headers["Authorization"] = "Basic " + base64.b64encode(f"{self.id}:{self.secret}".encode()).decode()
        return form, headers

    def token(self, form: dict[str, str]) -> httpx.Response:
        form, headers = self._auth(form)
        return self.http.post(f"{self.peer.issuer}/token", data=form, headers=headers)

    def start_authorize(self, scope: str | None, resource: str | None) -> tuple[str, str, str]:
        verifier, challenge = pkce()
        state = secrets.token_urlsafe(12)
        q = {"response_type": "code", "client_id": self.id, "redirect_uri": REDIRECT, "state": state,
             "code_challenge": challenge, "code_challenge_method": "S256"}
        if scope:
            q["scope"] = scope
        if resource:
            q["resource"] = resource
        r = self.http.get(f"{self.peer.issuer}/authorize?{urlencode(q)}")
        if r.status_code != 302 or not r.headers["location"].startswith(f"{self.peer.issuer}/login?"):
            raise Failed(f"authorize: {r.status_code} {r.headers.get('location')} {r.text}")
        return r.headers["location"], state, verifier

    def sign_in(self, login_url: str, form: dict[str, str]) -> dict[str, str]:
        page = self.http.get(login_url)
        p = FormParser()
        p.feed(page.text)
        data = {"txn": p.inputs["txn"]["value"], **form}
        r = self.http.post(f"{self.peer.issuer}{p.form['action']}", data=data)
        if r.status_code not in (302, 303):
            raise Failed(f"login: {r.status_code} {r.text}")
        loc = r.headers["location"]
        if not loc.startswith(REDIRECT + "?"):
            raise Failed(f"login redirected to {loc}")
        return {k: v[0] for k, v in parse_qs(urlparse(loc).query).items()}

    def get_tokens(self, scope: str | None, resource: str | None, account: str = "ada",
                   token_resource: str | None = "same") -> dict[str, Any]:
        login_url, state, verifier = self.start_authorize(scope, resource)
        back = self.sign_in(login_url, {"login": account})
        if back.get("state") != state or back.get("iss") != self.peer.issuer or "code" not in back:
            raise Failed(f"bad redirect {back}")
        form = {"grant_type": "authorization_code", "code": back["code"], "redirect_uri": REDIRECT,
                "code_verifier": verifier}
        tr = resource if token_resource == "same" else token_resource
        if tr:
            form["resource"] = tr
        r = self.token(form)
        if r.status_code != 200:
            raise Failed(f"token: {r.status_code} {r.text}")
        return r.json()


class Mcp:
    """Minimal streamable-HTTP MCP client (legacy 2025-11-25 session)."""

    def __init__(self, http: httpx.Client, url: str, token: str):
        self.http, self.url, self.token = http, url, token
        self.session: str | None = None
        self.next_id = 1

    def post(self, msg: dict[str, Any]) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
            headers["MCP-Protocol-Version"] = PROTOCOL
        return self.http.post(self.url, content=json.dumps(msg), headers=headers)

    def request(self, method: str, params: dict[str, Any]) -> tuple[httpx.Response, dict[str, Any] | None]:
        rid = self.next_id
        self.next_id += 1
        r = self.post({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        if r.status_code != 200:
            return r, None
        if r.headers.get("content-type", "").startswith("text/event-stream"):
            for line in r.text.splitlines():
                if line.startswith("data:"):
                    msg = json.loads(line[5:])
                    if msg.get("id") == rid:
                        return r, msg
            return r, None
        return r, r.json()

    def initialize(self) -> httpx.Response:
        r, msg = self.request("initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                                             "clientInfo": {"name": "oauth-smoke", "version": "0"}})
        if r.status_code == 200:
            self.session = r.headers.get("mcp-session-id")
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def call(self, name: str, args: dict[str, Any]) -> tuple[httpx.Response, str | None]:
        r, msg = self.request("tools/call", {"name": name, "arguments": args})
        if msg is None:
            return r, None
        if "error" in msg:
            return r, f"error {msg['error']}"
        return r, " ".join(c.get("text", "") for c in msg["result"]["content"])


def whoami(http: httpx.Client, peer: Peer, token: str) -> tuple[int, str | None]:
    m = Mcp(http, peer.rs_url, token)
    r = m.initialize()
    if r.status_code != 200:
        return r.status_code, None
    r, text = m.call("whoami", {})
    return r.status_code, text


def register(http: httpx.Client, peer: Peer, method: str, scope: str | None = "mcp:tools notes:write",
             app_type: str = "web") -> httpx.Response:
    body: dict[str, Any] = {"redirect_uris": [REDIRECT], "application_type": app_type, "client_name": f"smoke {method}",
                            "token_endpoint_auth_method": method, "grant_types": ["authorization_code", "refresh_token"],
                            "response_types": ["code"]}
    if scope is not None:
        body["scope"] = scope
    return http.post(f"{peer.issuer}/register", json=body)


def run(peer: Peer) -> None:
    http = httpx.Client(trust_env=False, follow_redirects=False, timeout=15)

    # ---------------------------------------------------------------- discovery
    r = http.post(peer.rs_url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
                  headers={"Accept": "application/json, text/event-stream"})
    ch = challenge_params(r.headers.get("www-authenticate", ""))
    prm_url = f"http://127.0.0.1:{peer.rs_port}/.well-known/oauth-protected-resource/mcp"
    check("POST /mcp without token -> 401", r.status_code == 401, r.headers.get("www-authenticate", ""))
    check("401 names resource_metadata", ch.get("resource_metadata") == prm_url, ch.get("resource_metadata", ""))
    check("401 carries scope", ch.get("scope") == "mcp:tools", ch.get("scope", ""))

    prm = http.get(ch["resource_metadata"]).json()
    check("PRM (RFC 9728)", prm.get("resource") == peer.rs_url and prm.get("authorization_servers") == [peer.issuer],
          json.dumps(prm))

    asm = http.get(f"{peer.issuer}/.well-known/oauth-authorization-server").json()
    check("AS metadata (RFC 8414) issuer", asm.get("issuer") == peer.issuer, asm.get("issuer", ""))
    check("AS metadata: registration, revocation, S256, iss supported",
          asm.get("registration_endpoint") == f"{peer.issuer}/register"
          and asm.get("revocation_endpoint") == f"{peer.issuer}/revoke"
          and asm.get("code_challenge_methods_supported") == ["S256"]
          and asm.get("authorization_response_iss_parameter_supported") is True)
    info("AS token_endpoint_auth_methods_supported", json.dumps(asm.get("token_endpoint_auth_methods_supported")))
    info("AS revocation_endpoint_auth_methods_supported",
         json.dumps(asm.get("revocation_endpoint_auth_methods_supported")))
    info("AS client_id_metadata_document_supported", json.dumps(asm.get("client_id_metadata_document_supported")))
    info("AS scopes_supported / grant_types_supported",
         f"{json.dumps(asm.get('scopes_supported'))} / {json.dumps(asm.get('grant_types_supported'))}")
    oidc = http.get(f"{peer.issuer}/.well-known/openid-configuration")
    info("GET /.well-known/openid-configuration", str(oidc.status_code))

    # ---------------------------------------------------------------- DCR
    r = register(http, peer, "client_secret_post")
    reg = r.json()
    check("DCR client_secret_post -> 201", r.status_code == 201 and bool(reg.get("client_secret")),
          f"client_id={reg.get('client_id')} application_type={reg.get('application_type')} "
          f"scope={reg.get('scope')!r} client_secret_expires_at={reg.get('client_secret_expires_at')}")
    client = Client(http, peer, reg)
    for method in ("client_secret_basic", "none", "private_key_jwt"):
        rr = register(http, peer, method)
        body = rr.json()
        info(f"DCR {method}", f"{rr.status_code} " + (f"secret issued={bool(body.get('client_secret'))}"
                                                      if rr.status_code == 201 else body.get("error_description", "")))
    rr = register(http, peer, "client_secret_post", scope=None)
    info("DCR without scope", f"{rr.status_code} registered scope={rr.json().get('scope')!r}")
    rr = register(http, peer, "client_secret_post", scope="mcp:tools admin")
    info("DCR with unknown scope", f"{rr.status_code} {rr.json().get('error')}")

    # ---------------------------------------------------------------- authorize + login form
    login_url, state, verifier = client.start_authorize("mcp:tools", peer.rs_url)
    page = http.get(login_url)
    fp = FormParser()
    fp.feed(page.text)
    check("login page: form POST, input login labelled Account, #sign-in, Deny",
          page.status_code == 200 and fp.form.get("method") == "post" and "login" in fp.inputs
          and "Account" in fp.labels
          and any(b.get("id") == "sign-in" and b.get("_text") == "Sign in" for b in fp.buttons)
          and any(b.get("name") == "deny" and b.get("_text") == "Deny" for b in fp.buttons), login_url)
    back = client.sign_in(login_url, {"login": "ada"})
    check("redirect has code + state", "code" in back and back.get("state") == state, ", ".join(sorted(back)))
    check("redirect has iss (RFC 9207) = issuer", back.get("iss") == peer.issuer, back.get("iss", ""))
    r = client.token({"grant_type": "authorization_code", "code": back["code"], "redirect_uri": REDIRECT,
                      "code_verifier": "wrong" + verifier})
    check("PKCE: wrong code_verifier -> invalid_grant", r.status_code == 400 and r.json()["error"] == "invalid_grant")
    r = client.token({"grant_type": "authorization_code", "code": back["code"], "redirect_uri": REDIRECT,
                      "code_verifier": verifier, "resource": "http://127.0.0.1:1/other"})
    check("token request with a resource not granted -> invalid_target",
          r.status_code == 400 and r.json()["error"] == "invalid_target", r.text)
    r = client.token({"grant_type": "authorization_code", "code": back["code"], "redirect_uri": REDIRECT,
                      "code_verifier": verifier, "resource": peer.rs_url})
    tok = r.json()
    check("code exchange with resource", r.status_code == 200 and bool(tok.get("refresh_token")),
          f"scope={tok.get('scope')!r} expires_in={tok.get('expires_in')} token_type={tok.get('token_type')}")
    r = client.token({"grant_type": "authorization_code", "code": back["code"], "redirect_uri": REDIRECT,
                      "code_verifier": verifier, "resource": peer.rs_url})
    check("code is single use", r.status_code == 400 and r.json()["error"] == "invalid_grant")

    # ---------------------------------------------------------------- MCP with the token
    m = Mcp(http, peer.rs_url, tok["access_token"])
    r = m.initialize()
    check("initialize with bearer", r.status_code == 200 and bool(m.session), f"session {m.session}")
    r, text = m.call("whoami", {})
    check("tools/call whoami", text == "you are ada", repr(text))
    r, text = m.call("write_note", {"text": "hello"})
    ch = challenge_params(r.headers.get("www-authenticate", ""))
    check("write_note without notes:write -> 403 insufficient_scope",
          r.status_code == 403 and ch.get("error") == "insufficient_scope", r.headers.get("www-authenticate", ""))
    check("403 scope lists the needed scopes", ch.get("scope") == "mcp:tools notes:write", ch.get("scope", ""))
    check("403 names resource_metadata", ch.get("resource_metadata") == prm_url)

    # step-up: new token with notes:write, used on the same session
    tok2 = client.get_tokens("mcp:tools notes:write", peer.rs_url)
    m.token = tok2["access_token"]
    r, text = m.call("write_note", {"text": "hello"})
    check("step-up token: write_note on the same session", r.status_code == 200 and text is not None
          and text.startswith("note 1 saved for ada"), repr(text))

    # ---------------------------------------------------------------- resource binding
    other = client.get_tokens("mcp:tools", "http://127.0.0.1:1/other")
    status, _ = whoami(http, peer, other["access_token"])
    check("token for another resource -> 401", status == 401, str(status))
    nores = client.get_tokens("mcp:tools", None)
    status, _ = whoami(http, peer, nores["access_token"])
    check("token without resource -> 401", status == 401, str(status))

    # ---------------------------------------------------------------- refresh rotation
    r = client.token({"grant_type": "refresh_token", "refresh_token": tok["refresh_token"], "resource": peer.rs_url})
    tok3 = r.json()
    check("refresh works", r.status_code == 200 and tok3.get("access_token") not in (None, tok["access_token"]))
    check("refresh rotates the refresh token", tok3.get("refresh_token") not in (None, tok["refresh_token"]))
    r = client.token({"grant_type": "refresh_token", "refresh_token": tok["refresh_token"]})
    check("old refresh token is dead", r.status_code == 400 and r.json()["error"] == "invalid_grant", r.text)
    status, text = whoami(http, peer, tok3["access_token"])
    check("refreshed access token works", text == "you are ada", f"{status} {text!r}")
    r = client.token({"grant_type": "refresh_token", "refresh_token": tok3["refresh_token"],
                      "scope": "mcp:tools notes:write"})
    check("refresh cannot widen scope", r.status_code == 400 and r.json()["error"] == "invalid_scope", r.text)

    # ---------------------------------------------------------------- revocation
    form, headers = client._auth({"token": tok3["access_token"], "token_type_hint": "access_token"})
    r = http.post(f"{peer.issuer}/revoke", data=form, headers=headers)
    check("revoke (client_secret_post) -> 200", r.status_code == 200, str(r.status_code))
    status, _ = whoami(http, peer, tok3["access_token"])
    check("revoked access token -> 401", status == 401, str(status))
    revoked = http.get(f"{peer.issuer}/_test/revoked").json()
    sha = hashlib.sha256(tok3["access_token"].encode()).hexdigest()
    rsha = hashlib.sha256(tok3["refresh_token"].encode()).hexdigest()
    check("revocation shows in /_test/revoked",
          any(e["sha256"] == sha and e["kind"] == "access_token" and e["subject"] == "ada" for e in revoked))
    check("revoking the access token also revoked its refresh token", any(e["sha256"] == rsha for e in revoked))

    # ---------------------------------------------------------------- expiry
    status, text = whoami(http, peer, tok2["access_token"])
    check("step-up token still live", text == "you are ada", f"{status} {text!r}")
    n = http.post(f"{peer.issuer}/_test/expire-access-tokens").json()
    status, _ = whoami(http, peer, tok2["access_token"])
    check("expire-access-tokens -> 401", status == 401, f"{n} / {status}")
    r = client.token({"grant_type": "refresh_token", "refresh_token": tok2["refresh_token"]})
    tok4 = r.json()
    status, text = whoami(http, peer, tok4.get("access_token", ""))
    check("refresh after expiry works", r.status_code == 200 and text == "you are ada", f"{status} {text!r}")

    # ---------------------------------------------------------------- revoke-subject, other person
    grace = client.get_tokens("mcp:tools", peer.rs_url, account="grace")
    n = http.post(f"{peer.issuer}/_test/revoke-subject", json={"subject": "ada"}).json()
    r = client.token({"grant_type": "refresh_token", "refresh_token": tok4["refresh_token"]})
    status, _ = whoami(http, peer, tok4["access_token"])
    check("revoke-subject ada: access 401, refresh invalid_grant",
          status == 401 and r.status_code == 400 and r.json()["error"] == "invalid_grant", json.dumps(n))
    status, text = whoami(http, peer, grace["access_token"])
    check("another person's token is untouched", text == "you are grace", f"{status} {text!r}")

    # ---------------------------------------------------------------- deny and error redirects
    login_url, state, _ = client.start_authorize("mcp:tools", peer.rs_url)
    back = client.sign_in(login_url, {"login": "", "deny": "1"})
    check("Deny -> error=access_denied with state and iss",
          back.get("error") == "access_denied" and back.get("state") == state and back.get("iss") == peer.issuer,
          json.dumps(back))
    q = {"response_type": "code", "client_id": client.id, "redirect_uri": REDIRECT, "state": "s1",
         "code_challenge": pkce()[1], "code_challenge_method": "S256", "scope": "mcp:tools admin"}
    r = http.get(f"{peer.issuer}/authorize?{urlencode(q)}")
    back = {k: v[0] for k, v in parse_qs(urlparse(r.headers.get("location", "")).query).items()}
    check("SDK error redirect (invalid_scope) carries iss", back.get("error") == "invalid_scope"
          and back.get("iss") == peer.issuer, json.dumps(back))
    q.update(scope="mcp:tools", resource="not-a-url")
    r = http.get(f"{peer.issuer}/authorize?{urlencode(q)}")
    back = {k: v[0] for k, v in parse_qs(urlparse(r.headers.get("location", "")).query).items()}
    check("authorize with a bad resource -> invalid_target", back.get("error") == "invalid_target", json.dumps(back))
    q.update(resource=peer.rs_url, code_challenge_method="plain")
    r = http.get(f"{peer.issuer}/authorize?{urlencode(q)}")
    back = {k: v[0] for k, v in parse_qs(urlparse(r.headers.get("location", "")).query).items()}
    check("PKCE plain refused", back.get("error") == "invalid_request", back.get("error_description", ""))
    q.update(code_challenge_method="S256", scope=None)
    del q["scope"]
    login_url = http.get(f"{peer.issuer}/authorize?{urlencode(q)}").headers["location"]
    check("no scope -> default mcp:tools on the login page", "<b>mcp:tools</b>" in http.get(login_url).text)

    # ---------------------------------------------------------------- other client auth methods
    basic = Client(http, peer, register(http, peer, "client_secret_basic").json())
    t = basic.get_tokens("mcp:tools", peer.rs_url)
    status, text = whoami(http, peer, t["access_token"])
    check("client_secret_basic (+ client_id in body) works", text == "you are ada", f"{status} {text!r}")
    r = http.post(f"{peer.issuer}/token", data={"grant_type": "refresh_token", "refresh_token": t["refresh_token"]},
                  headers={"Authorization": "Basic " + base64.b64encode(f"{basic.id}:{basic.secret}".encode()).decode()})
    info("client_secret_basic WITHOUT client_id in the body", f"{r.status_code} {r.text}")
    form, headers = basic._auth({"token": t["refresh_token"]})
    r = http.post(f"{peer.issuer}/revoke", data=form, headers=headers)
    info("revoke with client_secret_basic (client_id in body, no client_secret)", f"{r.status_code} {r.text[:160]}")
    form["client_secret"] = basic.secret
    r = http.post(f"{peer.issuer}/revoke", data=form, headers=headers)
    info("revoke with client_secret_basic + client_secret in body", f"{r.status_code} {r.text[:160]}")
    public = Client(http, peer, register(http, peer, "none").json())
    t = public.get_tokens("mcp:tools", peer.rs_url)
    status, text = whoami(http, peer, t["access_token"])
    check("public client (none) works", text == "you are ada", f"{status} {text!r}")
    form, headers = public._auth({"token": t["access_token"]})
    r = http.post(f"{peer.issuer}/revoke", data=form, headers=headers)
    info("revoke with a public client (client_id only)", f"{r.status_code} {r.text[:160]}")
    form["client_secret"] = ""
    r = http.post(f"{peer.issuer}/revoke", data=form, headers=headers)
    status, _ = whoami(http, peer, t["access_token"])
    info("revoke with a public client + empty client_secret", f"{r.status_code}; token afterwards -> {status}")
    r = http.post(f"{peer.issuer}/token", data={"grant_type": "refresh_token", "refresh_token": t["refresh_token"],
                                               "client_id": client.id, "client_secret": client.secret})
    check("refresh token of another client -> invalid_grant", r.status_code == 400 and r.json()["error"] == "invalid_grant")
    q = {"response_type": "code", "client_id": "https://client.example/metadata.json", "redirect_uri": REDIRECT,
         "code_challenge": pkce()[1], "code_challenge_method": "S256", "state": "x"}
    r = http.get(f"{peer.issuer}/authorize?{urlencode(q)}")
    info("URL client_id (CIMD) at /authorize", f"{r.status_code} {r.text}")

    # ---------------------------------------------------------------- control endpoints
    reqs = http.get(f"{peer.issuer}/_test/requests").json()
    tokreq = [e for e in reqs if e["path"] == "/token" and e["params"].get("grant_type") == "authorization_code"
              and e["params"].get("resource") == peer.rs_url and e["status"] == 200]
    e = tokreq[0]["params"] if tokreq else {}
    check("/_test/requests masks secrets, shows resource",
          e.get("client_secret") == "***" and e.get("code") == "***" and e.get("code_verifier") == "***"
          and e.get("resource") == peer.rs_url and e.get("client_id") == client.id, json.dumps(e))
    az = [x for x in reqs if x["path"] == "/authorize"][0]["params"]
    check("/_test/requests shows authorize params", az.get("code_challenge_method") == "S256"
          and az.get("resource") == peer.rs_url and az.get("redirect_uri") == REDIRECT, json.dumps(az))
    rv = [x for x in reqs if x["path"] == "/revoke"][0]["params"]
    check("/_test/requests masks the revoked token", rv.get("token") == "***", json.dumps(rv))
    check("/_test/requests keeps the last 100", len(reqs) <= 100, str(len(reqs)))
    clients = http.get(f"{peer.issuer}/_test/clients").json()
    me = [c for c in clients if c["client_id"] == client.id]
    check("/_test/clients lists the client", bool(me) and me[0]["redirect_uris"] == [REDIRECT]
          and me[0]["application_type"] == "web" and me[0]["token_endpoint_auth_method"] == "client_secret_post",
          json.dumps(me[0] if me else None))
    live = http.get(f"{peer.issuer}/_test/tokens").json()
    check("/_test/tokens records resource and subject",
          any(x["subject"] == "grace" and x["resource"] == peer.rs_url for x in live), f"{len(live)} live")


def main() -> int:
    verbose = "-v" in sys.argv
    peer: Peer | None = None
    try:
        peer = Peer(verbose)
        info("urls", f"issuer {peer.issuer}  RS {peer.rs_url}")
        run(peer)
        t0 = time.time()
        peer.proc.send_signal(signal.SIGTERM)
        rc = peer.proc.wait(timeout=10)
        check("SIGTERM -> clean exit", rc == 0, f"rc={rc} in {time.time() - t0:.2f}s")
        check("stdout had nothing after the first line", peer.proc.stdout.read() == "")  # type: ignore[union-attr]
        print("ALL OK")
        return 0
    except Exception as exc:
        if not isinstance(exc, Failed):
            print(f"FAIL unexpected {type(exc).__name__}: {exc}", flush=True)
        if not verbose:
            sys.stderr.write("".join(stderr_lines[-40:]))
        return 1
    finally:
        if peer and peer.proc.poll() is None:
            peer.proc.kill()
            peer.proc.wait()


if __name__ == "__main__":
    sys.exit(main())
