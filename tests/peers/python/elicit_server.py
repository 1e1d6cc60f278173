"""Eliciting MCP peer for Herald's end-to-end tests, built on the official `mcp` 2.3.0 SDK.

Usage:  tests/peers/.venv/bin/python tests/peers/python/elicit_server.py --port N

Serves Streamable HTTP on http://127.0.0.1:N/mcp.  One endpoint speaks both protocol
generations: a request carrying `initialize` (2025-06-18 / 2025-11-25) starts a legacy
session, a request carrying `params._meta["io.modelcontextprotocol/protocolVersion"] =
"2026-07-28"` and the `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers is served
statelessly.

Readiness: once the socket is bound and the ASGI lifespan (the SDK's session manager) has
started, the process prints exactly one line `READY <port>` to stdout and flushes it.
`--port 0` picks a free port; the printed port is the real one.  Everything else (uvicorn and
SDK logs) goes to stderr.

Tools:
  echo(text)                 no elicitation; returns the text.
  confirm_deploy(service)    legacy push via `ctx.elicit(message, schema=DeployConfirmation)`.
                             Returns `accepted: {"confirm": true, ...}` / `declined` / `cancelled`.
                             On a 2026-07-28 request there is no back-channel, so the call fails
                             (tool error; see README).
  book_table(restaurant)     resolver mechanism: `Annotated[ElicitationResult[Booking],
                             Resolve(ask_booking)]`.  Legacy: pushes `elicitation/create`.
                             2026-07-28: returns `resultType: "input_required"` with
                             `inputRequests` + `requestState`; the retry carries `inputResponses`.
                             Returns JSON text: {"action", "restaurant", "booking" (validated,
                             server defaults filled in), "fields_sent" (keys the client sent)}.
  ask_model(prompt)          legacy push of `sampling/createMessage` on the call's stream
                             (`ctx.session.create_message(..., related_request_id=...)`; the SDK
                             sends it whatever the client declared).  Returns `model said: TEXT`,
                             or `sampling failed: MESSAGE (CODE)` when the client answers an error.
  list_my_roots()            `roots/list` (on the standalone stream: the SDK sends it unrelated to
                             the call).  Returns `roots: URI, …` or `roots failed: MESSAGE (CODE)`.
  slow_elicit(timeout_seconds=5.0)
                             legacy push with the SDK's own request timeout
                             (`request_read_timeout_seconds`).  If the client does not answer in
                             time the SDK sends `notifications/cancelled` for the elicitation id
                             and raises MCPError(-32001 "Request 'elicitation/create' timed out"),
                             which MCPServer turns into a JSON-RPC error response for the
                             tools/call.  timeout_seconds <= 0 means no timeout (waits forever,
                             which is also what plain `ctx.elicit` does).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from typing import Annotated, Literal

import uvicorn
from pydantic import BaseModel, Field

import mcp_types as types
from mcp.server import MCPServer
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    DeclinedElicitation,
    Elicit,
    ElicitationResult,
    Resolve,
)
from mcp.server.elicitation import render_elicitation_schema
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata

mcp = MCPServer(
    "herald-elicit-peer",
    version="1.0.0",
    instructions="Test peer for Herald: tools that elicit, legacy push and 2026-07-28 input_required.",
)


# --------------------------------------------------------------------------- schemas


class DeployConfirmation(BaseModel):
    confirm: bool = Field(description="Proceed with the deployment?")
    reason: str | None = Field(default=None, description="Optional reason, recorded in the audit log")


class Booking(BaseModel):
    party_size: int = Field(default=2, ge=1, le=12, title="Party size", description="Number of guests")
    date: str = Field(title="Date", description="Day of the booking", json_schema_extra={"format": "date"})
    seating: Literal["indoor", "outdoor", "bar"] = Field(default="indoor", title="Seating")
    high_chair: bool = Field(default=False, title="High chair needed")
    notes: str = Field(default="", max_length=200, title="Notes")


class SlowAnswer(BaseModel):
    answer: str = Field(description="Anything; answer slowly to see the timeout")


def _describe(outcome: object) -> str:
    if isinstance(outcome, AcceptedElicitation):
        data = outcome.data
        if isinstance(data, BaseModel):
            data = data.model_dump(mode="json", exclude_none=True)
        return "accepted: " + json.dumps(data, separators=(", ", ": "), sort_keys=True)
    if isinstance(outcome, DeclinedElicitation):
        return "declined"
    return "cancelled"


# --------------------------------------------------------------------------- tools


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text back. No elicitation."""
    return text


