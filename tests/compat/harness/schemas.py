"""Validates what Herald sends an agent against the official schema of the agent's era.

The official JSON schemas (`schema/2025-11-25.json`, `schema/2026-07-28.json` of the
specification repository) are not on any registry reachable here. The official Python SDK ships
pydantic models generated from exactly those files: `mcp_types._v2025_11_25` and
`mcp_types._v2026_07_28` (each module's header names the schema file and its sha256). They keep
every required field required (`resultType` in 2026-07-28 included) and ignore unknown fields, as
the JSON schemas allow additional properties. They are used in strict mode, so nothing is coerced
(no "1" for 1).

A message is checked by its kind: a response by the method of the request it answers (the tap
tracks request id -> method from the agent's POSTs), a notification by its method, a request from
the server by its method. 2026-07-28 has no server-to-client requests at all.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026
from pydantic import BaseModel, ValidationError

LEGACY = "2025-11-25"
MODERN = "2026-07-28"

# The schema file each era's models were generated from, for the report.
SCHEMA_SOURCES = {
    era: " ".join((module.__doc__ or "").split()).split("from ", 1)[-1].rstrip(".")
    for era, module in ((LEGACY, v2025), (MODERN, v2026))
}

LEGACY_RESULTS: dict[str, type[BaseModel]] = {
    "initialize": v2025.InitializeResult,
    "ping": v2025.Result,
    "tools/list": v2025.ListToolsResult,
    "tools/call": v2025.CallToolResult,
    "prompts/list": v2025.ListPromptsResult,
    "prompts/get": v2025.GetPromptResult,
    "resources/list": v2025.ListResourcesResult,
    "resources/read": v2025.ReadResourceResult,
    "resources/templates/list": v2025.ListResourceTemplatesResult,
    "completion/complete": v2025.CompleteResult,
    "logging/setLevel": v2025.Result,
}
LEGACY_SERVER_REQUESTS: dict[str, type[BaseModel]] = {
    "elicitation/create": v2025.ElicitRequest,
    "sampling/createMessage": v2025.CreateMessageRequest,
    "roots/list": v2025.ListRootsRequest,
    "ping": v2025.PingRequest,
}
LEGACY_NOTIFICATIONS: dict[str, type[BaseModel]] = {
    "notifications/cancelled": v2025.CancelledNotification,
    "notifications/progress": v2025.ProgressNotification,
    "notifications/message": v2025.LoggingMessageNotification,
    "notifications/resources/list_changed": v2025.ResourceListChangedNotification,
    "notifications/resources/updated": v2025.ResourceUpdatedNotification,
    "notifications/prompts/list_changed": v2025.PromptListChangedNotification,
    "notifications/tools/list_changed": v2025.ToolListChangedNotification,
    "notifications/tasks/status": v2025.TaskStatusNotification,
    "notifications/elicitation/complete": v2025.ElicitationCompleteNotification,
}

MODERN_RESPONSES: dict[str, type[BaseModel]] = {
    "server/discover": v2026.DiscoverResultResponse,
    "tools/list": v2026.ListToolsResultResponse,
    "tools/call": v2026.CallToolResultResponse,
    "prompts/list": v2026.ListPromptsResultResponse,
    "prompts/get": v2026.GetPromptResultResponse,
    "resources/list": v2026.ListResourcesResultResponse,
    "resources/read": v2026.ReadResourceResultResponse,
    "resources/templates/list": v2026.ListResourceTemplatesResultResponse,
    "completion/complete": v2026.CompleteResultResponse,
}
MODERN_NOTIFICATIONS: dict[str, type[BaseModel]] = {
    "notifications/cancelled": v2026.CancelledNotification,
    "notifications/progress": v2026.ProgressNotification,
    "notifications/message": v2026.LoggingMessageNotification,
    "notifications/resources/list_changed": v2026.ResourceListChangedNotification,
    "notifications/resources/updated": v2026.ResourceUpdatedNotification,
    "notifications/prompts/list_changed": v2026.PromptListChangedNotification,
    "notifications/tools/list_changed": v2026.ToolListChangedNotification,
    "notifications/subscriptions/acknowledged": v2026.SubscriptionsAcknowledgedNotification,
}


def _check(model: type[BaseModel], value: Any, what: str) -> list[str]:
    try:
        model.model_validate_json(json.dumps(value), strict=True)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(message)'}: {err['msg']}" for err in e.errors()[:6]
        )
        return [f"{what} is not a valid {model.__module__.rsplit('_v', 1)[-1]} {model.__name__}: {problems}"]
    return []


def validate(era: str, message: Any, method_of: dict[Any, str]) -> list[str]:
    """Problems with one JSON-RPC message sent to an agent of `era`; empty when it is valid.

    `method_of` maps the agent's request ids to their methods.
    """
    if not isinstance(message, dict):
        return [f"not a JSON-RPC message object: {json.dumps(message)[:200]}"]
    if "method" in message and "id" in message:
        method = message["method"]
        if era == MODERN:
            return [f"a server-to-client request ({method}) sent to a 2026-07-28 agent: that era has none"]
        model = LEGACY_SERVER_REQUESTS.get(method)
        if model is None:
            return [f"{method} is not a 2025-11-25 server request"]
        return _check(v2025.JSONRPCRequest, message, "request") + _check(model, message, method)
    if "method" in message:
        method = message["method"]
        table = MODERN_NOTIFICATIONS if era == MODERN else LEGACY_NOTIFICATIONS
        model = table.get(method)
        if model is None:
            return [f"{method} is not a {era} server notification"]
        envelope = v2026.JSONRPCNotification if era == MODERN else v2025.JSONRPCNotification
        return _check(envelope, message, "notification") + _check(model, message, method)
    if "error" in message:
        model = v2026.JSONRPCErrorResponse if era == MODERN else v2025.JSONRPCErrorResponse
        return _check(model, message, "error response")
    if "result" in message:
        method = method_of.get(message.get("id"), "")
        if era == MODERN:
            model = MODERN_RESPONSES.get(method, v2026.JSONRPCResultResponse)
            return _check(model, message, f"response to {method or 'an unknown request'}")
        problems = _check(v2025.JSONRPCResultResponse, message, "response")
        model = LEGACY_RESULTS.get(method, v2025.Result)
        return problems + _check(model, message.get("result"), f"result of {method or 'an unknown request'}")
    return [f"neither request, notification nor response: {json.dumps(message)[:200]}"]
