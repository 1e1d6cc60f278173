"""Deliberately broken MCP servers for the bad-input cells (not SDK peers; see matrix.HOSTILE_CASES).

    python hostile.py PORT      # prints READY <port>; endpoints http://127.0.0.1:PORT/<case>/mcp

  liar-modern       answers server/discover for 2026-07-28, then pushes `elicitation/create` on the
                    tools/call stream (a request 2026-07-28 does not have) and never answers the call
  liar-legacy       refuses server/discover, initializes a 2025-11-25 session, then answers
                    tools/call with a 2026-07-28 `input_required` result
  garbage-discover  answers every POST, server/discover first, with 200 and a body that is not JSON
  malformed-discover answers server/discover with a JSON-RPC result of the wrong shape
                    (`supportedVersions` a string, no capabilities), and every other request likewise
  stuck-initialize  refuses server/discover as a legacy server does, then holds initialize open
                    forever (SSE headers and keep-alive comments, never a result)
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

TOOL = {"name": "anything", "description": "Calls into a broken server", "inputSchema": {"type": "object"}}
NOT_INITIALIZED = {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request: Server not initialized"}, "id": None}
DISCOVERED = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "serverInfo": {"name": "liar", "version": "1"},
              "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}


def reply(message: dict, result: dict) -> JSONResponse:
    return JSONResponse({"jsonrpc": "2.0", "id": message.get("id"), "result": result})


async def forever(first: str = ""):
    if first:
        yield first.encode()
    while True:
        yield b": keep-alive\n\n"
        await asyncio.sleep(5)


async def liar_modern(request: Request) -> Response:
    if request.method != "POST":
        return Response(status_code=405)
    message = json.loads(await request.body())
    method = message.get("method")
    if method == "server/discover":
        return reply(message, DISCOVERED)
    if method == "tools/list":
        return reply(message, {"tools": [TOOL], "resultType": "complete"})
    if method == "tools/call":
        push = {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
                "params": {"mode": "form", "message": "A question 2026-07-28 cannot carry",
                           "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}
        return StreamingResponse(forever(f"event: message\ndata: {json.dumps(push)}\n\n"), media_type="text/event-stream")
    return JSONResponse(NOT_INITIALIZED, status_code=400)


async def liar_legacy(request: Request) -> Response:
    if request.method == "DELETE":
        return Response(status_code=200)
    if request.method != "POST":
        return Response(status_code=405)
    message = json.loads(await request.body())
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "liar", "version": "1"}}
        response = reply(message, result)
        response.headers["mcp-session-id"] = uuid.uuid4().hex
        return response
    if not request.headers.get("mcp-session-id"):
        return JSONResponse(NOT_INITIALIZED, status_code=400)
    if "id" not in message:
        return Response(status_code=202)
    if method == "tools/list":
        return reply(message, {"tools": [TOOL]})
    if method == "tools/call":
        question = {"method": "elicitation/create",
                    "params": {"mode": "form", "message": "A 2026-07-28 question in a 2025-11-25 session",
                               "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}
        return reply(message, {"resultType": "input_required", "inputRequests": {"q": question}, "requestState": "s"})
    return reply(message, {})


async def garbage_discover(request: Request) -> Response:
    return Response("<html>this is not JSON-RPC</html>", media_type="application/json")


async def malformed_discover(request: Request) -> Response:
    message = json.loads(await request.body()) if request.method == "POST" else {}
    return reply(message, {"supportedVersions": "2026-07-28", "resultType": 7})


async def stuck_initialize(request: Request) -> Response:
    if request.method == "POST":
        message = json.loads(await request.body())
        if message.get("method") == "initialize":
            return StreamingResponse(forever(), media_type="text/event-stream")
    return JSONResponse(NOT_INITIALIZED, status_code=400)


class Server(uvicorn.Server):
    async def startup(self, sockets=None) -> None:
        await super().startup(sockets)
        port = self.servers[0].sockets[0].getsockname()[1]
        print(f"READY {port}", flush=True)


app = Starlette(routes=[
    Route(f"/{name}/mcp", handler, methods=["GET", "POST", "DELETE"])
    for name, handler in (("liar-modern", liar_modern), ("liar-legacy", liar_legacy),
                          ("garbage-discover", garbage_discover), ("malformed-discover", malformed_discover),
                          ("stuck-initialize", stuck_initialize))
])

if __name__ == "__main__":
    config = uvicorn.Config(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
    asyncio.run(Server(config).serve())
