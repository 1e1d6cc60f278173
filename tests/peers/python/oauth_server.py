"""OAuth-protected MCP peer for Herald's tests of per-person upstream OAuth, on the official `mcp` 2.3.0 SDK.

Usage:  tests/peers/.venv/bin/python tests/peers/python/oauth_server.py [--log-level info]

One process, two listeners on 127.0.0.1 with free ports:

  AUTHORIZATION SERVER  issuer http://127.0.0.1:<as_port>
      Built from the SDK's `create_auth_routes` with the in-memory provider below.
      /.well-known/oauth-authorization-server   RFC 8414 metadata (the SDK's, plus
                                                authorization_response_iss_parameter_supported)
      /authorize  /token  /register (RFC 7591 DCR)  /revoke (RFC 7009)
      /login      the person's sign-in form (field "login" = account name, button "Sign in",
                  button "Deny"); the account name becomes the token's subject
      /_test/*    control endpoints (JSON), see below

  RESOURCE SERVER  http://127.0.0.1:<rs_port>/mcp   (streamable HTTP, MCPServer)
      Bearer tokens are checked by the SDK's bearer middleware with a token verifier that looks
      the token up in the AS provider's store (same process, shared memory) and by the SDK's
      RFC 8707 check (`AuthSettings.validate_token_resource=True`): the token's resource must be
      exactly this URL.  /.well-known/oauth-protected-resource/mcp is the SDK's RFC 9728 metadata.
      401/403 carry `WWW-Authenticate: Bearer ..., resource_metadata="...", scope="..."`.

      tools: whoami()          -> "you are <subject>"
             write_note(text)  needs scope notes:write; without it: HTTP 403
                               error="insufficient_scope", scope="mcp:tools notes:write"

Readiness: the FIRST stdout line, flushed, is `listening <rs_port> <as_port>`.  Everything else
goes to stderr.  Nothing is written to disk and nothing leaves 127.0.0.1.  SIGTERM/SIGINT shut
both listeners down cleanly (exit 0).

Environment: ACCESS_TTL  access-token lifetime in seconds (default 3600).
             SECOND_AS=1  a second authorization server (its own issuer, clients and tokens) on
                          a third listener; the readiness line then ends with its port, and the
                          resource server takes tokens of either.

Test control endpoints (AS listener):
  GET  /_test/requests              last 100 requests to /authorize /token /register /revoke
                                    (secrets masked as "***")
  GET  /_test/clients               registered clients
  GET  /_test/tokens                live tokens (kind, subject, client_id, scopes, resource, sha256)
  GET  /_test/revoked               revoked tokens (kind, subject, client_id, sha256, via)
  POST /_test/expire-access-tokens  every live access token expires now; refresh still works
  POST /_test/revoke-subject        {"subject": "ada"}: forget all of ada's tokens and codes
  POST /_test/move-to-second-as     (SECOND_AS=1) the resource's RFC 9728 metadata names the second
                                    authorization server from now on: the server "moved"
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextvars
import hashlib
import html
import json
import logging
import os
import secrets
import signal
import socket
import sys
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlparse, urlunparse

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp.server import MCPServer
from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_metadata, build_resource_metadata_url, cors_middleware, create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

log = logging.getLogger("oauth-peer")

# SDK_AS_PUBLISHED=1: what the SDK does by itself, without the peer's two additions (RFC 9207 `iss`
# on the authorization responses, advertised in the metadata, and `scope` in the 401's challenge),
# so a client can be tested against the SDK exactly as it ships.
AS_PUBLISHED = os.environ.get("SDK_AS_PUBLISHED") == "1"
# The issuer the resource's metadata names instead of the first one, once /_test/move-to-second-as ran.
MOVED_TO: dict[str, str | None] = {"issuer": None, "second": None}


VALID_SCOPES = ["mcp:tools", "notes:write"]
DEFAULT_SCOPES = ["mcp:tools"]
RS_REQUIRED_SCOPES = ["mcp:tools"]  # every /mcp request (the SDK's RequireAuthMiddleware)
TOOL_SCOPES = {"write_note": ["mcp:tools", "notes:write"]}  # per tool, checked by StepUpGate
CODE_TTL = 300
LOGIN_TTL = 600
LOGGED_PATHS = ("/authorize", "/token", "/register", "/revoke")
MASKED_PARAMS = {"client_secret", "code", "code_verifier", "refresh_token", "access_token", "token", "assertion"}

# Form/query parameters of the current AS request, set by RequestLog.  The SDK's TokenHandler
# parses `resource` but does not hand it to the provider, so the provider reads it from here.
current_params: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("current_params", default=None)


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def valid_resource(resource: str) -> bool:
    """RFC 8707 §2: an absolute URI without a fragment."""
    try:
        parsed = urlparse(resource)
    except ValueError:
        return False
    return parsed.scheme in ("http", "https") and bool(parsed.netloc) and not parsed.fragment


# --------------------------------------------------------------------------- provider (AS store)


class PeerAccessToken(AccessToken):
    grant_id: str


class PeerRefreshToken(RefreshToken):
    grant_id: str


class PeerAuthorizationCode(AuthorizationCode):
    pass


@dataclass
class PendingLogin:
    client_id: str
    params: AuthorizationParams
    expires_at: float


@dataclass
class Store:
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    pending: dict[str, PendingLogin] = field(default_factory=dict)
    codes: dict[str, PeerAuthorizationCode] = field(default_factory=dict)
    access: dict[str, PeerAccessToken] = field(default_factory=dict)
    refresh: dict[str, PeerRefreshToken] = field(default_factory=dict)
    revoked: list[dict[str, Any]] = field(default_factory=list)
    requests: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=100))


class PeerProvider(OAuthAuthorizationServerProvider[PeerAuthorizationCode, PeerRefreshToken, PeerAccessToken]):
    """In-memory authorization server provider written for this peer."""

    def __init__(self, issuer: str, access_ttl: int):
        self.issuer = issuer
        self.access_ttl = access_ttl
        self.store = Store()

    # -- clients (RFC 7591; the SDK's RegistrationHandler validates and mints id/secret)
    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.store.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.store.clients[client_info.client_id] = client_info
        log.info("registered client %s (%s)", client_info.client_id, client_info.token_endpoint_auth_method)

    # -- authorization: send the person to our login page
    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if params.resource is not None and not valid_resource(params.resource):
            raise AuthorizeError("invalid_target", "resource must be an absolute http(s) URI without a fragment")
        now = time.time()
        for txn in [t for t, p in self.store.pending.items() if p.expires_at < now]:
            del self.store.pending[txn]
        txn = secrets.token_urlsafe(24)
        self.store.pending[txn] = PendingLogin(client.client_id, params, now + LOGIN_TTL)
        return f"{self.issuer}/login?{urlencode({'txn': txn})}"

    def finish_login(self, txn: str, account: str | None) -> str:
        """Consume the pending sign-in; return the redirect back to the client (code or access_denied)."""
        pending = self.store.pending.pop(txn)
        p = pending.params
        if account is None:
            return construct_redirect_uri(str(p.redirect_uri), error="access_denied",
                                          error_description="the person denied the request", state=p.state,
                                          **self._iss())
        code = secrets.token_urlsafe(32)
        self.store.codes[code] = PeerAuthorizationCode(
            code=code,
            scopes=p.scopes or list(DEFAULT_SCOPES),
            expires_at=time.time() + CODE_TTL,
            client_id=pending.client_id,
            code_challenge=p.code_challenge,
            redirect_uri=p.redirect_uri,
            redirect_uri_provided_explicitly=p.redirect_uri_provided_explicitly,
            resource=p.resource,
            subject=account,
        )
        log.info("code issued to %s for client %s, resource %s", account, pending.client_id, p.resource)
        return construct_redirect_uri(str(p.redirect_uri), code=code, state=p.state, **self._iss())

    def _iss(self) -> dict:
        return {} if AS_PUBLISHED else {"iss": self.issuer}

    # -- codes
    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> PeerAuthorizationCode | None:
        code = self.store.codes.get(authorization_code)
        return code if code is not None and code.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: PeerAuthorizationCode
    ) -> OAuthToken:
        resource = self._token_request_resource(authorization_code.resource)
        self.store.codes.pop(authorization_code.code, None)  # single use
        return self._issue(client.client_id, authorization_code.subject, authorization_code.scopes,
                           authorization_code.scopes, resource, grant_id=secrets.token_hex(8))

    # -- refresh (rotates: the old refresh token dies)
    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> PeerRefreshToken | None:
        rt = self.store.refresh.get(refresh_token)
        return rt if rt is not None and rt.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: PeerRefreshToken, scopes: list[str]
    ) -> OAuthToken:
        resource = self._token_request_resource(refresh_token.resource)
        if self.store.refresh.pop(refresh_token.token, None) is None:
            raise TokenError("invalid_grant", "refresh token does not exist")
        return self._issue(client.client_id, refresh_token.subject, scopes, refresh_token.scopes, resource,
                           grant_id=refresh_token.grant_id)

    def _token_request_resource(self, granted: str | None) -> str | None:
        """RFC 8707 on the token request: a `resource` must match the one granted (if any)."""
        asked = (current_params.get() or {}).get("resource")
        if isinstance(asked, list):
            raise TokenError("invalid_target", "only one resource per token request is supported")
        if asked is None:
            return granted
        if not valid_resource(asked):
            raise TokenError("invalid_target", "resource must be an absolute http(s) URI without a fragment")
        if granted is not None and asked != granted:
            raise TokenError("invalid_target", f"resource {asked} was not granted (granted: {granted})")
        return asked

    def _issue(self, client_id: str, subject: str | None, scopes: list[str], refresh_scopes: list[str],
               resource: str | None, grant_id: str) -> OAuthToken:
        access = "at_" + secrets.token_urlsafe(32)
        refresh = "rt_" + secrets.token_urlsafe(32)
        self.store.access[access] = PeerAccessToken(
            token=access, client_id=client_id, scopes=list(scopes), expires_at=int(time.time()) + self.access_ttl,
            resource=resource, subject=subject, claims={"iss": self.issuer}, grant_id=grant_id,
        )
        self.store.refresh[refresh] = PeerRefreshToken(
            token=refresh, client_id=client_id, scopes=list(refresh_scopes), resource=resource, subject=subject,
            grant_id=grant_id,
        )
        log.info("tokens issued: subject=%s client=%s scopes=%s resource=%s", subject, client_id, scopes, resource)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=self.access_ttl,
                          scope=" ".join(scopes), refresh_token=refresh)

    # -- access tokens
    async def load_access_token(self, token: str) -> PeerAccessToken | None:
        at = self.store.access.get(token)
        if at is None or (at.expires_at is not None and at.expires_at <= time.time()):
            return None
        return at

    # -- revocation: the whole grant (the access and refresh tokens of one sign-in) goes
    async def revoke_token(self, token: PeerAccessToken | PeerRefreshToken) -> None:
        self._forget(lambda t: t.grant_id == token.grant_id, via="revocation_endpoint")

    def revoke_subject(self, subject: str) -> int:
        for code in [c for c, v in self.store.codes.items() if v.subject == subject]:
            del self.store.codes[code]
        return self._forget(lambda t: t.subject == subject, via="revoke-subject")

    def _forget(self, match: Any, via: str) -> int:
        n = 0
        for kind, table in (("access_token", self.store.access), ("refresh_token", self.store.refresh)):
            for value in [v for v, t in table.items() if match(t)]:
                t = table.pop(value)
                self.store.revoked.append({"kind": kind, "subject": t.subject, "client_id": t.client_id,
                                           "sha256": sha256_hex(value), "via": via, "at": int(time.time())})
                n += 1
        log.info("revoked %d tokens (%s)", n, via)
        return n

    def expire_access_tokens(self) -> int:
        past = int(time.time()) - 1
        n = 0
        for at in self.store.access.values():
            if at.expires_at is None or at.expires_at > past:
                at.expires_at = past
                n += 1
        return n


class StoreTokenVerifier:
    """TokenVerifier for the RS: the token must be live in the AS store and issued for this resource."""

    def __init__(self, providers: list[PeerProvider], resource_url: str):
        self.providers = providers
        self.resource_url = resource_url

    async def verify_token(self, token: str) -> AccessToken | None:
        at = None
        for provider in self.providers:
            at = at or await provider.load_access_token(token)
        if at is None:
            log.info("rs: unknown, revoked or expired token %s…", sha256_hex(token)[:12])
            return None
        if (at.resource or "").rstrip("/") != self.resource_url.rstrip("/"):
            log.info("rs: token for resource %r refused (this resource is %s)", at.resource, self.resource_url)
            return None
        return at


# --------------------------------------------------------------------------- AS app


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A receive() that hands out the already-read body once, then defers to the real one (disconnects)."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class RequestLog:
    """ASGI wrapper on the AS: records requests to the OAuth endpoints (secrets masked), exposes
    their parameters to the provider (`current_params`) and adds RFC 9207 `iss` to the SDK's own
    error redirects from /authorize (the provider's login page adds it to the others)."""

    def __init__(self, app: ASGIApp, provider: PeerProvider):
        self.app = app
        self.provider = provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in LOGGED_PATHS:
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        params: dict[str, Any] = {}
        pairs = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        ctype = headers.get("content-type", "")
        body_json: Any = None
        if "application/x-www-form-urlencoded" in ctype:
            pairs += parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
        elif "json" in ctype:
            try:
                body_json = json.loads(body or b"null")
            except ValueError:
                body_json = {"_unparsable": True}
        for k, v in pairs:
            if k in params:
                params[k] = (params[k] if isinstance(params[k], list) else [params[k]]) + [v]
            else:
                params[k] = v
        if isinstance(body_json, dict):
            params.update(body_json)

        entry: dict[str, Any] = {
            "at": round(time.time(), 3),
            "method": scope["method"],
            "path": scope["path"],
            "params": {k: ("***" if k in MASKED_PARAMS else v) for k, v in params.items()},
            "basic_client_id": None,
            "status": None,
        }
        auth = headers.get("authorization", "")
        if auth.lower().startswith("basic "):
            try:
                entry["basic_client_id"] = base64.b64decode(auth[6:]).decode().split(":", 1)[0]
            except Exception:
                entry["basic_client_id"] = "<unparsable>"
        self.provider.store.requests.append(entry)

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]
                if scope["path"] == "/authorize" and message["status"] in (302, 303):
                    message = dict(message)
                    message["headers"] = [
                        (k, self._with_iss(v.decode("latin-1")).encode("latin-1")) if k.lower() == b"location" else (k, v)
                        for k, v in message["headers"]
                    ]
            await send(message)

        token = current_params.set(params)
        try:
            await self.app(scope, _replaying(body, receive), send_wrapper)
        finally:
            current_params.reset(token)

    def _with_iss(self, location: str) -> str:
        if AS_PUBLISHED or location.startswith(self.provider.issuer + "/login?"):
            return location
        parsed = urlparse(location)
        query = parse_qsl(parsed.query, keep_blank_values=True)
        if any(k == "iss" for k, _ in query):
            return location
        return urlunparse(parsed._replace(query=urlencode(query + [("iss", self.provider.issuer)])))


