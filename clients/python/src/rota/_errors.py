"""The API's errors as exceptions, one class per error code of its contract (the OpenAPI
document a node serves at ``/openapi.yaml``)."""

from __future__ import annotations

import json
from typing import Any


class RotaError(Exception):
    """A request Rota refused, or one that got no answer.

    ``status`` is the HTTP status (0 when no answer arrived), ``code`` the API's error code
    (``invalid``, ``not_found``, ...), ``retry_after`` the server's ``Retry-After`` in seconds
    when it sent one (429 and 503).
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        retry_after: float | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" if status else message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after
        self.reason = reason
        """Why, in one word, where the code alone does not say (410 after an interrupt:
        ``interrupted``)."""


class InvalidRequest(RotaError):
    """400 ``invalid``: the message names the field."""


class Unauthenticated(RotaError):
    """401 ``unauthenticated``: no token, or an unknown one."""


class Forbidden(RotaError):
    """403 ``forbidden``: the token lacks the role, or a cross-site request."""


class NotFound(RotaError):
    """404 ``not_found``: unknown agent, lease or dead letter."""


class Conflict(RotaError):
    """409 ``conflict``, e.g. deleting an agent that holds a lease."""


class LeaseNotHeld(Conflict):
    """409 ``lease_not_held``: the lease was granted to another runner id."""


class TurnInProgress(Conflict):
    """409 ``turn_in_progress``: the agent (or the notification) refuses new input while a turn
    runs (``newInput: reject``); nothing was stored. Send it again after ``retry_after``."""


class LeaseLost(RotaError):
    """410 ``lease_lost``: the lease expired or was superseded; stop and report nothing more.
    ``interrupted`` is True when new input ended it (``newInput: interrupt``)."""

    @property
    def interrupted(self) -> bool:
        return self.reason == "interrupted"


class Gone(RotaError):
    """410 ``gone``: the events after the position asked for (``since`` / ``Last-Event-ID``) were
    removed by the journal's retention. ``oldest_retained_id`` is the oldest event id still held:
    resume with ``since`` one below it (what was removed is not served again), or without a
    position to start now."""

    oldest_retained_id: str | None = None


class TooLarge(RotaError):
    """413, 414 or 431 ``too_large``: body, URI or headers over the server's limits."""


class InboxFull(RotaError):
    """429 ``inbox_full``: the agent's inbox is at ``maxInboxDepth``; see ``retry_after``."""


class Unavailable(RotaError):
    """503 ``unavailable``: store or cluster not ready; see ``retry_after``."""


class ConnectionFailed(RotaError):
    """No answer: the connection failed or timed out.

    ``request_sent`` is False when the request provably never reached the server (the connection
    could not be opened), so repeating it cannot duplicate anything.
    """

    def __init__(self, message: str, request_sent: bool) -> None:
        super().__init__(0, "connection", message)
        self.request_sent = request_sent


_BY_STATUS: dict[int, type[RotaError]] = {
    400: InvalidRequest,
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: LeaseLost,
    413: TooLarge,
    414: TooLarge,
    431: TooLarge,
    429: InboxFull,
    503: Unavailable,
}


def error_from_response(status: int, body: bytes, retry_after: float | None) -> RotaError:
    """The exception for an error answer; a body that is not the API's shape still gives one."""
    code = f"http_{status}"
    message = body.decode("utf-8", "replace").strip()
    try:
        parsed: Any = json.loads(body) if body else None
    except ValueError:
        parsed = None
    reason: str | None = None
    oldest_retained_id: str | None = None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), str):
        code = parsed["error"]
        message = str(parsed.get("message") or message)
        if isinstance(parsed.get("reason"), str):
            reason = parsed["reason"]
        if isinstance(parsed.get("oldestRetainedId"), str):
            oldest_retained_id = parsed["oldestRetainedId"]
    if not message:
        message = f"HTTP {status}"
    cls: type[RotaError]
    if code == "lease_not_held":
        cls = LeaseNotHeld
    elif code == "turn_in_progress":
        cls = TurnInProgress
    elif code == "gone":
        gone = Gone(status, code, message, retry_after, reason)
        gone.oldest_retained_id = oldest_retained_id
        return gone
    else:
        cls = _BY_STATUS.get(status, RotaError)
    return cls(status, code, message, retry_after, reason)


def parse_retry_after(header: str | None) -> float | None:
    """``Retry-After`` in seconds; the HTTP-date form is not used by Rota and reads as absent."""
    if header is None:
        return None
    try:
        return max(0.0, float(header.strip()))
    except ValueError:
        return None
