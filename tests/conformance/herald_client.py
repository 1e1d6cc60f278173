#!/usr/bin/env python3
"""The "client under test" for @modelcontextprotocol/conformance client scenarios, with Herald in
the client's seat: the scenario server is registered in a running Herald, an agent calls it through
Herald's MCP endpoint, and a person (this script, through Herald's REST API) answers whatever Herald
shows. What the scenario server sees is Herald's upstream side: its handshake, its capabilities,
its answers (with schema defaults filled in) and its MRTR retries.

    HERALD_URL=http://127.0.0.1:PORT HERALD_TOKEN=hrl_... herald_client.py <scenario server URL>

The harness appends the URL and sets MCP_CONFORMANCE_SCENARIO. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

HERALD = os.environ["HERALD_URL"].rstrip("/")
TOKEN = os.environ["HERALD_TOKEN"]
ORG = os.environ.get("HERALD_ORG", "acme")


def log(*args: Any) -> None:
    print("herald_client:", *args, file=sys.stderr, flush=True)


def api(method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(HERALD + path, data=data, method=method,
                                 headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310 - loopback
        raw = resp.read()
        return json.loads(raw) if raw else None


def answer_for(record: dict[str, Any]) -> dict[str, Any]:
    """What a person who leaves every default alone would send: only required fields without a
    default get a value; Herald fills in the rest from the schema."""
    if record["mode"] != "form":
        return {"action": "accept"}
    content: dict[str, Any] = {}
    for field in (record.get("form") or {}).get("fields", []):
        if field.get("default") is not None or not field.get("required"):
            continue
        kind = field.get("kind")
        if kind == "boolean":
            content[field["name"]] = True
        elif kind == "number":
            content[field["name"]] = field.get("minimum") or 1
        elif kind == "single_select":
            content[field["name"]] = field["options"][0]["value"]
        elif kind == "multi_select":
            content[field["name"]] = [field["options"][0]["value"]]
        else:
            content[field["name"]] = "conformance"
    return {"action": "accept", "content": content}


def answer_everything(stop: threading.Event) -> None:
    """The person at the dashboard: answers each pending question once."""
    seen: set[str] = set()
    while not stop.is_set():
        page = api("GET", f"/api/v1/orgs/{ORG}/elicitations?status=pending")
        for record in page["elicitations"]:
            if record["id"] in seen:
                continue
            seen.add(record["id"])
            answer = answer_for(record)
            log("answering", record["id"], json.dumps(answer))
            try:
                api("POST", f"/api/v1/orgs/{ORG}/elicitations/{record['id']}/respond", answer)
            except urllib.error.HTTPError as e:
                log("answer refused:", e.code, e.read().decode())
        stop.wait(0.05)


class Agent:
    """An MCP client of Herald's endpoint for one server."""

    def __init__(self, server: str, modern: bool) -> None:
        self.url = f"{HERALD}/mcp/{ORG}/{server}"
        self.modern = modern
        self.session: str | None = None
        self.ids = iter(range(1, 10_000))

    def post(self, method: str, params: dict[str, Any] | None = None, notify: bool = False) -> Any:
        params = dict(params or {})
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream"}
        if self.modern:
            params["_meta"] = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                               "io.modelcontextprotocol/clientCapabilities": {},
                               "io.modelcontextprotocol/clientInfo": {"name": "conformance-agent", "version": "1"}}
            headers.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method})
            if method == "tools/call":
                headers["Mcp-Name"] = params["name"]
        elif self.session:
            headers.update({"Mcp-Session-Id": self.session, "MCP-Protocol-Version": "2025-11-25"})
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            body["id"] = next(self.ids)
        req = urllib.request.Request(self.url, data=json.dumps(body).encode(), method="POST", headers=headers)
        with urllib.request.urlopen(req, timeout=120) as resp:  # noqa: S310 - loopback
            if method == "initialize":
                self.session = resp.headers.get("Mcp-Session-Id")
            if notify:
                return None
            ctype = resp.headers.get("Content-Type", "")
            if "text/event-stream" not in ctype:
                return json.loads(resp.read())
            for line in resp:
                line = line.decode().rstrip("\r\n")
                if line.startswith("data:"):
                    message = json.loads(line[5:].strip())
                    if "id" in message:
                        return message
        raise RuntimeError(f"{method}: no response")

    def call(self, tool: str) -> Any:
        reply = self.post("tools/call", {"name": tool, "arguments": {}})
        log(tool, "→", json.dumps(reply)[:300])
        return reply


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    slug = "conformance-" + uuid.uuid4().hex[:8]
    api("POST", f"/api/v1/orgs/{ORG}/servers", {"slug": slug, "name": "Conformance scenario", "url": url})
    stop = threading.Event()
    answerer = threading.Thread(target=answer_everything, args=(stop,), daemon=True)
    answerer.start()
    try:
        if scenario == "elicitation-sep1034-client-defaults":
            agent = Agent(slug, modern=False)
            agent.post("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "conformance-agent", "version": "1"}})
            agent.post("notifications/initialized", notify=True)
            agent.post("tools/list")
            agent.call("test_client_elicitation_defaults")
        elif scenario == "sep-2322-client-request-state":
            agent = Agent(slug, modern=True)
            agent.post("server/discover")
            agent.post("tools/list")
            for tool in ("test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"):
                agent.call(tool)
        else:
            log(f"scenario {scenario!r} is not driven by this client")
            return 2
    finally:
        stop.set()
        time.sleep(0.1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
