"""An MCP server written the way the official Python SDK (`mcp` 2.3.0) documents it.

    python python_sdk_server.py PORT

`MCPServer`, tools with `ctx.elicit(...)`, a `Resolve`/`Elicit` resolver, `ctx.elicit_url(...)`,
`UrlElicitationRequiredError`, sampling and roots, started with the SDK's own
`mcp.run(transport="streamable-http", host="127.0.0.1", port=PORT)`: it serves both protocol eras
on http://127.0.0.1:PORT/mcp, as the SDK does by default. Nothing here is arranged for Herald.

Every eliciting tool reports what the server received in one line the compatibility harness
reads: `action=accept content={…}`, `action=decline` or `action=cancel` (content as compact JSON
with sorted keys).
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import Annotated, Literal

import mcp_types as types
from pydantic import BaseModel, Field

from mcp.server import MCPServer
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    DeclinedElicitation,
    Elicit,
    ElicitationResult,
    ListRoots,
    Resolve,
    Sample,
)
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

mcp = MCPServer("compat-python-sdk", version="2.3.0")


class TripPreferences(BaseModel):
    """The form the eliciting tools ask for: one field of each common kind."""

    traveller: str = Field(title="Traveller", description="Who travels")
    nights: int = Field(default=2, ge=1, le=14, title="Nights")
    seat: Literal["aisle", "window"] = Field(default="aisle", title="Seat")
    insurance: bool = Field(default=False, title="Travel insurance")


def describe(outcome: object) -> str:
    if isinstance(outcome, AcceptedElicitation):
        data = outcome.data
        if isinstance(data, BaseModel):
            data = data.model_dump(mode="json")
        return "action=accept content=" + json.dumps(data, sort_keys=True, separators=(",", ":"))
    if isinstance(outcome, DeclinedElicitation):
        return "action=decline"
    return "action=cancel"


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text back. Asks nothing."""
    return text


@mcp.tool()
async def ask_push(destination: str, ctx: Context) -> str:
    """Ask with `ctx.elicit` (pushed `elicitation/create`, legacy sessions only)."""
    return describe(await ctx.elicit(f"Plan the trip to {destination}?", schema=TripPreferences))


def ask_trip(destination: str) -> Elicit[TripPreferences]:
    return Elicit(f"Plan the trip to {destination} (resolver)?", TripPreferences)


@mcp.tool()
async def ask_resolver(
    destination: str, trip: Annotated[ElicitationResult[TripPreferences], Resolve(ask_trip)]
) -> str:
    """Ask through a resolver: pushed on legacy sessions, `input_required` on 2026-07-28."""
    return describe(trip)


@mcp.tool()
async def ask_url(url: str, ctx: Context) -> str:
    """Ask the user to open a URL (`ctx.elicit_url`, URL mode)."""
    result = await ctx.elicit_url("Open this page to link your account.", url, str(uuid.uuid4()))
    return f"action={result.action}"


_authorized: set[str] = set()


@mcp.tool()
async def need_url(key: str) -> str:
    """Refuse with -32042 (`UrlElicitationRequiredError`) until the same call is retried."""
    if key not in _authorized:
        _authorized.add(key)
        raise UrlElicitationRequiredError(
            [
                types.ElicitRequestURLParams(
                    message="Authorise access to your files first.",
                    url=f"https://example.com/authorize/{key}",
                    elicitation_id=str(uuid.uuid4()),
                )
            ]
        )
    _authorized.discard(key)
    return f"authorized {key}"


def sampled_text(result: types.CreateMessageResult) -> str:
    content = result.content
    return content.text if isinstance(content, types.TextContent) else json.dumps(result.model_dump(mode="json"))


@mcp.tool()
async def sample_push(prompt: str, ctx: Context) -> str:
    """Ask the client's model (`sampling/createMessage` pushed on the call's stream)."""
    try:
        result = await ctx.session.create_message(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
            max_tokens=50,
            related_request_id=ctx.request_id,
        )
    except MCPError as e:
        return f"sampling failed: code={e.code} message={e.message}"
    return f"sampled={sampled_text(result)}"


@mcp.tool()
async def roots_push(ctx: Context) -> str:
    """Ask the client for its roots (`roots/list`)."""
    try:
        result = await ctx.session.list_roots()
    except MCPError as e:
        return f"roots failed: code={e.code} message={e.message}"
    return "roots=" + json.dumps([str(root.uri) for root in result.roots])


@mcp.tool()
async def ping_push(ctx: Context) -> str:
    """Ping the client from the server (`ping`)."""
    try:
        await ctx.session.send_ping()
    except MCPError as e:
        return f"ping failed: code={e.code} message={e.message}"
    return "pong"


def sample_summary(prompt: str) -> Sample:
    return Sample(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))], max_tokens=50
    )


@mcp.tool()
async def sample_resolver(
    prompt: str, sampled: Annotated[types.CreateMessageResult, Resolve(sample_summary)]
) -> str:
    """Sampling through a resolver: pushed on legacy sessions, `input_required` on 2026-07-28."""
    return f"sampled={sampled_text(sampled)}"


def client_roots() -> ListRoots:
    return ListRoots()


@mcp.tool()
async def roots_resolver(roots: Annotated[types.ListRootsResult, Resolve(client_roots)]) -> str:
    """Roots through a resolver: pushed on legacy sessions, `input_required` on 2026-07-28."""
    return "roots=" + json.dumps([str(root.uri) for root in roots.roots])


if __name__ == "__main__":
    mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
