"""The compatibility matrix: which agents, which upstream servers, which tools, which answers.

A column is (upstream, tool kind); a row is (agent implementation, era); a cell runs once per
answer. A tool kind a server cannot produce is "n/a" with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
ANSWERS = ("accept", "cancel", "decline")  # decline last: Herald remembers declines per person

# Tool kinds of the main matrix, in column order.
NONE, PUSH, INPUT_REQUIRED, URL, URL_REQUIRED = "none", "push", "input_required", "url", "-32042"
QUESTION_KINDS = (NONE, PUSH, INPUT_REQUIRED, URL, URL_REQUIRED)
# Server-to-client requests other than elicitation (issue item 4).
SAMPLING, SAMPLING_RESOLVER, ROOTS, ROOTS_RESOLVER, PING = (
    "sampling", "sampling (resolver)", "roots", "roots (resolver)", "ping")
REQUEST_KINDS = (SAMPLING, SAMPLING_RESOLVER, ROOTS, ROOTS_RESOLVER, PING)
# Hostile servers (issue: bad input).
HOSTILE = "hostile"

ECHO_TEXT = "compat-echo"


@dataclass(frozen=True)
class Tool:
    name: str
    args: Callable[[str], dict[str, Any]]  # cell key -> arguments (keys make -32042 calls unique)
    # What the server puts in the URL of its -32042 prerequisite, when it is fixed.
    prerequisite_url: Callable[[str], str] | None = None
    # For the server-request kinds: which agent capabilities the cell declares.
    capabilities: tuple[str, ...] = ()


@dataclass(frozen=True)
class NotApplicable:
    reason: str


@dataclass
class Upstream:
    slug: str
    name: str
    kind: str  # "legacy only" | "modern only" | "both eras" | "hostile"
    peer: str  # who wrote it
    tools: dict[str, Tool | NotApplicable] = field(default_factory=dict)
    url: str = ""  # filled in once the server runs
    protocol: str | None = None  # Herald's per-server era, sent only when not "auto"
    registration_error: str | None = None  # Herald refused to register it (e.g. no `protocol` field yet)


@dataclass(frozen=True)
class AgentSpec:
    impl: str
    era: str
    label: str

    @property
    def key(self) -> str:
        return f"{self.impl}-{self.era[:4]}{self.era[5:7]}"


def fixed(args: dict[str, Any]) -> Callable[[str], dict[str, Any]]:
    return lambda key: dict(args)


NO_PUSH_MODERN = NotApplicable("a 2026-07-28-only server cannot push: that era has no server-to-client requests")
NO_32042_MODERN = NotApplicable("-32042 was removed in 2026-07-28")
LEGACY_ONLY_PUSHES = NotApplicable("a 2025-11-25-only server can only push its question")


def python_sdk_server() -> Upstream:
    return Upstream(
        slug="py", name="Python SDK server", kind="both eras", peer="mcp 2.3.0 MCPServer, mcp.run()",
        tools={
            NONE: Tool("echo", fixed({"text": ECHO_TEXT})),
            PUSH: Tool("ask_push", fixed({"destination": "Oslo"})),
            INPUT_REQUIRED: Tool("ask_resolver", fixed({"destination": "Lima"})),
            URL: Tool("ask_url", fixed({"url": "https://example.com/compat/python-link"})),
            URL_REQUIRED: Tool("need_url", lambda key: {"key": key},
                               prerequisite_url=lambda key: f"https://example.com/authorize/{key}"),
            SAMPLING: Tool("sample_push", fixed({"prompt": "Say something"}), capabilities=("sampling",)),
            SAMPLING_RESOLVER: Tool("sample_resolver", fixed({"prompt": "Say something"}),
                                    capabilities=("sampling",)),
            ROOTS: Tool("roots_push", fixed({}), capabilities=("roots",)),
            ROOTS_RESOLVER: Tool("roots_resolver", fixed({}), capabilities=("roots",)),
            PING: Tool("ping_push", fixed({})),
        },
    )


def python_sdk_pinned(era: str) -> Upstream:
    """The same Python SDK server registered a second time with Herald's per-server era set."""
    base = python_sdk_server()
    tools = {kind: base.tools[kind] for kind in QUESTION_KINDS}
    if era == MODERN:
        cannot = "registered with protocol 2026-07-28, where this tool cannot ask (it needs a back-channel or -32042)"
        tools.update({PUSH: NotApplicable(cannot), URL: NotApplicable(cannot), URL_REQUIRED: NotApplicable(cannot)})
    return Upstream(slug=f"py-pinned-{era[:4]}", name=f"Python SDK server, protocol {era}", kind="both eras",
                    peer=base.peer, tools=tools, protocol=era)


