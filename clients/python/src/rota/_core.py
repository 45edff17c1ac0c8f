"""What the sync and async clients share: how each call is built, when it may be repeated, and
how an answer becomes a value or an exception. Only the sending differs between them."""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote

import httpx

from ._errors import (
    ConnectionFailed,
    InboxFull,
    InvalidRequest,
    RotaError,
    Unavailable,
    error_from_response,
    parse_retry_after,
)
from ._models import FailAction, JsonObject, Outcome, RunnerMode, decode_json

USER_AGENT = "rota-client-python/0.1.0"


@dataclass(frozen=True)
class RetryPolicy:
    """How failed calls are repeated.

    A call that cannot duplicate anything (a read, a registration, a pause, a deletion, a
    notification, which always carries a ``dedupe_key``: the caller's or a generated one) is
    repeated on 503 ``unavailable``, 429 ``inbox_full`` and connection failures, waiting the
    server's ``Retry-After`` (at most ``max_retry_after``) or a growing, jittered back-off from
    ``initial_backoff`` up to ``max_backoff``. Any other call is repeated only when no connection
    could be opened. ``attempts`` counts the first try.
    """

    attempts: int = 5
    initial_backoff: float = 0.2
    max_backoff: float = 5.0
    max_retry_after: float = 30.0

    def wait_before_retry(self, call: Call, error: RotaError, tries: int) -> float | None:
        """Seconds to wait before try ``tries + 1``, or None when the error is final."""
        if tries >= self.attempts:
            return None
        if isinstance(error, (Unavailable, InboxFull)):
            if not call.safe:
                return None
            if error.retry_after is not None:
                return float(min(error.retry_after, self.max_retry_after))
        elif isinstance(error, ConnectionFailed):
            if error.request_sent and not call.safe:
                return None
        else:
            return None
        backoff = min(self.max_backoff, self.initial_backoff * 2.0 ** (tries - 1))
        return backoff * random.uniform(0.5, 1.0)


@dataclass(frozen=True)
class Call:
    """One request: ``safe`` when repeating it cannot duplicate anything."""

    method: str
    path: str
    safe: bool
    body: Any = None
    params: Mapping[str, str] | None = None
    timeout: float | None = None
    has_body: bool = False


def in_tenant(call: Call, tenant: str | None) -> Call:
    """The call with ``?tenant=`` when it is an agent or call call (``/v1/agents...``,
    ``/v1/calls/...``: a call is its tenant's) of a client with a tenant; any other as it is."""
    if tenant is None or not call.path.startswith(("/v1/agents", "/v1/calls/")):
        return call
    return replace(call, params={**(call.params or {}), "tenant": tenant})


def tenant_path(name: str) -> str:
    return f"/admin/tenants/{segment(name)}"


def tenant_body(
    weight: int, max_concurrent: int | None, max_activations_per_minute: int | None
) -> JsonObject:
    """The body of ``PUT /admin/tenants/{tenant}``: a cap not given is sent as null (no cap)."""
    return {
        "weight": weight,
        "maxConcurrent": max_concurrent,
        "maxActivationsPerMinute": max_activations_per_minute,
    }


def with_body(
    method: str, path: str, body: Any, *, safe: bool, timeout: float | None = None
) -> Call:
    return Call(method, path, safe, body=body, timeout=timeout, has_body=True)


def segment(value: str) -> str:
    """A path segment, percent-encoded (ids may hold any character the API allows)."""
    return quote(value, safe="")


def agent_path(agent_id: str) -> str:
    return f"/v1/agents/{segment(agent_id)}"


def runner_path(runner_id: str) -> str:
    return f"/v1/runners/{segment(runner_id)}"


def admin_runner_path(runner_id: str) -> str:
    return f"/admin/runners/{segment(runner_id)}"


def lease_path(lease_id: str) -> str:
    return f"/v1/leases/{segment(lease_id)}"


def headers(token: str | None) -> dict[str, str]:
    h = {"Accept": "application/json", "User-Agent": USER_AGENT}
    if token:
        h["Authorization"] = f"Bearer {token}"
    return h


def build_request(
    client: httpx.Client | httpx.AsyncClient, call: Call, timeout: float
) -> httpx.Request:
    extensions = {
        "timeout": httpx.Timeout(call.timeout or timeout, connect=min(10.0, timeout)).as_dict()
    }
    if call.has_body:
        return client.build_request(
            call.method, call.path, params=call.params, json=call.body, extensions=extensions
        )
    return client.build_request(call.method, call.path, params=call.params, extensions=extensions)


def loggable(path: str) -> str:
    """The path with a lease id replaced by ``…``: errors are logged, and a lease id is a
    runner's credential for its turn (the node's access log redacts it alike)."""
    prefix = "/v1/leases/"
    if not path.startswith(prefix):
        return path
    rest = path[len(prefix) :]
    slash = rest.find("/")
    return prefix + "…" + ("" if slash < 0 else rest[slash:])