@mcp.tool()
async def confirm_deploy(service: str, ctx: Context) -> str:
    """Ask the user (legacy elicitation/create push) to confirm deploying a service."""
    outcome = await ctx.elicit(f"Deploy {service} to production?", schema=DeployConfirmation)
    return f"deploy {service}: {_describe(outcome)}"


def ask_booking(restaurant: str) -> Elicit[Booking]:
    return Elicit(f"Book a table at {restaurant}?", Booking)


@mcp.tool()
async def book_table(
    restaurant: str,
    booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)],
) -> str:
    """Book a table; the details are elicited (push on legacy, input_required on 2026-07-28)."""
    if isinstance(booking, AcceptedElicitation):
        # `booking` is the validated model, so omitted fields carry the server-side defaults;
        # `fields_sent` lists the fields the client actually put in `content`, which lets a test
        # tell whether the host pre-filled the schema defaults itself.
        return json.dumps(
            {
                "restaurant": restaurant,
                "action": "accept",
                "booking": booking.data.model_dump(mode="json"),
                "fields_sent": sorted(booking.data.model_fields_set),
            },
            sort_keys=True,
        )
    return json.dumps({"restaurant": restaurant, "action": booking.action}, sort_keys=True)


@mcp.tool()
async def ask_model(prompt: str, ctx: Context) -> str:
    """Ask the client's model (sampling/createMessage, on this call's stream)."""
    try:
        result = await ctx.session.create_message(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
            max_tokens=50,
            related_request_id=ctx.request_id,
        )
    except MCPError as e:
        return f"sampling failed: {e.error.message} ({e.error.code})"
    content = result.content
    text = content.text if isinstance(content, types.TextContent) else type(content).__name__
    return f"model said: {text}"


@mcp.tool()
async def list_my_roots(ctx: Context) -> str:
    """Ask the client for its roots (roots/list, on the standalone stream)."""
    try:
        result = await ctx.session.list_roots()
    except MCPError as e:
        return f"roots failed: {e.error.message} ({e.error.code})"
    return "roots: " + ", ".join(str(root.uri) for root in result.roots)


@mcp.tool()
async def slow_elicit(ctx: Context, timeout_seconds: float = 5.0) -> str:
    """Elicit with the SDK's own request timeout (legacy push); do not answer to see it fire."""
    request = types.ElicitRequest(
        params=types.ElicitRequestFormParams(
            message=f"Answer within {timeout_seconds}s (or don't)",
            requested_schema=render_elicitation_schema(SlowAnswer),
        )
    )
    result = await ctx.session.send_request(
        request,
        types.ElicitResult,
        request_read_timeout_seconds=timeout_seconds if timeout_seconds > 0 else None,
        metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
    )
    if result.action == "accept":
        return "accepted: " + json.dumps(result.content or {}, sort_keys=True)
    return "declined" if result.action == "decline" else "cancelled"


# --------------------------------------------------------------------------- serving


class _ReadyServer(uvicorn.Server):
    """uvicorn.Server that prints `READY <port>` once lifespan startup is done and sockets listen."""

    async def startup(self, sockets=None) -> None:  # type: ignore[override]
        await super().startup(sockets=sockets)
        if self.should_exit or not self.servers:
            return
        port = self.servers[0].sockets[0].getsockname()[1]
        sys.stdout.write(f"READY {port}\n")
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True, help="TCP port on 127.0.0.1 (0 = pick a free one)")
    parser.add_argument("--log-level", default="warning", help="uvicorn log level (stderr)")
    args = parser.parse_args()

    # MCPServer() already ran logging.basicConfig(level="INFO"); force our level onto the root logger.
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s", force=True
    )
    # host="127.0.0.1" makes the SDK enable its DNS-rebinding guard: Host must be
    # 127.0.0.1:*, localhost:* or [::1]:*; Origin, when present, http://127.0.0.1:* etc.
    app = mcp.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level=args.log_level, lifespan="on")
    server = _ReadyServer(config)
    asyncio.run(server.serve())


if __name__ == "__main__":
    main()