LOGIN_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Sign in - Herald OAuth test peer</title></head>
<body>
<h1>Sign in</h1>
<p>Client <b>{client}</b> asks for <b>{scopes}</b> on <b>{resource}</b>.</p>
{error}
<form method="post" action="/login">
  <input type="hidden" name="txn" value="{txn}">
  <label for="login">Account</label>
  <input id="login" name="login" type="text" autocomplete="username" autofocus>
  <button id="sign-in" type="submit">Sign in</button>
  <button id="deny" type="submit" name="deny" value="1">Deny</button>
</form>
</body></html>
"""


def build_as_app(provider: PeerProvider, settings: AuthSettings) -> ASGIApp:
    registration = ClientRegistrationOptions(enabled=True, valid_scopes=VALID_SCOPES, default_scopes=DEFAULT_SCOPES)
    revocation = RevocationOptions(enabled=True)
    routes = create_auth_routes(
        provider=provider,
        issuer_url=settings.issuer_url,
        client_registration_options=registration,
        revocation_options=revocation,
    )
    # The SDK's metadata, plus RFC 9207 §3: we send `iss` on every authorization response.
    metadata = build_metadata(settings.issuer_url, None, registration, revocation)
    if not AS_PUBLISHED:
        metadata.authorization_response_iss_parameter_supported = True
    well_known = "/.well-known/oauth-authorization-server"
    routes = [r for r in routes if getattr(r, "path", None) != well_known]
    routes.insert(0, Route(well_known, endpoint=cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"]),
                           methods=["GET", "OPTIONS"]))

    def pending_or_none(txn: str | None) -> PendingLogin | None:
        p = provider.store.pending.get(txn or "")
        return p if p is not None and p.expires_at >= time.time() else None

    def page(txn: str, p: PendingLogin, error: str = "", status: int = 200) -> HTMLResponse:
        client = provider.store.clients.get(p.client_id)
        name = (client.client_name if client else None) or p.client_id
        return HTMLResponse(
            LOGIN_PAGE.format(
                client=html.escape(name),
                scopes=html.escape(" ".join(p.params.scopes or DEFAULT_SCOPES)),
                resource=html.escape(p.params.resource or "(no resource)"),
                txn=html.escape(txn),
                error=f'<p id="error">{html.escape(error)}</p>' if error else "",
            ),
            status_code=status,
            headers={"Cache-Control": "no-store"},
        )

    async def login_get(request: Request) -> Response:
        txn = request.query_params.get("txn", "")
        p = pending_or_none(txn)
        if p is None:
            return HTMLResponse("<p>Unknown or expired sign-in request.</p>", status_code=400)
        return page(txn, p)

    async def login_post(request: Request) -> Response:
        form = await request.form()
        txn = str(form.get("txn", ""))
        p = pending_or_none(txn)
        if p is None:
            return HTMLResponse("<p>Unknown or expired sign-in request.</p>", status_code=400)
        if form.get("deny"):
            return RedirectResponse(provider.finish_login(txn, None), status_code=303, headers={"Cache-Control": "no-store"})
        account = str(form.get("login", "")).strip()
        if not account:
            return page(txn, p, error="Enter an account name.", status=400)
        return RedirectResponse(provider.finish_login(txn, account), status_code=303, headers={"Cache-Control": "no-store"})

    def client_view(c: OAuthClientInformationFull) -> dict[str, Any]:
        return {
            "client_id": c.client_id,
            "client_name": c.client_name,
            "redirect_uris": [str(u) for u in c.redirect_uris or []],
            "grant_types": c.grant_types,
            "response_types": c.response_types,
            "token_endpoint_auth_method": c.token_endpoint_auth_method,
            "application_type": c.application_type,
            "scope": c.scope,
            "has_secret": c.client_secret is not None,
        }

    def token_view(kind: str, value: str, t: PeerAccessToken | PeerRefreshToken) -> dict[str, Any]:
        return {"kind": kind, "subject": t.subject, "client_id": t.client_id, "scopes": t.scopes,
                "resource": t.resource, "expires_at": t.expires_at, "sha256": sha256_hex(value)}

    async def t_requests(request: Request) -> Response:
        return JSONResponse(list(provider.store.requests))

    async def t_clients(request: Request) -> Response:
        return JSONResponse([client_view(c) for c in provider.store.clients.values()])

    async def t_tokens(request: Request) -> Response:
        now = time.time()
        live = [token_view("access_token", v, t) for v, t in provider.store.access.items()
                if t.expires_at is None or t.expires_at > now]
        live += [token_view("refresh_token", v, t) for v, t in provider.store.refresh.items()]
        return JSONResponse(live)

    async def t_revoked(request: Request) -> Response:
        return JSONResponse(provider.store.revoked)

    async def t_expire(request: Request) -> Response:
        return JSONResponse({"expired": provider.expire_access_tokens()})

    async def t_revoke_subject(request: Request) -> Response:
        try:
            subject = (await request.json())["subject"]
            assert isinstance(subject, str) and subject
        except Exception:
            return JSONResponse({"error": 'body must be {"subject": "<account>"}'}, status_code=400)
        return JSONResponse({"subject": subject, "revoked": provider.revoke_subject(subject)})

    async def t_move(request: Request) -> Response:
        if MOVED_TO["second"] is None:
            return JSONResponse({"error": "start with SECOND_AS=1"}, status_code=400)
        MOVED_TO["issuer"] = MOVED_TO["second"]
        return JSONResponse({"authorization_server": MOVED_TO["issuer"]})

    routes += [
        Route("/_test/move-to-second-as", t_move, methods=["POST"]),
        Route("/login", login_get, methods=["GET"]),
        Route("/login", login_post, methods=["POST"]),
        Route("/_test/requests", t_requests, methods=["GET"]),
        Route("/_test/clients", t_clients, methods=["GET"]),
        Route("/_test/tokens", t_tokens, methods=["GET"]),
        Route("/_test/revoked", t_revoked, methods=["GET"]),
        Route("/_test/expire-access-tokens", t_expire, methods=["POST"]),
        Route("/_test/revoke-subject", t_revoke_subject, methods=["POST"]),
    ]
    return RequestLog(Starlette(routes=routes), provider)


# --------------------------------------------------------------------------- RS app


class StepUpGate:
    """ASGI wrapper around the RS app.

    * Per-tool scopes: the SDK's RequireAuthMiddleware only checks one global list of scopes, so
      a `tools/call` for a tool in TOOL_SCOPES is checked here: with a valid token that lacks a
      scope the answer is HTTP 403 `error="insufficient_scope"` naming the scopes the call needs.
      An invalid or missing token passes through and the SDK answers 401.
    * The SDK's 401/403 challenges name `resource_metadata` but no `scope`; this adds
      `scope="mcp:tools"` (RFC 6750 §3 / MCP scope selection) when it is missing.
    """

    def __init__(self, app: ASGIApp, verifier: StoreTokenVerifier, mcp_path: str, resource_metadata_url: str):
        self.app = app
        self.verifier = verifier
        self.mcp_path = mcp_path
        self.resource_metadata_url = resource_metadata_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.mcp_path:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "POST":
            body = b""
            more = True
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    break
                body += message.get("body", b"")
                more = message.get("more_body", False)
            needed = self._needed_scopes(body)
            if needed:
                token = self._bearer(scope)
                at = await self.verifier.verify_token(token) if token else None
                if at is not None and not set(needed) <= set(at.scopes):
                    await self._forbidden(send, needed, at.scopes)
                    return
            receive = _replaying(body, receive)

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (401, 403):
                headers = []
                for k, v in message["headers"]:
                    if k.lower() == b"www-authenticate" and b"scope=" not in v and not AS_PUBLISHED:
                        v = v + f', scope="{" ".join(RS_REQUIRED_SCOPES)}"'.encode()
                    headers.append((k, v))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_wrapper)

    @staticmethod
    def _bearer(scope: Scope) -> str | None:
        for k, v in scope["headers"]:
            if k.lower() == b"authorization":
                value = v.decode("latin-1")
                if value.lower().startswith("bearer "):
                    return value[7:]
        return None

    @staticmethod
    def _needed_scopes(body: bytes) -> list[str]:
        try:
            payload = json.loads(body)
        except ValueError:
            return []
        needed: list[str] = []
        for msg in payload if isinstance(payload, list) else [payload]:
            if isinstance(msg, dict) and msg.get("method") == "tools/call":
                name = (msg.get("params") or {}).get("name")
                for s in TOOL_SCOPES.get(name, []) if isinstance(name, str) else []:
                    if s not in needed:
                        needed.append(s)
        return needed

    async def _forbidden(self, send: Send, needed: list[str], has: list[str]) -> None:
        missing = " ".join(s for s in needed if s not in has)
        challenge = (f'Bearer error="insufficient_scope", scope="{" ".join(needed)}", '
                     f'resource_metadata="{self.resource_metadata_url}", error_description="Required scope: {missing}"')
        body = json.dumps({"error": "insufficient_scope", "error_description": f"Required scope: {missing}"}).encode()
        await send({"type": "http.response.start", "status": 403, "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", challenge.encode()),
        ]})
        await send({"type": "http.response.body", "body": body})


def build_rs_app(verifier: StoreTokenVerifier, settings: AuthSettings) -> ASGIApp:
    mcp = MCPServer(
        "herald-oauth-peer",
        version="1.0.0",
        instructions="Test peer for Herald: an MCP server protected by OAuth (per-person upstream OAuth).",
        token_verifier=verifier,
        auth=settings,
    )
    notes: list[tuple[str | None, str]] = []

    def subject() -> str | None:
        at = get_access_token()
        return at.subject if at else None

    @mcp.tool()
    def whoami() -> str:
        """Say which account the bearer token belongs to."""
        return f"you are {subject()}"

    @mcp.tool()
    def write_note(text: str) -> str:
        """Store a note (needs scope notes:write)."""
        at = get_access_token()
        if at is None or "notes:write" not in at.scopes:  # StepUpGate answers 403 before we get here
            raise ValueError("insufficient_scope: notes:write")
        notes.append((at.subject, text))
        return f"note {len(notes)} saved for {at.subject}: {text}"

    app = mcp.streamable_http_app(host="127.0.0.1")
    prm = str(build_resource_metadata_url(settings.resource_server_url))  # type: ignore[arg-type]
    gate = StepUpGate(app, verifier, urlparse(str(settings.resource_server_url)).path.rstrip("/"), prm)
    return MovableMetadata(gate, urlparse(prm).path)


class MovableMetadata:
    """ASGI wrapper: once the test moved the server (/_test/move-to-second-as), the SDK's RFC 9728
    metadata names the second authorization server instead of the first; all else is the SDK's."""

    def __init__(self, app: ASGIApp, metadata_path: str):
        self.app = app
        self.metadata_path = metadata_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        moved = MOVED_TO["issuer"]
        if scope["type"] != "http" or scope["path"] != self.metadata_path or moved is None:
            await self.app(scope, receive, send)
            return
        start: dict = {}
        body = b""

        async def capture(message: Message) -> None:
            nonlocal body
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                body += message.get("body", b"")

        await self.app(scope, receive, capture)
        document = json.loads(body)
        document["authorization_servers"] = [moved]
        body = json.dumps(document).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": start.get("status", 200), "headers": headers})
        await send({"type": "http.response.body", "body": body})