def transport_error(call: Call, error: httpx.TransportError) -> ConnectionFailed:
    """``request_sent`` is False only when the connection could not be opened. The message names
    the call without its lease id, also where the transport's own text repeats the URL."""
    sent = not isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))
    what = "cannot connect" if not sent else "got no answer"
    detail = repr(error)
    if call.path.startswith("/v1/leases/"):
        lease_segment = call.path[len("/v1/leases/") :].split("/", 1)[0]
        if lease_segment:
            detail = detail.replace(lease_segment, "…")
    return ConnectionFailed(
        f"{call.method} {loggable(call.path)} {what}: {detail}", request_sent=sent
    )


def answer(response: httpx.Response) -> Any:
    """The answer's JSON, or the typed error for an error status."""
    if response.status_code >= 300:
        raise error_from_response(
            response.status_code,
            response.content,
            parse_retry_after(response.headers.get("Retry-After")),
        )
    return decode_json(response.content)


def is_binding_refused(error: RotaError) -> bool:
    """A server without the lease's runner binding refuses ``runnerId`` as an unknown field (and
    only that: a 400 about the id's value is the caller's to see)."""
    return is_field_unknown(error, "runnerId")


def is_field_unknown(error: RotaError, field: str) -> bool:
    """Whether the node refused the request for an unknown ``field`` (a node from before it)."""
    return isinstance(error, InvalidRequest) and f"unknown field '{field}'" in error.message


# ---- request builders ----


def agent_spec(
    *,
    name: str | None = None,
    capabilities: Iterable[str] | None = None,
    priority: int | None = None,
    min_activation_interval_seconds: int | None = None,
    max_inbox_depth: int | None = None,
    max_attempts: int | None = None,
    metadata: Mapping[str, Any] | None = None,
    schedules: Sequence[Mapping[str, Any]] | None = None,
    new_input: str | None = None,
    debounce_ms: int | None = None,
    debounce_max_ms: int | None = None,
) -> JsonObject:
    """The registration body: absent fields keep their values on an update."""
    fields: JsonObject = {
        "name": name,
        "capabilities": list(capabilities) if capabilities is not None else None,
        "priority": priority,
        "minActivationIntervalSeconds": min_activation_interval_seconds,
        "maxInboxDepth": max_inbox_depth,
        "maxAttempts": max_attempts,
        "metadata": dict(metadata) if metadata is not None else None,
        "schedules": [dict(s) for s in schedules] if schedules is not None else None,
        "newInput": new_input,
        "debounceMs": debounce_ms,
        "debounceMaxMs": debounce_max_ms,
    }
    return {k: v for k, v in fields.items() if v is not None}


def list_agents_params(order: str | None, limit: int | None, after: str | None) -> dict[str, str]:
    params = {"order": order or "stalest"}
    if limit is not None:
        params["limit"] = str(limit)
    if after is not None:
        params["after"] = after
    return params


GENERATED_KEY_PREFIX = "sdk-"


def dedupe_key_or_generated(dedupe_key: str | None) -> str:
    """The caller's dedupe key, or a new ``sdk-<uuid>`` one: a 503 may answer a notification the
    node accepted, so a retry must carry the first try's key to be accepted once."""
    return dedupe_key if dedupe_key is not None else GENERATED_KEY_PREFIX + str(uuid.uuid4())


def notification_body(
    type: str, payload: Any, dedupe_key: str | None, new_input: str | None = None
) -> JsonObject:
    body: JsonObject = {"type": type}
    if payload is not None:
        body["payload"] = payload
    if dedupe_key is not None:
        body["dedupeKey"] = dedupe_key
    if new_input is not None:
        body["newInput"] = new_input
    return body


def dead_letter_params(agent_id: str | None, limit: int | None) -> dict[str, str]:
    params: dict[str, str] = {}
    if agent_id is not None:
        params["agentId"] = agent_id
    if limit is not None:
        params["limit"] = str(limit)
    return params


def event_params(
    agent_id: str | None, types: Iterable[str] | None, since: str | None
) -> dict[str, str]:
    params: dict[str, str] = {}
    if agent_id is not None:
        params["agentId"] = agent_id
    if types:
        params["types"] = ",".join(types)
    if since is not None:
        params["since"] = since
    return params


def claim_call(
    runner_id: str,
    mode: RunnerMode,
    capabilities: Iterable[str],
    wait_seconds: int,
    lease_seconds: int | None,
    timeout: float,
) -> Call:
    body: JsonObject = {
        "runnerId": runner_id,
        "mode": mode,
        "capabilities": sorted(set(capabilities)),
        "waitSeconds": wait_seconds,
    }
    if lease_seconds is not None:
        body["leaseSeconds"] = lease_seconds
    return with_body("POST", "/v1/claims", body, safe=False, timeout=wait_seconds + timeout)


