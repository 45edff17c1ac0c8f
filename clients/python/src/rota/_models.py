"""The values the API hands out, as small frozen dataclasses over its JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ._calls import REPLY_TYPE, CallInfo, Reply
from ._times import parse_time

JsonObject = dict[str, Any]
"""A JSON object as the server sent it (agent views, stats, explanations, ...)."""

RunnerMode = Literal["notification", "hybrid", "exploration"]
FailAction = Literal["retry", "cancel", "discard", "snooze"]


@dataclass(frozen=True)
class NotifyResult:
    """The answer to a notification: its id, the inbox's unread count, whether it repeated one."""

    notification_id: str
    unread: int
    duplicate: bool
    steered: bool = False
    """It joined the turn running now (``newInput: steer``)."""
    interrupted: bool = False
    """It ended the turn running now (``newInput: interrupt``)."""
    call_id: str | None = None
    """The call's id, when the notification was sent as a call (:meth:`Rota.start_call`)."""

    @staticmethod
    def from_json(raw: dict[str, Any]) -> NotifyResult:
        call_id = raw.get("callId")
        return NotifyResult(
            str(raw["notificationId"]),
            int(raw["unread"]),
            bool(raw["duplicate"]),
            bool(raw.get("steered", False)),
            bool(raw.get("interrupted", False)),
            call_id if isinstance(call_id, str) else None,
        )


@dataclass(frozen=True)
class Notification:
    """One notification carried by an activation. ``call`` is set when it is a call (completing
    the turn answers it); :attr:`reply` reads the reply to a call this agent made."""

    notification_id: str
    type: str
    payload: Any
    received_at: datetime | None
    attempt: int
    call: CallInfo | None = None

    @property
    def is_reply(self) -> bool:
        """Whether this is the reply to a call this agent made (type ``rota.reply``)."""
        return self.type == REPLY_TYPE

    @property
    def reply(self) -> Reply | None:
        """The typed reply this notification carries; None when it is not a reply."""
        return Reply.from_payload(self.payload) if self.is_reply else None

    @staticmethod
    def from_json(raw: JsonObject) -> Notification:
        return Notification(
            notification_id=str(raw.get("notificationId")),
            type=str(raw.get("type")),
            payload=raw.get("payload"),
            received_at=parse_time(raw.get("receivedAt")),
            attempt=int(raw.get("attempt", 1)),
            call=CallInfo.from_json(raw.get("call")),
        )


@dataclass(frozen=True)
class ScheduleFire:
    """Which fire of which schedule a ``scheduled`` turn serves."""

    name: str
    fired_at: datetime | None
    payload: Any


@dataclass(frozen=True)
class Activation:
    """One granted turn of an agent: what a handler works on.

    ``kind`` is ``inbox``, ``scheduled`` or ``exploration``; ``more`` says some notifications
    stayed unread for the next turn (per-activation limits); ``schedule`` is set on a
    ``scheduled`` turn; ``agent`` holds the agent's ``name``, ``capabilities`` and ``metadata``.
    """

    lease_id: str
    agent_id: str
    kind: str
    attempt: int
    granted_at: datetime | None
    expires_at: datetime | None
    notifications: tuple[Notification, ...]
    more: bool
    schedule: ScheduleFire | None
    agent: JsonObject
    raw: JsonObject = field(repr=False)
    owes: tuple[CallInfo, ...] = ()
    """The calls earlier turns deferred, which this turn may answer too (docs/api.md, "Deferred
    answers"); the calls it carries are in its notifications' ``call``."""

    @property
    def lease_seconds(self) -> float | None:
        """The lease's length by the server's clock."""
        if self.granted_at is None or self.expires_at is None:
            return None
        return (self.expires_at - self.granted_at).total_seconds()

    @staticmethod
    def from_json(raw: JsonObject) -> Activation:
        schedule = raw.get("schedule")
        return Activation(
            lease_id=str(raw["leaseId"]),
            agent_id=str(raw["agentId"]),
            kind=str(raw.get("kind", "inbox")),
            attempt=int(raw.get("attempt", 1)),
            granted_at=parse_time(raw.get("grantedAt")),
            expires_at=parse_time(raw.get("expiresAt")),
            notifications=tuple(Notification.from_json(n) for n in raw.get("notifications", [])),
            more=bool(raw.get("more", False)),
            schedule=(
                ScheduleFire(
                    name=str(schedule.get("name")),
                    fired_at=parse_time(schedule.get("firedAt")),
                    payload=schedule.get("payload"),
                )
                if isinstance(schedule, dict)
                else None
            ),
            agent=dict(raw.get("agent") or {}),
            raw=raw,
            owes=tuple(
                c for c in (CallInfo.from_json(o) for o in raw.get("owes") or []) if c is not None
            ),
        )


@dataclass(frozen=True)
class ClaimResult:
    """The answer to a claim: ``status`` is ``assigned`` (with ``activation``), ``none`` or
    ``paused``; a degraded or draining runner gets ``none`` with a ``reason`` and
    ``retry_after_seconds``."""

    status: str
    activation: Activation | None = None
    reason: str | None = None
    retry_after_seconds: float | None = None

    @staticmethod
    def from_json(raw: JsonObject) -> ClaimResult:
        assignment = raw.get("assignment")
        retry = raw.get("retryAfterSeconds")
        return ClaimResult(
            status=str(raw.get("status")),
            activation=Activation.from_json(assignment) if isinstance(assignment, dict) else None,
            reason=raw.get("reason"),
            retry_after_seconds=float(retry) if isinstance(retry, (int, float)) else None,
        )


