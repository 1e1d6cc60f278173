"""An MCP server on the official `mcp` SDK whose bearer tokens an OpenID Provider issues.

Usage:
  tests/peers/.venv/bin/python tests/peers/python/oidc_protected_server.py \
      --issuer http://127.0.0.1:<port> --client-id notes-rs --client-secret <secret> [--port 0]

The authorization server is someone else's (in Herald's tests: `oidc-provider` from npm, run by
tests/peers/oidc/provider.mjs). This is a plain resource server, as the SDK documents one
(`MCPServer(token_verifier=..., auth=AuthSettings(...))`, after the SDK's `simple-auth`
example):

  * Bearer tokens are checked by token introspection (RFC 7662) at the issuer's
    `introspection_endpoint` (from its RFC 8414 / OpenID discovery metadata, or
    --introspection-endpoint), authenticated as a client of that issuer (client_secret_basic).
    A token must be `active`, issued by that issuer, for this server (`aud`, the RFC 8707
    resource indicator, is this server's URL: the SDK's `validate_token_resource`) and carry
    the scope `mcp:tools` (the SDK's `required_scopes`).
  * /.well-known/oauth-protected-resource/mcp is the SDK's RFC 9728 metadata, naming the issuer
    as the authorization server; a 401 carries the SDK's `WWW-Authenticate: Bearer
    resource_metadata="..."`.
  * tool `whoami` -> "you are <sub>" (the token's subject).

Readiness: the FIRST stdout line, flushed, is `listening <port>`; the server is
http://127.0.0.1:<port>/mcp. Everything else goes to stderr. SIGTERM/SIGINT exit 0.

Environment instead of flags: OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET,
OIDC_INTROSPECTION_ENDPOINT, PORT.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import socket
import sys
from contextlib import contextmanager

import httpx2
import uvicorn

from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

log = logging.getLogger("oidc-protected-server")

REQUIRED_SCOPES = ["mcp:tools"]


class IntrospectionTokenVerifier(TokenVerifier):
    """Checks a bearer token by asking the authorization server about it (RFC 7662)."""

    def __init__(self, introspection_endpoint: str, issuer: str, server_url: str, client_id: str, client_secret: str):
        self.introspection_endpoint = introspection_endpoint
        self.issuer = issuer
        self.resource_url = resource_url_from_server_url(server_url)
        self.auth = httpx2.BasicAuth(client_id, client_secret)

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            async with httpx2.AsyncClient(timeout=10.0) as client:
                response = await client.post(
                    self.introspection_endpoint,
                    data={"token": token, "token_type_hint": "access_token"},
                    headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
                    auth=self.auth,
                )
        except httpx2.HTTPError as e:
            log.warning("introspection failed: %s", e)
            return None
        if response.status_code != 200:
            log.warning("introspection answered HTTP %s: %s", response.status_code, response.text[:200])
            return None
        data = response.json()
        if not data.get("active", False):
            log.info("token is not active")
            return None
        if data.get("iss") not in (None, self.issuer):
            log.info("token from another issuer: %r", data.get("iss"))
            return None
        resource = self._resource_of(data.get("aud"))
        if resource is None:
            log.info("token is for %r, not %s", data.get("aud"), self.resource_url)
            return None
        return AccessToken(
            token=token,
            client_id=data.get("client_id", "unknown"),
            scopes=data.get("scope", "").split(),
            expires_at=data.get("exp"),
            resource=resource,
            subject=data.get("sub"),
            claims={"iss": data.get("iss", self.issuer)},
        )

    def _resource_of(self, aud: str | list[str] | None) -> str | None:
        """The audience entry that is this server (RFC 8707), if any."""
        for candidate in [aud] if isinstance(aud, str) else aud or []:
            if isinstance(candidate, str) and check_resource_allowed(candidate, self.resource_url):
                return self.resource_url
        return None


async def discover_introspection_endpoint(issuer: str) -> str:
    """The issuer's introspection endpoint, from RFC 8414 metadata, else OpenID discovery."""
    async with httpx2.AsyncClient(timeout=10.0) as client:
        for well_known in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
            response = await client.get(issuer.rstrip("/") + well_known)
            if response.status_code == 200:
                metadata = response.json()
                if metadata.get("issuer") != issuer:
                    raise SystemExit(f"{well_known} names the issuer {metadata.get('issuer')!r}, not {issuer}")
                if endpoint := metadata.get("introspection_endpoint"):
                    return endpoint
    raise SystemExit(f"{issuer} publishes no introspection_endpoint; pass --introspection-endpoint")


def build_server(server_url: str, issuer: str, verifier: TokenVerifier) -> MCPServer:
    mcp = MCPServer(
        "oidc-protected-notes",
        instructions="An MCP server whose tokens an OpenID Provider issues.",
        token_verifier=verifier,
        auth=AuthSettings(
            issuer_url=issuer,  # type: ignore[arg-type]
            resource_server_url=server_url,  # type: ignore[arg-type]
            required_scopes=REQUIRED_SCOPES,
            validate_token_resource=True,
        ),
    )

    @mcp.tool()
    def whoami() -> str:
        """Say which account the bearer token belongs to."""
        token = get_access_token()
        return f"you are {token.subject if token else None}"

    return mcp


class _Server(uvicorn.Server):
    """Signals are handled by serve(), so that SIGTERM exits 0 after a clean shutdown."""

    @contextmanager
    def capture_signals(self):  # type: ignore[override]
        yield


async def serve(args: argparse.Namespace) -> int:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    server_url = f"http://127.0.0.1:{port}/mcp"
    endpoint = args.introspection_endpoint or await discover_introspection_endpoint(args.issuer)
    verifier = IntrospectionTokenVerifier(endpoint, args.issuer, server_url, args.client_id, args.client_secret)
    mcp = build_server(server_url, args.issuer, verifier)
    # MCPServer() configured logging at INFO; put ours back, on stderr.
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s", force=True)
    app = mcp.streamable_http_app(host="127.0.0.1")
    # log_config=None: uvicorn's loggers go to the root logger (stderr), not stdout.
    server = _Server(uvicorn.Config(app, log_config=None, log_level=args.log_level, timeout_graceful_shutdown=1))
    task = asyncio.create_task(server.serve(sockets=[sock]))

    def stop() -> None:
        server.should_exit = True

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    while not server.started:
        if task.done():
            log.error("startup failed")
            return 1
        await asyncio.sleep(0.01)
    sys.stdout.write(f"listening {port}\n")
    sys.stdout.flush()
    log.info("MCP server %s, tokens from %s, introspected at %s", server_url, args.issuer, endpoint)
    await task
    return 0


def main() -> None:
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issuer", default=env("OIDC_ISSUER"), help="the authorization server's issuer")
    parser.add_argument("--client-id", default=env("OIDC_CLIENT_ID"), help="this server's client id there")
    parser.add_argument("--client-secret", default=env("OIDC_CLIENT_SECRET"), help="…and its secret")
    parser.add_argument("--introspection-endpoint", default=env("OIDC_INTROSPECTION_ENDPOINT"),
                        help="default: from the issuer's metadata")
    parser.add_argument("--port", type=int, default=int(env("PORT", "0")), help="default 0: a free port")
    parser.add_argument("--log-level", default="warning", help="log level (stderr)")
    args = parser.parse_args()
    for name in ("issuer", "client_id", "client_secret"):
        if not getattr(args, name):
            parser.error(f"--{name.replace('_', '-')} (or OIDC_{name.upper()}) is required")
    sys.exit(asyncio.run(serve(args)))


if __name__ == "__main__":
    main()
