"""A recording reverse proxy between the agents and Herald.

An agent of cell C speaking era E is pointed at `http://TAP/C/E/mcp/{org}/{server}`; the tap
forwards every request to Herald's `/mcp/{org}/{server}` unchanged and streams the reply back
unchanged (JSON bodies and SSE streams alike, keep-alives included). On the way it records every
JSON-RPC message Herald sends the agent (a JSON body, or each SSE `data:` event) and validates it
against the official schema of era E (`schemas.validate`); request ids are mapped to methods from
the agent's own POSTs, so a response is checked as the result of its request.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from schemas import validate

HOP_BY_HOP = {"host", "content-length", "connection", "transfer-encoding", "keep-alive"}


@dataclass
class CellTrace:
    era: str
    methods: dict[Any, str] = field(default_factory=dict)
    sent: list[dict[str, Any]] = field(default_factory=list)  # what the agent sent
    received: list[Any] = field(default_factory=list)  # what Herald sent the agent
    problems: list[str] = field(default_factory=list)  # schema violations, in order
    statuses: list[int] = field(default_factory=list)

    def see(self, raw: str) -> None:
        try:
            message = json.loads(raw)
        except json.JSONDecodeError as e:
            self.problems.append(f"not JSON ({e}): {raw[:200]}")
            return
        self.received.append(message)
        for problem in validate(self.era, message, self.methods):
            self.problems.append(problem)


class Tap:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.traces: dict[str, CellTrace] = {}
        self.http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=None))
        self.app = Starlette(routes=[Route("/{cell}/{era}/{rest:path}", self.forward,
                                           methods=["GET", "POST", "DELETE"])])

    def trace(self, cell: str, era: str) -> CellTrace:
        return self.traces.setdefault(cell, CellTrace(era=era))

    async def forward(self, request: Request) -> Response:
        cell, era, rest = request.path_params["cell"], request.path_params["era"], request.path_params["rest"]
        trace = self.trace(cell, era)
        body = await request.body()
        if body:
            try:
                message = json.loads(body)
                trace.sent.append(message)
                if isinstance(message, dict) and "method" in message and "id" in message:
                    trace.methods[message["id"]] = message["method"]
            except json.JSONDecodeError:
                pass
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP]
        upstream = self.http.build_request(request.method, f"{self.upstream}/{rest}", headers=headers, content=body)
        try:
            reply = await self.http.send(upstream, stream=True)
        except httpx2.TransportError as e:
            trace.problems.append(f"the tap could not reach Herald: {e!r}")
            return Response(status_code=502)
        trace.statuses.append(reply.status_code)
        out_headers = {k: v for k, v in reply.headers.items() if k.lower() not in HOP_BY_HOP}
        kind = reply.headers.get("content-type", "")
        if kind.startswith("text/event-stream"):
            return StreamingResponse(self._relay_sse(reply, trace), status_code=reply.status_code,
                                     headers=out_headers)
        content = await reply.aread()
        await reply.aclose()
        if content and kind.startswith("application/json"):
            trace.see(content.decode(errors="replace"))
        return Response(content, status_code=reply.status_code, headers=out_headers)

    async def _relay_sse(self, reply: httpx2.Response, trace: CellTrace):
        buffer = ""
        try:
            async for chunk in reply.aiter_text():
                yield chunk.encode()
                buffer += chunk
                *events, buffer = buffer.replace("\r\n", "\n").split("\n\n")
                for event in events:
                    data = "\n".join(line[5:].lstrip(" ") if line.startswith("data:") else ""
                                     for line in event.split("\n") if line.startswith("data:"))
                    if data.strip():
                        trace.see(data)
        finally:
            await reply.aclose()