def everything_server() -> Upstream:
    no_resolver = NotApplicable("server-everything has no resolver-style tools")
    return Upstream(
        slug="everything", name="server-everything", kind="legacy only",
        peer="@modelcontextprotocol/server-everything 2026.8.31",
        tools={
            NONE: Tool("echo", fixed({"message": ECHO_TEXT})),
            PUSH: Tool("trigger-elicitation-request", fixed({})),
            INPUT_REQUIRED: LEGACY_ONLY_PUSHES,
            URL: Tool("trigger-url-elicitation",
                      fixed({"url": "https://example.com/compat/everything-link", "message": "Compat: open this link."})),
            URL_REQUIRED: Tool("trigger-url-elicitation",
                               lambda key: {"url": f"https://example.com/compat/after-prerequisite/{key}",
                                            "errorPath": True},
                               prerequisite_url=lambda key: "https://modelcontextprotocol.io"),
            SAMPLING: Tool("trigger-sampling-request", fixed({"prompt": "Say something"}), capabilities=("sampling",)),
            SAMPLING_RESOLVER: no_resolver,
            ROOTS: Tool("get-roots-list", fixed({}), capabilities=("roots",)),
            ROOTS_RESOLVER: no_resolver,
            PING: NotApplicable("server-everything has no tool that pings the client"),
        },
    )


def rmcp_legacy_server() -> Upstream:
    return Upstream(
        slug="rmcp-legacy", name="rmcp legacy-only server", kind="legacy only", peer="rmcp 3.11 (tests/compat/rmcp-peer)",
        tools={
            NONE: Tool("echo", fixed({"text": ECHO_TEXT})),
            PUSH: Tool("ask_form", fixed({"destination": "Quito"})),
            INPUT_REQUIRED: LEGACY_ONLY_PUSHES,
            URL: Tool("ask_url", fixed({"url": "https://example.com/compat/rmcp-link"})),
            URL_REQUIRED: Tool("need_url", lambda key: {"key": key},
                               prerequisite_url=lambda key: f"https://example.com/rmcp/authorize/{key}"),
        },
    )


def rmcp_modern_server() -> Upstream:
    return Upstream(
        slug="rmcp-modern", name="rmcp modern-only server", kind="modern only", peer="rmcp 3.11 (tests/compat/rmcp-peer)",
        tools={
            NONE: Tool("echo", fixed({"text": ECHO_TEXT})),
            PUSH: NO_PUSH_MODERN,
            INPUT_REQUIRED: Tool("ask_form", fixed({"destination": "Quito"})),
            URL: Tool("ask_url", fixed({"url": "https://example.com/compat/rmcp-link"})),
            URL_REQUIRED: NO_32042_MODERN,
        },
    )


# Hostile servers (tests/compat/servers/hostile.py), one path each: deliberately not SDK peers.
HOSTILE_CASES = {
    "liar-modern": "answers server/discover for 2026-07-28, then pushes elicitation/create on the call's stream",
    "liar-legacy": "initializes a 2025-11-25 session, then answers tools/call with a 2026-07-28 input_required",
    "garbage-discover": "answers server/discover with 200 and a body that is not JSON-RPC",
    "malformed-discover": "answers server/discover with a JSON-RPC result of the wrong shape",
    "stuck-initialize": "refuses server/discover as legacy, then never finishes initialize",
}


def hostile_servers() -> list[Upstream]:
    return [
        Upstream(slug=f"hostile-{case}", name=f"Hostile {case}", kind=HOSTILE, peer="tests/compat/servers/hostile.py",
                 tools={HOSTILE: Tool("anything", fixed({}))})
        for case in HOSTILE_CASES
    ]
