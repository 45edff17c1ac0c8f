"""What a handler gets beside its activation: the lease's deadline and a cancellation signal."""

from __future__ import annotations

import enum
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ._calls import CallInfo, JsonObject, call_options, send_item

if TYPE_CHECKING:
    from ._models import Notification


class CancelReason(str, enum.Enum):
    """Why a handler's work was stopped; in none of these cases is anything reported for it."""

    LEASE_LOST = "lease_lost"
    """The server answered 410 (or 409/404): another runner may hold the agent now."""
    LEASE_EXPIRED = "lease_expired"
    """No heartbeat succeeded before the lease's deadline by the local monotonic clock."""
    SHUTDOWN = "shutdown"
    """The runner stopped and the grace period ran out; the lease was handed back."""
    INTERRUPTED = "interrupted"
    """New input ended the lease (``newInput: interrupt``): its notifications are unread again,
    with the new one, and the agent's next turn has them all."""


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

    New input during the turn (``newInput: steer``): notifications steered into the lease arrive
    here, each once, in order. Take them with :meth:`drain_input` between steps, wait with
    :meth:`next_input`, iterate :meth:`input` (blocks until the next one or the turn's end), or
    register :meth:`on_input`. Completing the turn completes those the handler took
    (:attr:`input_seen`); any it never took return to the inbox, unread, for the next turn.

    Agents that work together: :meth:`send` and :meth:`call` buffer notifications to other agents
    of the tenant; they go out with the turn's completion, in one durable write with it, and not
    at all if the turn fails or is cancelled. A call's answer arrives later, in a turn of this
    agent, as a notification whose :attr:`~rota.Notification.reply` is the typed :class:`Reply`.
    """

    def __init__(self, runner_id: str, lease_id: str, deadline: float) -> None:
        self.runner_id = runner_id
        self.lease_id = lease_id
        self._deadline = deadline
        self._event = threading.Event()
        self._reason: CancelReason | None = None
        self._lock = threading.Lock()
        self._input: queue.SimpleQueue[Notification | None] = queue.SimpleQueue()
        self._seen: set[str] = set()
        self._taken: list[str] = []
        self._taken_lock = threading.Lock()
        self._on_input: Callable[[Notification], None] | None = None
        self._ended = False
        self._sends: list[JsonObject] = []
        self._sends_closed = False
        self._owes: tuple[CallInfo, ...] = ()
        self._defer: list[str] = []

    @property
    def owes(self) -> tuple[CallInfo, ...]:
        """Every call this turn may answer: those its notifications carry, then those earlier
        turns deferred (:attr:`~rota.Activation.owes`). Completing the turn answers each with its
        result, unless :meth:`defer` names it."""
        return self._owes

    def defer(self, call_id: str) -> None:
        """Leaves the call ``call_id`` unanswered by this turn's completion: the agent keeps owing
        it and answers it with a later turn's result, e.g. once the calls this turn makes have
        their replies (docs/api.md, "Deferred answers"). Naming a call twice defers it once."""
        if not call_id:
            raise ValueError("a call id is required")
        with self._lock:
            if self._sends_closed:
                raise RuntimeError("the turn is over: a defer must be made before it returns")
            if call_id not in self._defer:
                self._defer.append(call_id)

    def defer_all(self) -> None:
        """Defers every call this turn may answer (:attr:`owes`)."""
        for call in self._owes:
            self.defer(call.call_id)

    @property
    def deferred(self) -> list[str]:
        """The calls deferred so far, in order, as the completion's ``defer`` list carries them."""
        with self._lock:
            return list(self._defer)

    def send(
        self,
        agent_id: str,
        type: str,
        payload: Any = None,
        *,
        dedupe_key: str | None = None,
        new_input: str | None = None,
    ) -> None:
        """Sends a notification to ``agent_id`` with this turn's completion (never if it fails).
        Without a ``dedupe_key`` the node derives one from the lease and the send's place, so a
        completion retried after a lost answer does not send twice."""
        self._add(send_item(agent_id, type, payload, dedupe_key=dedupe_key, new_input=new_input))

    def call(
        self,
        agent_id: str,
        type: str,
        payload: Any = None,
        *,
        timeout_seconds: int | None = None,
        group: str | None = None,
        dedupe_key: str | None = None,
        new_input: str | None = None,
    ) -> None:
        """Calls ``agent_id`` with this turn's completion. Nothing comes back here: the node
        assigns the call's id, and the answer arrives in a later turn of this agent as a
        ``rota.reply`` notification (:attr:`~rota.Notification.reply`). ``timeout_seconds``
        (1 to 86,400; the node's default is an hour) bounds the wait; calls of one turn with the
        same ``group`` have their replies delivered together, once all are in."""
        options = call_options(timeout_seconds, group)
        self._add(
            send_item(
                agent_id,
                type,
                payload,
                dedupe_key=dedupe_key,
                new_input=new_input,
                call=options,
            )
        )

    @property
    def sends(self) -> list[JsonObject]:
        """The sends and calls buffered so far, as the completion's ``send`` list carries them."""
        with self._lock:
            return [dict(item) for item in self._sends]

    def _add(self, item: JsonObject) -> None:
        with self._lock:
            if self._sends_closed:
                raise RuntimeError("the turn is over: a send must be made before it returns")
            self._sends.append(item)

    def _close_sends(self) -> list[JsonObject]:
        """The turn is over: later sends are refused; the items its completion carries."""
        with self._lock:
            self._sends_closed = True
            return list(self._sends)

    @property
    def input_seen(self) -> list[str]:
        """The ids of the steered notifications the handler took so far (drained, waited for,
        iterated or handed to its :meth:`on_input` callback), in order: the turn's report names
        them (``inputSeen``). A steered notification that arrived but was never taken is not the
        turn's: it returns to the inbox, unread, for the next turn."""
        with self._taken_lock:
            return list(self._taken)

    def _took(self, notifications: list[Notification]) -> None:
        with self._taken_lock:
            self._taken.extend(n.notification_id for n in notifications)

    def drain_input(self) -> list[Notification]:
        """Every steered notification that arrived and was not taken yet, without waiting."""
        out: list[Notification] = []
        while True:
            try:
                item = self._input.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._input.put(None)
                break
            out.append(item)
        self._took(out)
        return out

    def next_input(self, timeout: float | None = None) -> Notification | None:
        """The next steered notification, waiting up to ``timeout``; None when none came or the
        turn ended."""
        try:
            item = self._input.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is None:
            self._input.put(None)
        else:
            self._took([item])
        return item

    def input(self) -> Iterator[Notification]:
        """Each next steered notification as it arrives, until the turn ends."""
        while True:
            item = self.next_input()
            if item is None:
                return
            yield item

    def on_input(self, callback: Callable[[Notification], None]) -> None:
        """Hands every steered notification to ``callback`` as it arrives (those waiting first)."""
        with self._lock:
            self._on_input = callback
            waiting = self.drain_input()
        for n in waiting:
            callback(n)

    def _offer(self, notifications: list[Notification]) -> None:
        for n in notifications:
            with self._lock:
                if self._ended or n.notification_id in self._seen:
                    continue
                self._seen.add(n.notification_id)
                callback = self._on_input
                if callback is None:
                    self._input.put(n)
                    continue
            self._took([n])
            callback(n)

    def _end_input(self) -> None:
        with self._lock:
            self._ended = True
        self._input.put(None)

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
