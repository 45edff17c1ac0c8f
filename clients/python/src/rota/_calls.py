"""Agents that work together (docs/api.md): what a turn sends and calls, and the typed answers a
call gets back, as a reply notification in the caller's inbox or from ``GET /v1/calls/{callId}``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from ._times import parse_time

JsonObject = dict[str, Any]

REPLY_TYPE = "rota.reply"
"""The type of the notification that carries a call's reply to the calling agent."""

CallStatus = Literal["pending", "answered", "failed", "timedOut"]
"""``pending`` only while a producer's call has no answer yet; a reply is never pending."""


@dataclass(frozen=True)
class AgentRef:
    """An agent named across tenants: who made a call, or who was called."""

    tenant: str | None
    agent_id: str | None

    @staticmethod
    def from_json(raw: Any) -> AgentRef | None:
        if not isinstance(raw, dict):
            return None
        tenant, agent_id = raw.get("tenant"), raw.get("agentId")
        return AgentRef(
            tenant if isinstance(tenant, str) else None,
            agent_id if isinstance(agent_id, str) else None,
        )


@dataclass(frozen=True)
class CallError:
    """Why a call failed: ``reason`` (``undeliverable``, ``depth_exceeded``, a dead letter's
    reason, ...) and a human ``message``."""

    reason: str
    message: str | None = None

    @staticmethod
    def from_json(raw: Any) -> CallError | None:
        if not isinstance(raw, dict):
            return None
        message = raw.get("message")
        return CallError(str(raw.get("reason")), message if isinstance(message, str) else None)


@dataclass(frozen=True)
class CallInfo:
    """What a notification that is a call says about it: completing the turn that carries it
    answers the caller (with the completion's result). ``depth`` grows by one with each call made
    by a turn that serves a call."""

    call_id: str
    from_: AgentRef | None
    """The caller (``from``); its agent id is None for a caller outside Rota."""
    depth: int

    @staticmethod
    def from_json(raw: Any) -> CallInfo | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("callId"), str):
            return None
        return CallInfo(
            str(raw["callId"]), AgentRef.from_json(raw.get("from")), int(raw.get("depth", 0))
        )


@dataclass(frozen=True)
class Reply:
    """The answer to a call a turn made, as it arrives in a later turn of the caller: a
    notification of type ``rota.reply`` (:attr:`Notification.reply`). Exactly one per call; the
    replies of a call group arrive together. ``from_`` is the agent that was called (the
    payload's ``from``); ``result`` is its turn's completion result when ``answered``, ``error``
    says why when ``failed``."""

    call_id: str
    from_: AgentRef | None
    status: CallStatus
    result: Any = None
    error: CallError | None = None

    @property
    def answered(self) -> bool:
        return self.status == "answered"

    @staticmethod
    def from_payload(payload: Any) -> Reply:
        """The reply of a ``rota.reply`` notification's payload; ValueError when it is not one."""
        if not isinstance(payload, dict) or not isinstance(payload.get("callId"), str):
            raise ValueError(f"not a reply's payload: {payload!r}")
        return Reply(
            call_id=payload["callId"],
            from_=AgentRef.from_json(payload.get("from")),
            status=_status(payload.get("status")),
            result=payload.get("result"),
            error=CallError.from_json(payload.get("error")),
        )


@dataclass(frozen=True)
class CallAnswer:
    """Where a producer's call stands (``GET /v1/calls/{callId}``): ``pending`` while it waits
    for its answer, else ``answered`` (with the answering turn's ``result``), ``failed`` (with
    ``error``) or ``timedOut``."""

    call_id: str
    status: CallStatus
    result: Any = None
    error: CallError | None = None
    answered_at: datetime | None = None

    @property
    def pending(self) -> bool:
        return self.status == "pending"

    @property
    def answered(self) -> bool:
        return self.status == "answered"

    @staticmethod
    def from_json(raw: JsonObject) -> CallAnswer:
        return CallAnswer(
            call_id=str(raw.get("callId")),
            status=_status(raw.get("status")),
            result=raw.get("result"),
            error=CallError.from_json(raw.get("error")),
            answered_at=parse_time(raw.get("answeredAt")),
        )


def _status(value: Any) -> CallStatus:
    if value == "pending":
        return "pending"
    if value == "answered":
        return "answered"
    if value == "failed":
        return "failed"
    if value == "timedOut":
        return "timedOut"
    raise ValueError(f"unknown call status: {value!r}")


def send_item(
    agent_id: str,
    type: str,
    payload: Any = None,
    *,
    dedupe_key: str | None = None,
    new_input: str | None = None,
    call: JsonObject | None = None,
) -> JsonObject:
    """One item of a completion's ``send`` list; a call when ``call`` is given (may be empty)."""
    item: JsonObject = {"agentId": agent_id, "type": type}
    if payload is not None:
        item["payload"] = payload
    if dedupe_key is not None:
        item["dedupeKey"] = dedupe_key
    if new_input is not None:
        item["newInput"] = new_input
    if call is not None:
        item["call"] = call
    return item


def call_options(timeout_seconds: int | None, group: str | None = None) -> JsonObject:
    """A call's ``call`` object: the fields given, none for the server's defaults."""
    options: JsonObject = {}
    if timeout_seconds is not None:
        options["timeoutSeconds"] = int(timeout_seconds)
    if group is not None:
        options["group"] = group
    return options
