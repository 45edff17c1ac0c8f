"""What a handler gets beside its activation: the lease's deadline and a cancellation signal."""

from __future__ import annotations

import enum
import threading
import time


class CancelReason(str, enum.Enum):
    """Why a handler's work was stopped; in none of these cases is anything reported for it."""

    LEASE_LOST = "lease_lost"
    """The server answered 410 (or 409/404): another runner may hold the agent now."""
    LEASE_EXPIRED = "lease_expired"
    """No heartbeat succeeded before the lease's deadline by the local monotonic clock."""
    SHUTDOWN = "shutdown"
    """The runner stopped and the grace period ran out; the lease was handed back."""


class Cancelled(Exception):
    """Raised by :meth:`Context.check` and :meth:`Context.sleep` once the work must stop."""

    def __init__(self, reason: CancelReason) -> None:
        super().__init__(f"activation cancelled: {reason.value}")
        self.reason = reason


class Context:
    """The handler's view of its lease.

    ``deadline`` is a :func:`time.monotonic` instant by which the lease runs out unless a
    heartbeat extends it (heartbeats move it forward); ``remaining()`` is the time left.
    A plain-function handler cannot be interrupted, so it calls :meth:`check` (or waits with
    :meth:`sleep`) between steps; a coroutine handler is cancelled (``CancelledError``) too.
    """

    def __init__(self, runner_id: str, lease_id: str, deadline: float) -> None:
        self.runner_id = runner_id
        self.lease_id = lease_id
        self._deadline = deadline
        self._event = threading.Event()
        self._reason: CancelReason | None = None
        self._lock = threading.Lock()

    @property
    def deadline(self) -> float:
        return self._deadline

    def remaining(self) -> float:
        """Seconds until the lease's current deadline (negative once past it)."""
        return self._deadline - time.monotonic()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    @property
    def reason(self) -> CancelReason | None:
        return self._reason

    def check(self) -> None:
        """Raises :class:`Cancelled` once the work must stop."""
        reason = self._reason
        if reason is not None:
            raise Cancelled(reason)

    def sleep(self, seconds: float) -> None:
        """Waits ``seconds``, or raises :class:`Cancelled` as soon as the work must stop."""
        self._event.wait(max(0.0, seconds))
        self.check()

    def wait_cancelled(self, timeout: float | None = None) -> bool:
        """Blocks until cancelled (True) or ``timeout`` passes (False)."""
        return self._event.wait(timeout)

    def _extend(self, deadline: float) -> None:
        self._deadline = max(self._deadline, deadline)

    def _cancel(self, reason: CancelReason) -> bool:
        """Sets the reason once; True the first time."""
        with self._lock:
            if self._reason is not None:
                return False
            self._reason = reason
        self._event.set()
        return True
