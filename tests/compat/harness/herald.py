"""Herald for the compatibility matrix: the process, its REST API, and the people who answer.

Herald is started the way tests/e2e/quickstart.sh and tests/browser/run.sh start it: the `herald`
binary on a free port (`HERALD_LISTEN=127.0.0.1:0`, JSON logs, the address read from the
"herald is serving" line), after `herald bootstrap` created the org and its owner. People are
invited members, each with a dashboard session (for answering) and an API token (for an agent).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from answers import fill

ORG = "compat"
OWNER_EMAIL = "owner@compat.example"
PASSWORD = "compat matrix passphrase 7"


class HeraldError(RuntimeError):
    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail or message


class Herald:
    """One `herald serve` process on a fresh database."""

    def __init__(self, binary: Path, database_url: str, workdir: Path) -> None:
        self.binary = binary
        self.database_url = database_url
        self.workdir = workdir
        self.log_path = workdir / "herald.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.base = ""

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            HERALD_DATABASE_URL=self.database_url,
            HERALD_LISTEN="127.0.0.1:0",
            HERALD_LOG_FORMAT="json",
            HERALD_LOG_LEVEL="info",
            HERALD_SECRET_KEY="compat-matrix-secret-key-0123456789abcdef",
        )
        return env

    def bootstrap(self) -> None:
        done = subprocess.run(
            [str(self.binary), "bootstrap", "--org", ORG, "--org-name", "Compat", "--email", OWNER_EMAIL,
             "--password-stdin"],
            input=(PASSWORD + "\n").encode(), env=self._env(), cwd=self.workdir, capture_output=True, timeout=60,
        )
        if done.returncode != 0:
            raise HeraldError(f"herald bootstrap failed: {done.stdout.decode()} {done.stderr.decode()}")

    async def start(self, timeout: float = 60) -> None:
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(self.binary), "serve"], env=self._env(), cwd=self.workdir, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise HeraldError(f"herald exited with {self.process.returncode}: {self.log_tail()}")
            for line in self.log_path.read_text(errors="replace").splitlines():
                if '"herald is serving"' in line:
                    self.base = "http://" + json.loads(line)["listen"]
                    break
            if self.base:
                break
            await asyncio.sleep(0.1)
        else:
            raise HeraldError(f"herald did not report serving within {timeout} s: {self.log_tail()}")
        async with httpx2.AsyncClient() as http:
            while time.monotonic() < deadline:
                try:
                    if (await http.get(self.base + "/readyz")).status_code == 200:
                        return
                except httpx2.TransportError:
                    pass
                await asyncio.sleep(0.1)
        raise HeraldError(f"herald never became ready: {self.log_tail()}")

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            # No grace needed: a call still in flight here is one the run has given up on.
            self.process.terminate()
            try:
                self.process.wait(3)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


class Api:
    """A signed-in dashboard session (cookie), as a person uses the REST API."""

    def __init__(self, base: str) -> None:
        self.http = httpx2.AsyncClient(base_url=base + "/api/v1", timeout=30)

    async def call(self, method: str, path: str, body: Any = None, expect: int | tuple[int, ...] = (200, 201)) -> Any:
        response = await self.http.request(method, path, json=body)
        codes = (expect,) if isinstance(expect, int) else expect
        if response.status_code not in codes:
            try:
                detail = f"HTTP {response.status_code} {response.json()['detail']}"
            except (ValueError, KeyError, TypeError):
                detail = f"HTTP {response.status_code} {response.text[:300]}"
            raise HeraldError(f"{method} {path} -> {response.status_code}: {response.text[:500]}", detail)
        return response.json() if response.content else None

    async def close(self) -> None:
        await self.http.aclose()


@dataclass
class Person:
    """A member who answers the questions of one agent's cells (decline memory is per person)."""

    email: str
    api: Api
    token: str = ""
    answered: set[str] = field(default_factory=set)

    async def pending(self) -> list[dict[str, Any]]:
        page = await self.api.call("GET", f"/orgs/{ORG}/elicitations?status=pending&limit=200")
        return page["elicitations"]

    async def resolved(self, limit: int = 20) -> list[dict[str, Any]]:
        page = await self.api.call("GET", f"/orgs/{ORG}/elicitations?status=resolved&limit={limit}")
        return page["elicitations"]

    async def answer(self, record: dict[str, Any], action: str) -> dict[str, Any]:
        """Answers one question the way the cell says: accept with content that fits, decline, or dismiss."""
        body: dict[str, Any] = {"action": action}
        if action == "accept" and record["mode"] == "form":
            body["content"] = fill(record.get("requested_schema"))
        self.answered.add(record["id"])
        await self.api.call("POST", f"/orgs/{ORG}/elicitations/{record['id']}/respond", body, expect=(200, 409))
        return body


async def sign_in(base: str, email: str) -> Api:
    api = Api(base)
    await api.call("POST", "/auth/login", {"email": email, "password": PASSWORD})
    return api


async def invite_person(owner: Api, base: str, name: str) -> Person:
    email = f"{name}@compat.example"
    invite = await owner.call("POST", f"/orgs/{ORG}/invites", {"email": email, "role": "member"})
    secret = invite["link"].split("#token=", 1)[1]
    api = Api(base)
    await api.call("POST", "/invites/accept", {"token": secret, "name": name, "password": PASSWORD})
    person = Person(email=email, api=api)
    person.token = (await api.call("POST", f"/orgs/{ORG}/tokens", {"name": f"{name} agent"}))["secret"]
    return person


async def open_policy(owner: Api) -> None:
    """Caps high enough for a matrix run; everything else (URL mode on, decline memory) as shipped."""
    await owner.call(
        "PUT", f"/orgs/{ORG}/policy",
        {"rate_caps": {"per_user_server_per_minute": 100000, "per_server_per_hour": 1000000,
                       "per_org_per_hour": 1000000, "max_pending_per_user": 10000}},
    )


async def register_server(owner: Api, slug: str, name: str, url: str, protocol: str | None) -> None:
    body = {"slug": slug, "name": name, "url": url}
    if protocol:  # only when a cell needs it, so the harness also runs against a Herald without the field
        body["protocol"] = protocol
    await owner.call("POST", f"/orgs/{ORG}/servers", body)
