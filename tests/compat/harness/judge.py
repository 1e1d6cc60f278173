"""The rule for every cell, as code.

Through Herald the agent gets at least what it gets when connected directly; and wherever the
server can ask its question in an era Herald can speak, the question reaches the person
(attributed to the right server and tool) and the answer reaches the server, whatever era the
agent speaks. Besides: every message Herald sent the agent is valid in the agent's era, and
nothing is left pending once the call is over.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from answers import ROOT_URI, SAMPLING_REPLY
from matrix import (
    ECHO_TEXT, HOSTILE, INPUT_REQUIRED, MODERN, NONE, PING, PUSH, ROOTS, ROOTS_RESOLVER, SAMPLING,
    SAMPLING_RESOLVER, URL, URL_REQUIRED,
)

URL_ELICITATION_REQUIRED = -32042


@dataclass
class Run:
    """One call of a cell: its outcome as the agent reported it, and what happened around it."""

    outcome: dict[str, Any]
    asked: list[dict[str, Any]] = field(default_factory=list)  # what the agent's callbacks saw
    seen: list[dict[str, Any]] = field(default_factory=list)  # what the person saw (Herald only)
    answers: list[dict[str, Any]] = field(default_factory=list)  # what the person sent (Herald only)
    auto: list[dict[str, Any]] = field(default_factory=list)  # questions Herald answered for the person
    leftover: list[dict[str, Any]] = field(default_factory=list)  # still pending after the call
    schema_problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def texts(outcome: dict[str, Any]) -> list[str]:
    result = outcome.get("result") or {}
    return [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict) and c.get("type") == "text"]


def is_error(outcome: dict[str, Any]) -> bool:
    return outcome.get("kind") != "result" or bool((outcome.get("result") or {}).get("isError"))


def server_received(outcome: dict[str, Any]) -> tuple[str, Any] | None:
    """(action, content) the tool says the server received, from its result text."""
    for text in texts(outcome):
        if m := re.search(r"action=(accept|decline|cancel)(?: content=(\{.*\}))?", text):
            return m.group(1), json.loads(m.group(2)) if m.group(2) else None
        if "Raw result:" in text:  # server-everything prints the ElicitResult it got
            raw = json.loads(text.split("Raw result:", 1)[1])
            return raw.get("action"), raw.get("content")
    return None


def summary(outcome: dict[str, Any]) -> str:
    """A short description of an outcome for tables and failure reasons."""
    return " ".join(_summary(outcome).split())


def _summary(outcome: dict[str, Any]) -> str:
    kind = outcome.get("kind")
    if kind == "result":
        text = " / ".join(t.replace("\n", " ") for t in texts(outcome))
        flag = "isError result" if is_error(outcome) else "result"
        return f"{flag}: {text[:160]}"
    if kind == "timeout":
        return f"no answer in time ({outcome.get('stage')})"
    return f"{outcome.get('stage', '')} error {outcome.get('code')}: {str(outcome.get('message'))[:200]}"


def same_content(sent: Any, received: Any) -> bool:
    if not isinstance(sent, dict) or not isinstance(received, dict):
        return sent == received
    return all(received.get(k) == v for k, v in sent.items())


def expect_answer(run: Run, answer: str, content: Any, mode: str) -> list[str]:
    """The tool result shows the server received `answer` (and, for a form, `content`)."""
    if run.outcome.get("kind") != "result":
        return [f"expected a tool result reflecting '{answer}', got {summary(run.outcome)}"]
    got = server_received(run.outcome)
    if got is None:
        return [f"expected a tool result reflecting '{answer}', got {summary(run.outcome)}"]
    action, received = got
    if action != answer:
        return [f"the server received '{action}', the answer was '{answer}'"]
    if answer == "accept" and mode == "form" and not same_content(content, received):
        return [f"the server received content {json.dumps(received)}, the answer was {json.dumps(content)}"]
    return []


def person_saw(run: Run, slug: str, tool: str, mode: str) -> list[str]:
    if not run.seen:
        why = "the question never reached the person"
        if run.auto:
            auto = run.auto[0]
            why += f" (Herald answered it itself: {auto.get('action')} by {auto.get('decided_by')}, {auto.get('reason')})"
        return [why]
    first = run.seen[0]
    problems = []
    if (first.get("server") or {}).get("slug") != slug:
        problems.append(f"the person saw the question attributed to server {first.get('server')}, not {slug}")
    if first.get("tool") != tool:
        problems.append(f"the person saw the question attributed to tool {first.get('tool')!r}, not {tool!r}")
    if first.get("mode") != mode:
        problems.append(f"the person saw a {first.get('mode')} question, the server asked in {mode} mode")
    return problems


def common(run: Run) -> list[str]:
    problems = [f"schema: {p}" for p in run.schema_problems[:3]]
    if len(run.schema_problems) > 3:
        problems.append(f"schema: … and {len(run.schema_problems) - 3} more")
    if run.leftover:
        problems.append(f"{len(run.leftover)} elicitation(s) left pending after the call")
    if any(a.get("method") == "elicitation/create" for a in run.asked):
        problems.append("the agent's own elicitation callback was asked through Herald: the question went to the "
                        "agent instead of the person")
    return problems


def judge_question(kind: str, slug: str, tool: str, era: str, answer: str, direct: Run, herald: Run,
                   prerequisite_url: str | None) -> list[str]:
    problems = common(herald)
    if kind == NONE:
        if is_error(herald.outcome) or not any(ECHO_TEXT in t for t in texts(herald.outcome)):
            problems.append(f"expected the echo result, got {summary(herald.outcome)}")
        return problems
    mode = "url" if kind in (URL, URL_REQUIRED) else "form"
    problems += person_saw(herald, slug, tool, mode)
    content = herald.answers[0].get("content") if herald.answers else None
    if kind in (PUSH, INPUT_REQUIRED, URL):
        return problems + expect_answer(herald, answer, content, mode)
    # -32042: the person is shown the prerequisite; accepting it lets Herald retry the call once.
    if herald.seen and prerequisite_url and herald.seen[0].get("url") != prerequisite_url:
        problems.append(f"the person was shown {herald.seen[0].get('url')}, the server required {prerequisite_url}")
    if answer == "accept":
        if is_error(herald.outcome):
            problems.append(f"after the prerequisite was accepted the retry should succeed, got {summary(herald.outcome)}")
        elif (got := server_received(herald.outcome)) is not None and got[0] != "accept":
            problems.append(f"the retry's own question reached the server as '{got[0]}', the answer was 'accept'")
    elif herald.outcome.get("kind") != "error" and not is_error(herald.outcome):
        problems.append(f"a refused prerequisite must leave the call failed, got {summary(herald.outcome)}")
    elif era == MODERN and herald.outcome.get("code") == URL_ELICITATION_REQUIRED:
        problems.append("Herald relayed -32042 to a 2026-07-28 agent, an era without that error")
    elif era != MODERN and herald.outcome.get("code") != URL_ELICITATION_REQUIRED:
        # What the agent gets directly: the server's -32042 itself.
        problems.append(f"expected the server's -32042 error, got {summary(herald.outcome)}")
    return problems


def baseline(kind: str, answer: str, direct: Run) -> list[str]:
    """The harness checking itself: where the agent's own callback answered a question directly, the
    direct result must reflect that answer the way the Herald run is judged. A problem here is in the
    harness or a peer, not in Herald."""
    asked = [a for a in direct.asked if a.get("method") == "elicitation/create"]
    if kind not in (PUSH, INPUT_REQUIRED, URL) or not asked:
        return []
    params = asked[0].get("params") or {}
    mode = "url" if params.get("mode") == "url" else "form"
    content = (asked[0].get("answer") or {}).get("content")
    return expect_answer(direct, answer, content, mode)


def relayed(run: Run, kind: str) -> bool:
    token = SAMPLING_REPLY if kind in (SAMPLING, SAMPLING_RESOLVER) else ROOT_URI if kind in (ROOTS, ROOTS_RESOLVER) else "pong"
    return run.outcome.get("kind") == "result" and not is_error(run.outcome) and any(token in t for t in texts(run.outcome))


def judge_server_request(kind: str, era: str, direct: Run, herald: Run) -> list[str]:
    """Sampling, roots, ping: relayed where the agent's own session can carry them, else a clean error."""
    problems = common(herald)
    if kind == PING:
        if not relayed(herald, kind):
            problems.append(f"the server's ping should be answered, got {summary(herald.outcome)}")
        return problems
    must_relay = era != MODERN or relayed(direct, kind)
    if relayed(herald, kind):
        return problems
    if must_relay and any(re.search(r"Tool \S+ not found|Unknown tool", t) for t in texts(herald.outcome)):
        # server-everything registers these tools only for a session that declared the capability.
        # Herald declares it upstream only for agents it can relay to; for any other agent the
        # tool's absence is the truthful outcome (the server never asks what nobody can answer).
        return problems + [f"the tool does not exist through Herald (the capability was not declared upstream): "
                           f"{summary(herald.outcome)}"]
    if must_relay:
        why = "the agent declared the capability" if era != MODERN else "the agent gets it directly"
        problems.append(f"expected the agent's answer relayed to the server ({why}), got {summary(herald.outcome)}")
    elif herald.outcome.get("kind") == "timeout":
        problems.append("the call never ended: the server should receive an error saying why")
    elif any("no roots are currently configured" in t for t in texts(herald.outcome)):
        # server-everything asks for roots outside any call, right after its session starts; a
        # 2026-07-28 agent can be asked only within its calls, so Herald refused that request
        # with an error and the server reports that it has no roots (the agent could not reach
        # this server at all directly).
        pass
    elif not (is_error(herald.outcome) or any("failed: code=" in t for t in texts(herald.outcome))):
        problems.append(f"expected the relay or an error the server received, got {summary(herald.outcome)}")
    return problems


def judge_hostile(slug: str, name: str, herald: Run) -> list[str]:
    problems = common(herald)
    outcome = herald.outcome
    if outcome.get("kind") == "timeout":
        return problems + ["the call never ended: it must fail naming the server and the reason"]
    if not is_error(outcome):
        return problems + [f"expected an error naming the server, got {summary(outcome)}"]
    text = str(outcome.get("message")) + " ".join(texts(outcome))
    if slug not in text and name not in text:
        problems.append(f"the error does not name the server: {summary(outcome)}")
    if herald.seen:
        problems.append("a hostile server's question reached the person")
    return problems


KINDS_WITH_QUESTIONS = (NONE, PUSH, INPUT_REQUIRED, URL, URL_REQUIRED)
__all__ = ["Run", "baseline", "judge_question", "judge_server_request", "judge_hostile", "summary", "HOSTILE",
           "KINDS_WITH_QUESTIONS"]