# --------------------------------------------------------------------------- serving


class _Server(uvicorn.Server):
    """Two servers share one loop, so signals are handled once, by main(), not by each server."""

    @contextmanager
    def capture_signals(self):  # type: ignore[override]
        yield


def _bind() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.set_inheritable(True)
    return sock


async def serve(log_level: str) -> int:
    access_ttl = int(os.environ.get("ACCESS_TTL", "3600"))
    as_sock, rs_sock = _bind(), _bind()
    as_port, rs_port = as_sock.getsockname()[1], rs_sock.getsockname()[1]
    issuer = f"http://127.0.0.1:{as_port}"
    rs_url = f"http://127.0.0.1:{rs_port}/mcp"

    def auth_settings(issuer_url: str) -> AuthSettings:
        return AuthSettings(
            issuer_url=issuer_url,  # type: ignore[arg-type]
            resource_server_url=rs_url,  # type: ignore[arg-type]
            required_scopes=RS_REQUIRED_SCOPES,
            validate_token_resource=True,
        )

    settings = auth_settings(issuer)
    provider = PeerProvider(issuer, access_ttl)
    providers = [provider]
    second = None
    if os.environ.get("SECOND_AS") == "1":
        as2_sock = _bind()
        issuer2 = f"http://127.0.0.1:{as2_sock.getsockname()[1]}"
        provider2 = PeerProvider(issuer2, access_ttl)
        providers.append(provider2)
        MOVED_TO["second"] = issuer2
        second = (as2_sock, build_as_app(provider2, auth_settings(issuer2)))
    verifier = StoreTokenVerifier(providers, rs_url)
    as_app = build_as_app(provider, settings)
    rs_app = build_rs_app(verifier, settings)
    # MCPServer() ran logging.basicConfig(level=INFO); put our level and stderr back on the root logger.
    logging.basicConfig(stream=sys.stderr, level=log_level.upper(),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s", force=True)

    def config(app: ASGIApp) -> uvicorn.Config:
        # log_config=None: uvicorn's loggers propagate to the root logger (stderr); its default
        # config would print access lines on stdout.
        return uvicorn.Config(app, log_config=None, log_level=log_level, lifespan="auto",
                              timeout_graceful_shutdown=1)

    as_server, rs_server = _Server(config(as_app)), _Server(config(rs_app))
    servers = [as_server, rs_server]
    tasks = [asyncio.create_task(as_server.serve(sockets=[as_sock])),
             asyncio.create_task(rs_server.serve(sockets=[rs_sock]))]
    if second is not None:
        as2_server = _Server(config(second[1]))
        servers.append(as2_server)
        tasks.append(asyncio.create_task(as2_server.serve(sockets=[second[0]])))

    loop = asyncio.get_running_loop()

    def stop() -> None:
        log.info("signal: shutting down")
        for server in servers:
            server.should_exit = True

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)

    while not all(server.started for server in servers):
        if any(t.done() for t in tasks):
            stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            log.error("startup failed")
            return 1
        await asyncio.sleep(0.01)
    extra = f" {second[0].getsockname()[1]}" if second is not None else ""
    sys.stdout.write(f"listening {rs_port} {as_port}{extra}\n")
    sys.stdout.flush()
    log.info("AS issuer %s, RS %s, access ttl %ss", issuer, rs_url, access_ttl)
    await asyncio.gather(*tasks)
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log-level", default="warning", help="log level (stderr)")
    args = parser.parse_args()
    sys.exit(asyncio.run(serve(args.log_level)))


if __name__ == "__main__":
    main()
