"""An agent built on the official Python SDK (`mcp` 2.3.0) `Client`, for the compatibility matrix.

    python_agent.py --era 2025-11-25|2026-07-28 [--url U --token T --tool NAME --args JSON --answer A]

Without --tool it reads one JSON request per line on stdin and writes one JSON outcome per line
on stdout (the contract every agent of tests/compat shares, see tests/compat/README.md):

    in:  {"id", "url", "token"|null, "tool", "args", "answer": "accept"|"decline"|"cancel",
          "timeout": seconds, "capabilities": ["sampling", "roots"]}
    out: {"id", "outcome": {"kind": "result", "result": {...}}
                         | {"kind": "error", "stage": "connect"|"call", "code", "message", "data"}
                         | {"kind": "timeout", "stage"},
          "asked": [{"method", "params", "answer"}]}

Each request gets a fresh `Client` (its own session). 2025-11-25 is `mode="legacy"`, 2026-07-28 is
`mode="2026-07-28"`. The elicitation callback answers the way the request says, with content that
fits the schema; sampling and roots callbacks are installed only when asked for, because a
client declares those capabilities by having them.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "harness"))
from answers import ROOT_URI, SAMPLING_REPLY, fill  # noqa: E402

MODES = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28"}


def dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def error_outcome(stage: str, e: BaseException) -> dict[str, Any]:
    if isinstance(e, MCPError):
        return {"kind": "error", "stage": stage, "code": e.code, "message": e.message, "data": e.data}
    # An exception group from the transport's task group: report the first leaf.
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
        if isinstance(e, MCPError):
            return error_outcome(stage, e)
    return {"kind": "error", "stage": stage, "code": None, "message": f"{type(e).__name__}: {e}", "data": None}


async def run_one(era: str, request: dict[str, Any]) -> dict[str, Any]:
    asked: list[dict[str, Any]] = []
    answer = request.get("answer", "accept")
    capabilities = set(request.get("capabilities", []))

    async def on_elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        wire = dump(params)
        if answer == "accept":
            content = None if wire.get("mode") == "url" else fill(wire.get("requestedSchema"))
            result = types.ElicitResult(action="accept", content=content)
        else:
            result = types.ElicitResult(action=answer)
        asked.append({"method": "elicitation/create", "params": wire, "answer": dump(result)})
        return result

    async def on_sample(context: ClientRequestContext, params: types.CreateMessageRequestParams):
        asked.append({"method": "sampling/createMessage", "params": dump(params)})
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=SAMPLING_REPLY), model="compat-model"
        )

    async def on_roots(context: ClientRequestContext):
        asked.append({"method": "roots/list", "params": None})
        return types.ListRootsResult(roots=[types.Root(uri=ROOT_URI, name="compat")])

    headers = {"Authorization": f"Bearer {request['token']}"} if request.get("token") else None
    stage = "connect"
    outcome: dict[str, Any]
    try:
        with anyio.fail_after(float(request.get("timeout", 20))):
            async with create_mcp_http_client(headers=headers) as http:
                client = Client(
                    streamable_http_client(request["url"], http_client=http),
                    mode=MODES[era],
                    elicitation_callback=on_elicit,
                    sampling_callback=on_sample if "sampling" in capabilities else None,
                    list_roots_callback=on_roots if "roots" in capabilities else None,
                    cache=None,
                )
                async with client:
                    stage = "call"
                    result = await client.call_tool(request["tool"], request.get("args") or {})
                    outcome = {"kind": "result", "result": dump(result)}
    except TimeoutError:
        outcome = {"kind": "timeout", "stage": stage}
    except Exception as e:  # noqa: BLE001 - every failure is an outcome to report
        outcome = error_outcome(stage, e)
        if not isinstance(e, MCPError):
            outcome["trace"] = traceback.format_exception_only(e)[-1].strip()
    return {"id": request.get("id"), "outcome": outcome, "asked": asked}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", required=True, choices=sorted(MODES))
    parser.add_argument("--url")
    parser.add_argument("--token")
    parser.add_argument("--tool")
    parser.add_argument("--args", default="{}")
    parser.add_argument("--answer", default="accept", choices=["accept", "decline", "cancel"])
    parser.add_argument("--capabilities", default="", help="comma-separated: sampling,roots")
    parser.add_argument("--timeout", type=float, default=20)
    options = parser.parse_args()
    if options.tool:
        request = {
            "id": "cli", "url": options.url, "token": options.token, "tool": options.tool,
            "args": json.loads(options.args), "answer": options.answer, "timeout": options.timeout,
            "capabilities": [c for c in options.capabilities.split(",") if c],
        }
        print(json.dumps(await run_one(options.era, request)), flush=True)
        return
    while line := await anyio.to_thread.run_sync(sys.stdin.readline):
        if line.strip():
            print(json.dumps(await run_one(options.era, json.loads(line))), flush=True)


if __name__ == "__main__":
    anyio.run(main)