def _float_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Degraded:
    """Why and until when a runner is degraded: its own reason, or Rota's."""

    reason: str
    since: datetime | None
    until: datetime | None

    @staticmethod
    def from_json(raw: Any) -> Degraded | None:
        if not isinstance(raw, dict):
            return None
        return Degraded(
            reason=str(raw.get("reason", "")),
            since=parse_time(raw.get("since")),
            until=parse_time(raw.get("until")),
        )


@dataclass(frozen=True)
class RunnerStats:
    """A runner's activations that ended within the stats window (1 h by default); the times
    are None until one completed or failed."""

    completed: int = 0
    failed: int = 0
    expired: int = 0
    mean_activation_seconds: float | None = None
    p95_activation_seconds: float | None = None
    last_error: str | None = None
    last_error_at: datetime | None = None

    @staticmethod
    def from_json(raw: Any) -> RunnerStats:
        if not isinstance(raw, dict):
            return RunnerStats()
        return RunnerStats(
            completed=int(raw.get("completed") or 0),
            failed=int(raw.get("failed") or 0),
            expired=int(raw.get("expired") or 0),
            mean_activation_seconds=_float_or_none(raw.get("meanActivationSeconds")),
            p95_activation_seconds=_float_or_none(raw.get("p95ActivationSeconds")),
            last_error=_str_or_none(raw.get("lastError")),
            last_error_at=parse_time(raw.get("lastErrorAt")),
        )


@dataclass(frozen=True)
class RunnerView:
    """One runner of ``GET /admin/runners``.

    ``status`` is ``idle``, ``executing``, ``degraded`` or ``draining``; ``node`` is None for an
    external runner; ``degraded`` is set only while the runner is degraded.
    """

    runner_id: str
    node: str | None
    mode: str | None
    capabilities: tuple[str, ...]
    status: str
    lease_id: str | None
    last_seen_at: datetime | None
    stats: RunnerStats
    degraded: Degraded | None
    raw: JsonObject = field(repr=False)

    @staticmethod
    def from_json(raw: JsonObject) -> RunnerView:
        lease_id = _str_or_none(raw.get("leaseId"))
        status = raw.get("status")
        return RunnerView(
            runner_id=str(raw.get("runnerId")),
            node=_str_or_none(raw.get("node")),
            mode=_str_or_none(raw.get("mode")),
            capabilities=tuple(str(c) for c in raw.get("capabilities") or ()),
            # A node from before runner health sends no status: idle or executing then.
            status=str(status) if status else ("executing" if lease_id else "idle"),
            lease_id=lease_id,
            last_seen_at=parse_time(raw.get("lastSeenAt")),
            stats=RunnerStats.from_json(raw.get("stats")),
            degraded=Degraded.from_json(raw.get("degraded")),
            raw=raw,
        )


@dataclass(frozen=True)
class RunnerHealth:
    """A runner's state after a health report, a drain or a restore: ``status`` is ``healthy``,
    ``degraded`` (with ``degraded`` saying why and until when) or ``draining``."""

    runner_id: str
    status: str
    degraded: Degraded | None = None

    @staticmethod
    def from_json(raw: JsonObject) -> RunnerHealth:
        return RunnerHealth(
            runner_id=str(raw.get("runnerId")),
            status=str(raw.get("status")),
            degraded=Degraded.from_json(raw.get("degraded")),
        )


@dataclass(frozen=True)
class Event:
    """One event of ``GET /v1/events``: its SSE id (the resume cursor), type and JSON body."""

    id: str | None
    type: str
    data: JsonObject

    @property
    def agent_id(self) -> str | None:
        value = self.data.get("agentId")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Outcome:
    """What a handler's turn came to; the runner reports it on the lease.

    Build one with :meth:`complete`, :meth:`retry`, :meth:`cancel`, :meth:`discard` or
    :meth:`snooze`. A handler that returns ``None`` completes; one that raises retries.
    """

    action: Literal["complete", "retry", "cancel", "discard", "snooze"]
    result: Any = None
    error: str | None = None
    snooze_seconds: int = 0

    @staticmethod
    def complete(result: Any = None) -> Outcome:
        """Every carried notification is read; ``result`` (any JSON) goes to the history."""
        return Outcome("complete", result=result)

    @staticmethod
    def retry(error: str | None = None) -> Outcome:
        """The notifications come back with the next attempt (dead letter past maxAttempts)."""
        return Outcome("retry", error=error)

    @staticmethod
    def cancel(error: str | None = None) -> Outcome:
        return Outcome("cancel", error=error)

    @staticmethod
    def discard(error: str | None = None) -> Outcome:
        return Outcome("discard", error=error)

    @staticmethod
    def snooze(seconds: float, error: str | None = None) -> Outcome:
        """The agent is not activated again for ``seconds``; no attempt is used up."""
        return Outcome("snooze", error=error, snooze_seconds=max(0, int(seconds)))


def decode_json(body: bytes) -> Any:
    """The answer's JSON; a long-poll claim's leading spaces are fine for ``json.loads``."""
    return json.loads(body) if body.strip() else None