def next_body(
    mode: RunnerMode, capabilities: Iterable[str], wait_seconds: int, lease_seconds: int | None
) -> JsonObject:
    """The ``next`` of a report: a claim's fields without its runner (the lease's)."""
    body: JsonObject = {
        "mode": mode,
        "capabilities": sorted(set(capabilities)),
        "waitSeconds": wait_seconds,
    }
    if lease_seconds is not None:
        body["leaseSeconds"] = lease_seconds
    return body


def health_body(degraded: bool, reason: str | None, seconds: float | None) -> JsonObject:
    """The body of ``POST /v1/runners/{runnerId}/health``: ``{"degraded": true, "reason": ...,
    "seconds": n}``, or ``{"degraded": false}`` (a recovery takes no reason nor duration)."""
    if not degraded:
        return {"degraded": False}
    if seconds is None:
        raise ValueError("seconds is required when reporting degraded")
    body: JsonObject = {"degraded": True}
    if reason is not None:
        body["reason"] = reason
    body["seconds"] = max(1, math.ceil(seconds))
    return body


def heartbeat_body(runner_id: str | None) -> JsonObject:
    return {"runnerId": runner_id} if runner_id else {}


def complete_body(
    runner_id: str | None,
    result: Any,
    sends: list[JsonObject] | None = None,
    defer: list[str] | None = None,
    input_seen: Sequence[str] | None = None,
) -> JsonObject:
    """A completion's body; the turn's sends and the calls it defers only when there are some (a
    node from before them then refuses the field rather than drop them), ``inputSeen`` whenever
    it is given (an empty list too: the turn took no steered notification)."""
    body: JsonObject = {"runnerId": runner_id} if runner_id else {}
    if result is not None:
        body["result"] = result
    if sends:
        body["send"] = list(sends)
    if defer:
        body["defer"] = list(defer)
    return with_input_seen(body, input_seen)


INPUT_SEEN = "inputSeen"
"""A report's field a node from before the runner's cursor refuses: the report then goes without
it, which is that node's only behaviour (every steered notification is the turn's)."""


def with_input_seen(body: JsonObject, input_seen: Sequence[str] | None) -> JsonObject:
    """The report's body with the runner's cursor on new input, when given: the ids of the
    steered notifications the turn took. Those it does not name go back to the inbox for the
    next turn; without the field every steered one is the turn's."""
    if input_seen is not None:
        body[INPUT_SEEN] = list(input_seen)
    return body


MAX_CALL_WAIT_SECONDS = 60
"""The longest wait the node takes in one poll of ``GET /v1/calls/{callId}``."""


def call_notification_body(
    type: str, payload: Any, dedupe_key: str | None, timeout_seconds: int | None
) -> JsonObject:
    """A producer's notification sent as a call: ``"call": {"timeoutSeconds"}`` beside its
    fields (an empty ``call`` takes the node's default timeout)."""
    body = notification_body(type, payload, dedupe_key_or_generated(dedupe_key))
    body["call"] = {} if timeout_seconds is None else {"timeoutSeconds": int(timeout_seconds)}
    return body


def get_call(call_id: str, wait_seconds: int, timeout: float) -> Call:
    """``GET /v1/calls/{callId}?waitSeconds=``: a long poll, so its timeout adds the wait."""
    if not 0 <= wait_seconds <= MAX_CALL_WAIT_SECONDS:
        raise ValueError(f"wait_seconds must be 0 to 60: {wait_seconds}")
    return Call(
        "GET",
        f"/v1/calls/{segment(call_id)}",
        safe=True,
        params={"waitSeconds": str(wait_seconds)},
        timeout=wait_seconds + timeout,
    )


def next_call_wait(deadline: float, now: float) -> int:
    """The ``waitSeconds`` of a producer's next poll: what is left of its own wait, capped."""
    return int(max(0.0, min(float(MAX_CALL_WAIT_SECONDS), deadline - now)))


def fail_body(
    runner_id: str | None,
    action: FailAction,
    error: str | None,
    snooze_seconds: int | None,
    input_seen: Sequence[str] | None = None,
) -> JsonObject:
    body: JsonObject = {"runnerId": runner_id} if runner_id else {}
    body["action"] = action
    if error is not None:
        body["error"] = error
    if action == "snooze":
        body["snoozeSeconds"] = int(snooze_seconds or 0)
    return with_input_seen(body, input_seen)


def outcome_fail_args(outcome: Outcome) -> tuple[FailAction, str | None, int | None]:
    if outcome.action == "complete":
        raise ValueError("a completion is not a failure")
    return outcome.action, outcome.error, outcome.snooze_seconds
