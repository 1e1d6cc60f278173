#!/usr/bin/env python3
"""Minimal stdlib-only MCP client that passes two @modelcontextprotocol/conformance client scenarios.

It exists to pin down, executably, what the harness expects from a "client under test", so the
driver that puts Herald in that seat can be checked against a known-good baseline:

    conformance client --command "python3 tests/peers/conformance/reference_client.py" \\
        --scenario elicitation-sep1034-client-defaults     (or sep-2322-client-request-state)

The harness appends the scenario server URL (http://localhost:PORT/mcp) as the last argument and
sets MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_PROTOCOL_VERSION).  Exit status is ignored by
the harness; the checks are computed from what the scenario server saw.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

ACCEPT = "application/json, text/event-stream"
CLIENT_INFO = {"name": "herald-reference-client", "version": "0.0.0"}


def log(*args: Any) -> None:
    print(*args, file=sys.stderr, flush=True)


class Http:
    def __init__(self, url: str) -> None:
        self.url = url

    def post(self, body: dict[str, Any], headers: dict[str, str]) -> urllib.request.addinfourl:
        req = urllib.request.Request(
            self.url,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Accept": ACCEPT, **headers},
        )
        log(">", json.dumps(body))
        return urllib.request.urlopen(req, timeout=20)  # noqa: S310 - loopback test server

    def get_stream(self, headers: dict[str, str]) -> urllib.request.addinfourl:
        req = urllib.request.Request(self.url, method="GET", headers={"Accept": "text/event-stream", **headers})
        log("> GET (standalone SSE stream)")
        return urllib.request.urlopen(req, timeout=60)  # noqa: S310 - loopback test server

    def messages(self, resp: urllib.request.addinfourl) -> Iterator[dict[str, Any]]:
        """Yield JSON-RPC messages from a JSON or SSE response body."""
        ctype = resp.headers.get("Content-Type", "")
        if "text/event-stream" not in ctype:
            raw = resp.read()
            if raw.strip():
                msg = json.loads(raw)
                log("<", json.dumps(msg))
                yield msg
            return
        data: list[str] = []
        for line in resp:
            text = line.decode().rstrip("\r\n")
            if text.startswith("data:"):
                data.append(text[5:].lstrip(" "))
            elif text == "" and data:
                payload = "\n".join(data)
                data = []
                if payload.strip():
                    msg = json.loads(payload)
                    log("<", json.dumps(msg))
                    yield msg


def defaults_for(schema: dict[str, Any]) -> dict[str, Any]:
    """Accept content = every property's default (what a host pre-fills when the user changes nothing)."""
    return {name: prop["default"] for name, prop in schema.get("properties", {}).items() if "default" in prop}


# --------------------------------------------------------------------------- 2025-11-25 (stateful)


def legacy_defaults(http: Http) -> None:
    """initialize -> initialized -> GET stream -> tools/list -> tools/call, answering with the defaults.

    The scenario server (TypeScript SDK, `server.request(...)` without a related request id)
    sends `elicitation/create` on the standalone GET SSE stream, not on the tools/call POST
    stream, so a client that never opens the GET stream times out (-32001 after 60 s).  Requests
    are answered from whichever stream they arrive on.
    """
    version = "2025-11-25"
    resp = http.post(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {"elicitation": {"form": {}}},
                "clientInfo": CLIENT_INFO,
            },
        },
        {},
    )
    session = resp.headers.get("Mcp-Session-Id")
    list(http.messages(resp))
    hdrs = {"MCP-Protocol-Version": version, **({"Mcp-Session-Id": session} if session else {})}
    http.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, hdrs).read()

    def handle(msg: dict[str, Any]) -> None:
        if msg.get("method") == "elicitation/create":
            content = defaults_for(msg["params"]["requestedSchema"])
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": {"action": "accept", "content": content}}
            http.post(reply, hdrs).read()  # 202, empty body

    def listen() -> None:
        try:
            for msg in http.messages(http.get_stream(hdrs)):
                handle(msg)
        except Exception as exc:  # the stream ends when the scenario server shuts down
            log("GET stream ended:", exc)

    threading.Thread(target=listen, daemon=True).start()
    list(http.messages(http.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, hdrs)))
    call = http.post(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "test_client_elicitation_defaults", "arguments": {}},
        },
        hdrs,
    )
    for msg in http.messages(call):
        if msg.get("id") == 3 and "method" not in msg:
            break
        handle(msg)


# --------------------------------------------------------------------------- 2026-07-28 (stateless)


def modern_request_state(http: Http) -> None:
    version = "2026-07-28"
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    }
    next_id = iter(range(1, 1000))

    def request(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        params = {**(params or {}), "_meta": meta}
        headers = {"MCP-Protocol-Version": version, "Mcp-Method": method}
        if method == "tools/call":
            headers["Mcp-Name"] = params["name"]
        body = {"jsonrpc": "2.0", "id": next(next_id), "method": method, "params": params}
        return next(http.messages(http.post(body, headers)))

    def call_tool(name: str) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name, "arguments": {}}
        for _round in range(5):
            result = request("tools/call", params)["result"]
            if result.get("resultType", "complete") != "input_required":
                return result
            responses = {
                key: {"action": "accept", "content": {"confirmed": True}}
                for key, req in result["inputRequests"].items()
                if req["method"] == "elicitation/create"
            }
            # Retry: new JSON-RPC id (request() mints one), same name/arguments, inputResponses,
            # and requestState echoed byte for byte only when the server sent one.
            params = {"name": name, "arguments": {}, "inputResponses": responses}
            if "requestState" in result:
                params["requestState"] = result["requestState"]
        raise RuntimeError(f"{name}: too many input_required rounds")

    request("server/discover")
    request("tools/list")
    call_tool("test_mrtr_echo_state")
    call_tool("test_mrtr_unrelated")
    call_tool("test_mrtr_no_state")
    call_tool("test_mrtr_no_result_type")


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    http = Http(url)
    if scenario == "elicitation-sep1034-client-defaults":
        legacy_defaults(http)
    elif scenario == "sep-2322-client-request-state":
        modern_request_state(http)
    else:
        log(f"reference_client: scenario {scenario!r} not implemented")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
