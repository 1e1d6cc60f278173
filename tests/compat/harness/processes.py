"""Child processes of a run: each in its own process group, all ended when the run ends."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx2


class Processes:
    def __init__(self, logdir: Path) -> None:
        self.logdir = logdir
        self.children: list[subprocess.Popen[bytes]] = []

    def spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None,
              stdin: int | None = None) -> subprocess.Popen[bytes]:
        log = open(self.logdir / f"{name}.log", "wb")
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log, stdin=stdin,
                                 env={**os.environ, **(env or {})}, start_new_session=True)
        self.children.append(child)
        # Standard output is read for the whole life of the child, not only until it is ready:
        # a server that logs to it (uvicorn's access log does) would otherwise block once the
        # pipe is full, and stop answering anyone.
        ready = _Ready()
        READY[child.pid] = ready
        threading.Thread(target=_pump, args=(child, log, ready), daemon=True).start()
        return child

    def stop_all(self) -> None:
        for child in self.children:
            if child.poll() is None:
                try:
                    os.killpg(child.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 5
        for child in self.children:
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(child.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Ready:
    def __init__(self) -> None:
        self.event = threading.Event()
        self.line: bytes | None = None


READY: dict[int, _Ready] = {}


def _pump(child: subprocess.Popen[bytes], log: Any, ready: _Ready) -> None:
    """Copies the child's standard output to its log, noting its `READY` line."""
    assert child.stdout is not None
    for line in iter(child.stdout.readline, b""):
        log.write(line)
        log.flush()
        if ready.line is None and line.startswith(b"READY "):
            ready.line = line
            ready.event.set()
    ready.event.set()  # the child ended: whoever waits finds no line


async def read_ready(child: subprocess.Popen[bytes], name: str, timeout: float = 30) -> str:
    """Waits for the child's `READY <address or port>` line (the peers' readiness contract)."""
    ready = READY[child.pid]
    loop = asyncio.get_running_loop()
    if not await loop.run_in_executor(None, ready.event.wait, timeout):
        raise RuntimeError(f"{name} was not ready within {timeout} s")
    if ready.line is None:
        raise RuntimeError(f"{name} exited before it was ready (exit {child.poll()})")
    return ready.line.split()[1].decode()


async def wait_http(url: str, name: str, timeout: float = 30) -> None:
    """Waits until something answers HTTP at `url` (for servers that print nothing useful)."""
    deadline = time.monotonic() + timeout
    async with httpx2.AsyncClient(timeout=2) as http:
        while time.monotonic() < deadline:
            try:
                await http.get(url)
                return
            except httpx2.TransportError:
                await asyncio.sleep(0.1)
    raise RuntimeError(f"{name} did not answer at {url} within {timeout} s")


class AgentProcess:
    """One long-lived agent CLI speaking the JSON-lines contract (one request line, one outcome line)."""

    def __init__(self, processes: Processes, name: str, argv: list[str]) -> None:
        self.processes, self.name, self.argv = processes, name, argv
        self.child: asyncio.subprocess.Process | None = None
        self.lock = asyncio.Lock()

    async def _start(self) -> asyncio.subprocess.Process:
        log = open(self.processes.logdir / f"agent-{self.name}.log", "ab")
        child = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log,
            start_new_session=True, limit=16 * 1024 * 1024)
        self.child = child
        return child

    async def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """Runs one request; a stuck or dead agent process is replaced and reported as such."""
        async with self.lock:
            child = self.child if self.child and self.child.returncode is None else await self._start()
            assert child.stdin and child.stdout
            child.stdin.write((json.dumps(request) + "\n").encode())
            await child.stdin.drain()
            try:
                line = await asyncio.wait_for(child.stdout.readline(), float(request.get("timeout", 20)) + 15)
            except asyncio.TimeoutError:
                line = b""
            if line:
                return json.loads(line)
            self.kill()
            return {"id": request.get("id"), "asked": [],
                    "outcome": {"kind": "timeout", "stage": f"agent process {self.name} stopped answering"}}

    def kill(self) -> None:
        if self.child and self.child.returncode is None:
            try:
                os.killpg(self.child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.child = None
