"""Runs the compatibility matrix: peers, Herald, agents, the person, the tap; then the report.

    tests/peers/.venv/bin/python tests/compat/harness/run.py --herald-bin PATH --database-url URL
        [--rmcp-peer PATH] [--filter REGEX] [--jobs N] [--out DIR] [--write-docs docs/api.md]

Logs (Herald's, the peers', the agents') stay in OUT/work-<db>/ until the next run.

Normally started by tests/compat/run.sh, which builds and installs what this needs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import signal
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import uvicorn

HERE = Path(__file__).resolve().parent
COMPAT = HERE.parent
ROOT = COMPAT.parent.parent
PEERS = ROOT / "tests" / "peers"
sys.path.insert(0, str(HERE))

from herald import ORG, Herald, HeraldError, Person, invite_person, open_policy, register_server, sign_in  # noqa: E402
from judge import Run, baseline, judge_hostile, judge_question, judge_server_request, summary  # noqa: E402
from matrix import (  # noqa: E402
    ANSWERS, HOSTILE, LEGACY, MODERN, NONE, QUESTION_KINDS, REQUEST_KINDS, AgentSpec, NotApplicable, Tool,
    Upstream, everything_server, hostile_servers, python_sdk_pinned, python_sdk_server, rmcp_legacy_server,
    rmcp_modern_server,
)
from processes import AgentProcess, Processes, free_port, read_ready, wait_http  # noqa: E402
from report import write_reports  # noqa: E402
from tap import Tap  # noqa: E402

VENV_PYTHON = PEERS / ".venv" / "bin" / "python"
NODE = PEERS / "node" / "node_modules" / ".bin" / "node"
CALL_TIMEOUT = 20.0
HOSTILE_TIMEOUT = 45.0  # longer than Herald's 30 s wait for an upstream's response headers


def cell_id(*parts: str) -> str:
    """`agent~upstream~kind~answer`, each part reduced to characters safe in a URL path."""
    return "~".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", part).strip("_") for part in parts)


async def start_upstreams(processes: Processes, rmcp_peer: Path | None) -> list[Upstream]:
    upstreams: list[Upstream] = []

    py = python_sdk_server()
    port = free_port()
    processes.spawn("server-python-sdk", [str(VENV_PYTHON), str(COMPAT / "servers" / "python_sdk_server.py"), str(port)])
    py.url = f"http://127.0.0.1:{port}/mcp"
    await wait_http(py.url, "the Python SDK server")
    upstreams.append(py)
    for era in (LEGACY, MODERN):
        pinned = python_sdk_pinned(era)
        pinned.url = py.url
        upstreams.append(pinned)

    everything = everything_server()
    child = processes.spawn("server-everything", ["bash", str(PEERS / "run-everything.sh"), "0"])
    everything.url = f"http://127.0.0.1:{await read_ready(child, 'server-everything')}/mcp"
    upstreams.append(everything)

    if rmcp_peer:
        for upstream, era in ((rmcp_legacy_server(), "legacy"), (rmcp_modern_server(), "modern")):
            child = processes.spawn(f"server-rmcp-{era}", [str(rmcp_peer), "server", "--only", era, "--listen", "127.0.0.1:0"])
            upstream.url = f"http://{await read_ready(child, f'rmcp {era} server')}/mcp"
            upstreams.append(upstream)

    child = processes.spawn("server-hostile", [str(VENV_PYTHON), str(COMPAT / "servers" / "hostile.py"), "0"])
    hostile_port = await read_ready(child, "hostile servers")
    for upstream in hostile_servers():
        upstream.url = f"http://127.0.0.1:{hostile_port}/{upstream.slug.removeprefix('hostile-')}/mcp"
        upstreams.append(upstream)
    return upstreams


def agent_specs(rmcp_peer: Path | None) -> list[tuple[AgentSpec, list[str]]]:
    python_agent = [str(VENV_PYTHON), str(COMPAT / "agents" / "python_agent.py")]
    specs = [
        (AgentSpec("python-sdk", LEGACY, "Python SDK mcp 2.3.0, mode=legacy"), python_agent + ["--era", LEGACY]),
        (AgentSpec("python-sdk", MODERN, "Python SDK mcp 2.3.0, mode=2026-07-28"), python_agent + ["--era", MODERN]),
    ]
    ts_agent = [str(NODE), str(COMPAT / "agents" / "ts_agent.mjs")]
    specs.append((AgentSpec("typescript-sdk", LEGACY, "TypeScript SDK @modelcontextprotocol/sdk 1.32.2"),
                  ts_agent + ["--sdk", "v1", "--era", LEGACY]))
    specs.append((AgentSpec("typescript-client-v2", MODERN, "TypeScript SDK v2 @modelcontextprotocol/client 2.4.0"),
                  ts_agent + ["--sdk", "v2", "--era", MODERN]))
    if rmcp_peer:
        specs.append((AgentSpec("rmcp", LEGACY, "rmcp 3.11 client, Initialize"), [str(rmcp_peer), "agent", "--era", LEGACY]))
        specs.append((AgentSpec("rmcp", MODERN, "rmcp 3.11 client, Discover"), [str(rmcp_peer), "agent", "--era", MODERN]))
    return specs


def plan(agents: list[AgentSpec], upstreams: list[Upstream]) -> list[dict[str, Any]]:
    """Every cell, in the order each agent runs them."""
    cells = []
    for agent in agents:
        for upstream in upstreams:
            if upstream.kind == HOSTILE:
                if agent.impl != "python-sdk":  # one agent per era is enough to probe the upstream side
                    continue
                kinds = (HOSTILE,)
                section = "bad input"
            else:
                kinds = QUESTION_KINDS + REQUEST_KINDS
            for kind in kinds:
                tool = upstream.tools.get(kind)
                if tool is None:
                    continue
                section = "bad input" if kind == HOSTILE else "server requests" if kind in REQUEST_KINDS else "matrix"
                answers = ANSWERS if kind not in (NONE, HOSTILE) and kind not in REQUEST_KINDS else ("call",)
                for answer in answers:
                    cells.append({
                        "id": cell_id(agent.key, upstream.slug, kind, answer), "section": section,
                        "agent": agent, "upstream": upstream, "kind": kind, "tool": tool, "answer": answer,
                    })
    return cells


class Matrix:
    def __init__(self, tap_base: str, persons: dict[str, Person], agents: dict[str, AgentProcess]) -> None:
        self.tap_base, self.persons, self.agents = tap_base, persons, agents
        self.tap: Tap | None = None

    def request(self, cell: dict[str, Any], url: str, token: str | None, key: str) -> dict[str, Any]:
        tool: Tool = cell["tool"]
        timeout = HOSTILE_TIMEOUT if cell["kind"] == HOSTILE else CALL_TIMEOUT
        answer = cell["answer"] if cell["answer"] in ANSWERS else "accept"
        return {"id": key, "url": url, "token": token, "tool": tool.name, "args": tool.args(key), "answer": answer,
                "timeout": timeout, "capabilities": list(tool.capabilities)}

    async def direct(self, cell: dict[str, Any]) -> Run:
        started = time.monotonic()
        reply = await self.agents[cell["agent"].key].call(
            self.request(cell, cell["upstream"].url, None, cell["id"] + "-direct"))
        return Run(outcome=reply["outcome"], asked=reply.get("asked", []), seconds=time.monotonic() - started)

    async def through_herald(self, cell: dict[str, Any]) -> Run:
        agent: AgentSpec = cell["agent"]
        person = self.persons[agent.key]
        url = f"{self.tap_base}/{cell['id']}/{agent.era}/mcp/{ORG}/{cell['upstream'].slug}"
        answer = cell["answer"] if cell["answer"] in ANSWERS else "accept"
        before = {r["id"] for r in await person.resolved(50)}
        started = time.monotonic()
        call = asyncio.create_task(self.agents[agent.key].call(self.request(cell, url, person.token, cell["id"] + "-herald")))
        run = Run(outcome={})
        while True:
            finished = call.done()
            for record in await person.pending():
                if record["id"] not in person.answered:
                    run.seen.append(record)
                    run.answers.append(await person.answer(record, answer))
            if finished:
                break
            await asyncio.wait({call}, timeout=0.15)
        reply = call.result()
        run.seconds = time.monotonic() - started
        run.outcome, run.asked = reply["outcome"], reply.get("asked", [])
        # Nothing may stay pending once the call is over; a withdrawal may trail the result briefly.
        deadline = time.monotonic() + 3
        while (left := [r for r in await person.pending() if r["id"] not in person.answered]) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        run.leftover = left
        for record in left:  # clear them, so the next cell starts clean
            await person.answer(record, "cancel")
        shown = {r["id"] for r in run.seen}
        run.auto = [r for r in await person.resolved(50) if r["id"] not in before and r["id"] not in shown]
        assert self.tap is not None
        trace = self.tap.traces.get(cell["id"])
        run.schema_problems = list(trace.problems) if trace else []
        return run

    async def run_cell(self, cell: dict[str, Any]) -> dict[str, Any]:
        agent: AgentSpec = cell["agent"]
        upstream: Upstream = cell["upstream"]
        tool = cell["tool"]
        base = {"id": cell["id"], "section": cell["section"], "agent": agent.impl, "era": agent.era,
                "agent_label": agent.label, "upstream": upstream.slug, "upstream_kind": upstream.kind,
                "peer": upstream.peer, "kind": cell["kind"], "answer": cell["answer"]}
        if isinstance(tool, NotApplicable):
            return {**base, "status": "n/a", "reasons": [tool.reason]}
        base["tool"] = tool.name
        if upstream.registration_error:
            return {**base, "status": "fail", "reasons": [upstream.registration_error]}
        direct = Run(outcome={"kind": "skipped"}) if cell["kind"] == HOSTILE else await self.direct(cell)
        herald = await self.through_herald(cell)
        if cell["kind"] == HOSTILE:
            reasons = judge_hostile(upstream.slug, upstream.name, herald)
        elif cell["kind"] in REQUEST_KINDS:
            reasons = judge_server_request(cell["kind"], agent.era, direct, herald)
        else:
            prerequisite = tool.prerequisite_url(cell["id"] + "-herald") if tool.prerequisite_url else None
            reasons = judge_question(cell["kind"], upstream.slug, tool.name, agent.era, cell["answer"], direct,
                                     herald, prerequisite)
        return {
            **base, "status": "fail" if reasons else "pass", "reasons": reasons,
            "direct": summary(direct.outcome) if direct.outcome.get("kind") != "skipped" else "not run (hostile server)",
            "herald": summary(herald.outcome), "seconds": round(herald.seconds + direct.seconds, 2),
            "person_saw": [{k: r.get(k) for k in ("server", "tool", "mode", "message", "requested_schema", "url")}
                           for r in herald.seen],
            "person_answered": herald.answers, "auto_answered": [
                {k: r.get(k) for k in ("tool", "action", "decided_by", "reason")} for r in herald.auto],
            "agent_callbacks_direct": direct.asked, "agent_callbacks_herald": herald.asked,
            "schema_problems": herald.schema_problems,
            "direct_outcome": direct.outcome, "herald_outcome": herald.outcome,
            "harness_problems": baseline(cell["kind"], cell["answer"], direct),
        }


async def serve_tap(tap: Tap) -> tuple[uvicorn.Server, asyncio.Task[None], str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(tap.app, host="127.0.0.1", port=port, log_level="critical", lifespan="off"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.05)
    return server, task, f"http://127.0.0.1:{port}"


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--herald-bin", type=Path, required=True)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--db-label", default="sqlite")
    parser.add_argument("--rmcp-peer", type=Path)
    parser.add_argument("--filter", default="", help="regular expression over cell ids, e.g. 'python-sdk-202607~py~push'")
    parser.add_argument("--jobs", type=int, default=2, help="agents run side by side")
    parser.add_argument("--out", type=Path, default=COMPAT / "out")
    parser.add_argument("--write-docs", type=Path)
    options = parser.parse_args()

    started = time.monotonic()
    # Logs and the SQLite file stay in out/work-<db>/ after the run; the next run replaces them.
    workdir = options.out / f"work-{options.db_label}"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    processes = Processes(workdir)
    herald = Herald(options.herald_bin.resolve(), options.database_url or f"sqlite://{workdir}/herald.db", workdir)
    tap_server = None
    agents: dict[str, AgentProcess] = {}
    status = 1
    # SIGTERM (a CI timeout, say) ends the run the way Ctrl-C does, through the cleanup below.
    main_task = asyncio.current_task()
    assert main_task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    try:
        upstreams = await start_upstreams(processes, options.rmcp_peer)
        herald.bootstrap()
        await herald.start()
        owner = await sign_in(herald.base, "owner@compat.example")
        await open_policy(owner)
        for upstream in upstreams:
            try:
                await register_server(owner, upstream.slug, upstream.name, upstream.url, upstream.protocol)
            except HeraldError as e:
                if not upstream.protocol:
                    raise
                upstream.registration_error = (
                    f'Herald refused to register it with "protocol": "{upstream.protocol}": {e.detail}')

        specs = agent_specs(options.rmcp_peer)
        cells = [c for c in plan([s for s, _ in specs], upstreams) if re.search(options.filter, c["id"])]
        wanted = {c["agent"].key for c in cells}
        persons = {spec.key: await invite_person(owner, herald.base, spec.key) for spec, _ in specs if spec.key in wanted}
        agents = {spec.key: AgentProcess(processes, spec.key, argv) for spec, argv in specs if spec.key in wanted}
        tap = Tap(herald.base)
        tap_server, _, tap_base = await serve_tap(tap)
        matrix = Matrix(tap_base, persons, agents)
        matrix.tap = tap
        print(f"compat: Herald {herald.base} ({options.db_label}), {len(cells)} cells, {len(agents)} agents", flush=True)

        results: list[dict[str, Any]] = []
        jobs = asyncio.Semaphore(max(1, options.jobs))

        async def run_row(key: str) -> None:
            async with jobs:
                for cell in (c for c in cells if c["agent"].key == key):
                    result = await matrix.run_cell(cell)
                    results.append(result)
                    mark = {"pass": "ok  ", "fail": "FAIL", "n/a": "n/a "}[result["status"]]
                    print(f"  {mark} {result['id']}" + (f": {result['reasons'][0]}" if result["status"] == "fail" else ""),
                          flush=True)
                agents[key].kill()

        await asyncio.gather(*(run_row(key) for key in agents))
        order = {c["id"]: i for i, c in enumerate(cells)}
        results.sort(key=lambda r: order[r["id"]])
        elapsed = time.monotonic() - started
        failed = write_reports(results, options.out, options.db_label, elapsed, options.write_docs)
        status = 1 if failed else 0
    except asyncio.CancelledError:
        print("compat: stopped by a signal before the matrix was complete", flush=True)
        status = 143
    except Exception:
        print("compat: the run broke before the matrix was complete; Herald's log:\n" + herald.log_tail(), flush=True)
        raise
    finally:
        if tap_server is not None:
            tap_server.should_exit = True
        for agent in agents.values():
            agent.kill()
        herald.stop()
        processes.stop_all()
        print(f"compat: logs of Herald, the peers and the agents in {workdir}")
    return status


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
