"""The runner loop: :class:`AsyncRunner` (asyncio) and :class:`Runner` (blocking)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import signal
import threading
import time
import traceback
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ._context import CancelReason, Context
from ._errors import (
    ConnectionFailed,
    InvalidRequest,
    LeaseLost,
    LeaseNotHeld,
    NotFound,
    RotaError,
    Unavailable,
)
from ._models import (
    Activation,
    ClaimResult,
    JsonObject,
    Notification,
    Outcome,
    RunnerHealth,
    RunnerMode,
)
from .aio import AsyncRota
from .client import Rota

log = logging.getLogger("rota.runner")

HandlerResult = Outcome | None
Handler = Callable[[Activation, Context], HandlerResult | Awaitable[HandlerResult]]
"""A plain function or a coroutine function taking the activation and its context. ``None``
completes the turn, an :class:`Outcome` says how it ended, an exception retries it."""

_MAX_ERROR_BACKOFF = 10.0
_MIN_EMPTY_CLAIM = 1.0
_REFUSED_WAIT = 5.0
"""How long a slot waits after a refusal that names no ``retryAfterSeconds``."""


def _slot_ids(runner_id: str, concurrency: int) -> list[str]:
    if concurrency == 1:
        return [runner_id]
    return [f"{runner_id}-{i}" for i in range(1, concurrency + 1)]


class RunnerListener:
    """Hooks into a runner's life; override what you need. Exceptions here are logged only."""

    def on_claimed(self, activation: Activation) -> None:
        pass

    def on_heartbeat(self, activation: Activation) -> None:
        pass

    def on_reported(self, activation: Activation, outcome: Outcome) -> None:
        pass

    def on_cancelled(self, activation: Activation, reason: CancelReason) -> None:
        pass

    def on_refused(self, slot_id: str, reason: str) -> None:
        """A claim of the slot was answered ``none`` with a ``reason`` (``degraded`` or
        ``draining``): the slot waits the server's ``retryAfterSeconds`` before asking again."""

    def on_error(self, what: str, error: BaseException) -> None:
        log.warning("rota runner: %s failed: %s", what, error)


def _is_coroutine_handler(handler: Handler) -> bool:
    call = getattr(handler, "__call__", None)  # noqa: B004 - a callable object's async __call__
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(call)


@dataclass
class _Running:
    activation: Activation
    slot_id: str
    context: Context
    work: asyncio.Future[HandlerResult]
    handed_back: bool = False
    keeper: asyncio.Task[None] | None = field(default=None)
    follower: asyncio.Task[None] | None = field(default=None)
    sends: list[JsonObject] = field(default_factory=list)
    """What a completion of the turn sends; the same list goes with every try of the report."""
    defer: list[str] = field(default_factory=list)
    """The calls a completion of the turn leaves owed."""
    input_seen: list[str] = field(default_factory=list)
    """The steered notifications the handler took: the report's ``inputSeen``, on either outcome."""


class AsyncRunner:
    """Claims activations and runs ``handler`` on each, ``concurrency`` at a time.

    Each slot long-polls ``POST /v1/claims`` for the runner's ``mode`` and ``capabilities`` (slot
    ``i`` claims as ``<runner_id>-i`` when there are several). While a handler runs, its lease is
    heartbeated every ``heartbeat_fraction`` of the lease on the monotonic clock; if the server
    answers that the lease is lost, or the deadline passes without a successful heartbeat, the
    handler is stopped (a coroutine is cancelled, a plain function sees its context cancelled)
    and nothing is reported for it. Otherwise the handler's outcome is reported: ``None``
    completes, an :class:`Outcome` says how, an exception retries with its text.

    A runner that cannot do good work (a revoked key, a full disk) says so with
    :meth:`report_health`: its claims are then answered ``none`` with reason ``degraded`` until
    the degradation ends. On such an answer (also when Rota degraded the runner after failures in
    a row, or an admin drained it) a slot waits ``retryAfterSeconds`` before it asks again, ending
    early when the runner stops or reports itself healthy.

    :meth:`stop` (or SIGTERM / SIGINT with ``handle_signals``) stops claiming, gives running
    handlers ``shutdown_grace`` seconds to finish and report, then cancels the rest and hands
    their leases back with a snooze of 0 s, which uses up no attempt. Reports carry the slot's
    runner id, so a node that binds leases to runners refuses a report by any other runner.
    """

    def __init__(
        self,
        client: AsyncRota,
        handler: Handler,
        *,
        runner_id: str | None = None,
        mode: RunnerMode = "hybrid",
        capabilities: Iterable[str] = (),
        concurrency: int = 1,
        lease_seconds: int | None = None,
        wait_seconds: int = 20,
        heartbeat_fraction: float = 1 / 3,
        heartbeat_interval: float | None = None,
        shutdown_grace: float = 30.0,
        listener: RunnerListener | None = None,
        follow_input: str = "auto",
    ) -> None:
        if follow_input not in ("auto", "always", "never"):
            raise ValueError("follow_input must be auto, always or never")
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if not 0 < heartbeat_fraction < 1:
            raise ValueError("heartbeat_fraction must be in (0, 1)")
        if heartbeat_interval is not None and heartbeat_interval <= 0:
            raise ValueError("heartbeat_interval must be positive")
        if lease_seconds is not None and not 5 <= lease_seconds <= 7200:
            raise ValueError("lease_seconds must be 5 to 7200 (the API's range)")
        if not 0 <= wait_seconds <= 60:
            raise ValueError("wait_seconds must be 0 to 60 (the API's range)")
        self.client = client
        self.handler = handler
        self.runner_id = runner_id or f"runner-{uuid.uuid4().hex[:8]}"
        self.mode: RunnerMode = mode
        self.capabilities = tuple(capabilities)
        self.concurrency = concurrency
        self.lease_seconds = lease_seconds
        self.wait_seconds = wait_seconds
        self.heartbeat_fraction = heartbeat_fraction
        self.heartbeat_interval = heartbeat_interval
        self.shutdown_grace = shutdown_grace
        self.listener = listener or RunnerListener()
        self.follow_input = follow_input
        self._coroutine_handler = _is_coroutine_handler(handler)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._stop_requested = threading.Event()
        self._grace_override: float | None = None
        self._claims: dict[str, asyncio.Task[Any]] = {}
        self._running: dict[str, _Running] = {}
        self._reports: set[asyncio.Task[None]] = set()
        self._healthy: asyncio.Event | None = None
        self._next_refused = False

    @property
    def busy(self) -> int:
        """How many handlers are running now."""
        return len(self._running)

    @property
    def slot_ids(self) -> list[str]:
        """The runner ids the slots claim as: ``runner_id``, or ``<runner_id>-i`` for several."""
        return _slot_ids(self.runner_id, self.concurrency)

    async def report_health(
        self, degraded: bool, *, reason: str | None = None, seconds: float | None = None
    ) -> list[RunnerHealth]:
        """Reports every slot of the runner degraded for ``seconds`` (with a ``reason``), so that
        Rota gives it no work meanwhile; or healthy again (``degraded=False``), which also wakes
        the slots waiting out a refusal. Callable before :meth:`run`, from a handler, or from
        outside (a health probe); an error of the report is raised to the caller."""
        states = [
            await self.client.report_health(slot, degraded, reason=reason, seconds=seconds)
            for slot in self.slot_ids
        ]
        if not degraded:
            self._wake_refused()
        return states

    def _wake_refused(self) -> None:
        """Wakes the slots waiting out a refusal (on the loop's thread)."""
        healthy, self._healthy = self._healthy, None
        if healthy is not None:
            healthy.set()

    def stop(self, grace: float | None = None) -> None:
        """Asks the runner to stop (from any thread, or a signal handler); :meth:`run` returns
        once it has."""
        if grace is not None:
            self._grace_override = grace
        self._stop_requested.set()
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopping.set)

    async def run(self, *, handle_signals: bool = False) -> None:
        """Runs until :meth:`stop`; with ``handle_signals`` SIGTERM and SIGINT stop it too."""
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        if self._stop_requested.is_set():
            self._stopping.set()
        installed: list[signal.Signals] = []
        if handle_signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    self._loop.add_signal_handler(sig, self.stop)
                    installed.append(sig)
        slots = [
            asyncio.create_task(self._slot(self._slot_id(i)), name=f"rota-slot-{i}")
            for i in range(1, self.concurrency + 1)
        ]
        try:
            await self._stopping.wait()
            await self._shut_down(slots)
        finally:
            for task in slots:
                task.cancel()
            for report in list(self._reports):
                report.cancel()
            for sig in installed:
                self._loop.remove_signal_handler(sig)

    def _slot_id(self, i: int) -> str:
        return self.slot_ids[i - 1]

    def _is_stopping(self) -> bool:
        return self._stopping is not None and self._stopping.is_set()

    async def _shut_down(self, slots: list[asyncio.Task[None]]) -> None:
        # A claim in flight is abandoned: the node hands back whatever it grants to a closed
        # connection without using an attempt.
        for claim in list(self._claims.values()):
            claim.cancel()
        grace = self._grace_override if self._grace_override is not None else self.shutdown_grace
        await asyncio.wait(slots, timeout=max(0.0, grace))
        if self._reports:
            # Reports sent while their slots claimed again: a finished activation is reported.
            await asyncio.wait(set(self._reports), timeout=max(1.0, grace))
        left = list(self._running.values())
        for running in left:
            self._cancel(running, CancelReason.SHUTDOWN)
        await asyncio.gather(*(self._hand_back(r, "runner stopped") for r in left))
        _, pending = await asyncio.wait(slots, timeout=10.0)
        for task in pending:
            self._guard(
                self.listener.on_error,
                "stop",
                RuntimeError(f"{task.get_name()}: its handler ignores cancellation"),
            )

    # ---- one slot ----

    async def _slot(self, slot_id: str) -> None:
        backoff = 0.5
        pending: ClaimResult | None = None
        while not self._is_stopping():
            # Taken before the claim: a healthy report made while it is answered still wakes.
            if self._healthy is None:
                self._healthy = asyncio.Event()
            healthy = self._healthy
            sent = time.monotonic()
            if pending is not None:
                # The answer of the claim the last report carried: no claim of its own.
                result, pending = pending, None
                if result.activation is None and result.status == "none" and result.reason is None:
                    continue
            else:
                try:
                    result = await self._claim(slot_id)
                    backoff = 0.5
                except asyncio.CancelledError:
                    if self._is_stopping():
                        return
                    raise
                except Exception as e:
                    self._guard(self.listener.on_error, "claim", e)
                    retry_after = e.retry_after if isinstance(e, RotaError) else None
                    await self._pause(retry_after if retry_after is not None else backoff)
                    backoff = min(backoff * 2, _MAX_ERROR_BACKOFF)
                    continue
            received = time.monotonic()
            if result.activation is not None:
                if self._is_stopping():
                    await self._hand_back_lease(result.activation, slot_id, "runner stopping")
                    return
                try:
                    pending = await self._run(slot_id, result.activation, received)
                except Exception as e:
                    # A bug (here or in a listener) must not end the slot, nor keep the lease.
                    self._guard(self.listener.on_error, "run", e)
                    await self._hand_back_lease(result.activation, slot_id, f"runner error: {e!r}")
            elif result.status == "paused":
                await self._pause(max(1.0, min(self.wait_seconds, 5.0)))
            elif result.reason is not None or result.retry_after_seconds is not None:
                # Degraded or draining: ask again when told, or at once after reporting healthy.
                self._guard(self.listener.on_refused, slot_id, result.reason or "unknown")
                wait = result.retry_after_seconds
                await self._pause(_REFUSED_WAIT if wait is None else wait, healthy)
            elif received - sent < _MIN_EMPTY_CLAIM:
                # Nothing, at once (no long poll, or a node that is shutting down): asking again
                # right away would spin.
                await self._pause(_MIN_EMPTY_CLAIM - (received - sent))
        if pending is not None and pending.activation is not None:
            await self._hand_back_lease(pending.activation, slot_id, "runner stopping")

    async def _claim(self, slot_id: str) -> ClaimResult:
        claim = asyncio.create_task(
            self.client.claim(
                slot_id,
                mode=self.mode,
                capabilities=self.capabilities,
                wait_seconds=self.wait_seconds,
                lease_seconds=self.lease_seconds,
            )
        )
        self._claims[slot_id] = claim
        try:
            return await claim
        finally:
            self._claims.pop(slot_id, None)

    async def _pause(self, seconds: float, wake: asyncio.Event | None = None) -> None:
        """Waits, ending early when the runner stops (or ``wake`` is set)."""
        assert self._stopping is not None
        if wake is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=seconds)
            return
        waits = [asyncio.ensure_future(self._stopping.wait()), asyncio.ensure_future(wake.wait())]
        try:
            await asyncio.wait(
                waits, timeout=max(0.0, seconds), return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for w in waits:
                w.cancel()

    def _lease_length(self, activation: Activation) -> float:
        length = activation.lease_seconds
        if length is None or length <= 0:
            length = float(self.lease_seconds or 300)
        return max(1.0, length)

    async def _run(
        self, slot_id: str, activation: Activation, received: float
    ) -> ClaimResult | None:
        """Runs one activation and reports it; the answer of the claim its report carried."""
        length = self._lease_length(activation)
        # The grant happened before the answer arrived: the local deadline keeps a small margin
        # so it never falls after the server's expiry.
        context = Context(slot_id, activation.lease_id, received + length - min(0.5, length / 20))
        context._owes = tuple(n.call for n in activation.notifications if n.call is not None) + (
            activation.owes
        )
        work = self._start_handler(activation, context)
        running = _Running(activation, slot_id, context, work)
        self._running[slot_id] = running
        self._guard(self.listener.on_claimed, activation)
        running.keeper = asyncio.create_task(self._keep(running, length))
        if self._follows(activation):
            running.follower = asyncio.create_task(self._follow_input(running))
        try:
            await asyncio.wait({work})
        finally:
            running.keeper.cancel()
            if running.follower is not None:
                running.follower.cancel()
            context._end_input()
            self._running.pop(slot_id, None)
        reason = context.reason
        sends = context._close_sends()
        if reason is None:
            outcome = self._outcome_of(work)
            # Sends ride on a completion only: a failed turn sends nothing.
            running.sends = sends if outcome.action == "complete" else []
            running.defer = context.deferred if outcome.action == "complete" else []
            # Steered input the handler never took goes back to the inbox for the next turn.
            running.input_seen = context.input_seen
            if self._is_stopping() or self._next_refused:
                report: asyncio.Task[Any] = asyncio.create_task(self._report(running, outcome))
            else:
                # The report carries the slot's next claim: a turn is one request (docs/api.md,
                # "Complete and claim again"). Stopping waits for it; a cancelled slot does not
                # cancel it.
                report = asyncio.create_task(self._report_and_claim(running, outcome))
            self._reports.add(report)
            report.add_done_callback(self._report_done)
            await asyncio.wait({report})
            if report.cancelled() or report.exception() is not None:
                return None
            result = report.result()
            return result if isinstance(result, ClaimResult) else None
        if reason is CancelReason.SHUTDOWN:
            await self._hand_back(running, "runner stopped before the activation finished")
        self._guard(self.listener.on_cancelled, activation, reason)
        return None

    def _start_handler(
        self, activation: Activation, context: Context
    ) -> asyncio.Future[HandlerResult]:
        if self._coroutine_handler:
            coroutine = self.handler(activation, context)
            assert inspect.isawaitable(coroutine)
            return asyncio.ensure_future(coroutine)
        # A plain function runs on a daemon thread of its own: a handler that ignores its
        # cancellation can then never keep the process from exiting.
        loop = asyncio.get_running_loop()
        future: asyncio.Future[HandlerResult] = loop.create_future()

        def settle(value: HandlerResult, error: BaseException | None) -> None:
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value)

        def body() -> None:
            value: HandlerResult = None
            error: BaseException | None = None
            try:
                result = self.handler(activation, context)
                if inspect.isawaitable(result):
                    raise TypeError("a plain-function handler returned an awaitable")
                value = result
            except BaseException as e:
                error = e
            with contextlib.suppress(RuntimeError):  # the loop is gone after a late return
                loop.call_soon_threadsafe(settle, value, error)

        threading.Thread(target=body, name=f"rota-handler-{context.runner_id}", daemon=True).start()
        return future

    @staticmethod
    def _outcome_of(work: asyncio.Future[HandlerResult]) -> Outcome:
        if work.cancelled():
            return Outcome.retry("handler was cancelled")
        error = work.exception()
        if error is not None:
            text = "".join(traceback.format_exception_only(type(error), error)).strip()
            return Outcome.retry(text[:2000])
        result = work.result()
        if result is None:
            return Outcome.complete()
        if isinstance(result, Outcome):
            return result
        return Outcome.retry(f"handler returned {type(result).__name__}, not an Outcome")

    def _cancel(self, running: _Running, reason: CancelReason) -> None:
        if running.context._cancel(reason) and self._coroutine_handler:
            running.work.cancel()

    # ---- new input during the turn ----

    def _follows(self, activation: Activation) -> bool:
        """Whether the turn long-polls its input: ``always``, or ``auto`` for an agent whose
        ``newInput`` is not ``queue`` (the assignment says). Otherwise steered notifications
        arrive with heartbeats, and an interrupt with the next heartbeat's 410."""
        if self.follow_input == "always":
            return True
        if self.follow_input == "never":
            return False
        policy = activation.agent.get("newInput")
        return policy is not None and policy != "queue"

    async def _follow_input(self, running: _Running) -> None:
        """Long-polls ``/input`` while the handler runs: steered notifications go to its context,
        an interrupt cancels it with :attr:`CancelReason.INTERRUPTED`."""
        context = running.context
        while not context.cancelled:
            try:
                answer = await self.client.await_input(
                    context.lease_id, running.slot_id, max(1, self.wait_seconds)
                )
            except LeaseLost as e:
                self._cancel(
                    running,
                    CancelReason.INTERRUPTED if e.interrupted else CancelReason.LEASE_LOST,
                )
                return
            except (LeaseNotHeld, NotFound):
                return
            except RotaError as e:
                self._guard(self.listener.on_error, "input", e)
                await asyncio.sleep(0.5)
                continue
            if answer.get("interrupted"):
                self._cancel(running, CancelReason.INTERRUPTED)
                return
            context._offer([Notification.from_json(n) for n in answer.get("notifications", [])])

    # ---- the lease ----

    async def _keep(self, running: _Running, length: float) -> None:
        """Heartbeats the lease and stops the handler when it is lost or runs out."""
        context = running.context
        interval = self.heartbeat_interval or length * self.heartbeat_fraction
        next_beat = time.monotonic() + interval
        while True:
            now = time.monotonic()
            if now >= context.deadline:
                self._cancel(running, CancelReason.LEASE_EXPIRED)
                return
            if now >= next_beat:
                sent = time.monotonic()
                try:
                    beat = await asyncio.wait_for(
                        self.client.heartbeat(context.lease_id, running.slot_id),
                        timeout=max(0.05, context.deadline - sent),
                    )
                    context._extend(sent + length)
                    next_beat = time.monotonic() + interval
                    self._guard(self.listener.on_heartbeat, running.activation)
                    steered = beat.get("notifications") if isinstance(beat, dict) else None
                    if steered:
                        context._offer([Notification.from_json(n) for n in steered])
                except LeaseLost as e:
                    self._cancel(
                        running,
                        CancelReason.INTERRUPTED if e.interrupted else CancelReason.LEASE_LOST,
                    )
                    return
                except (LeaseNotHeld, NotFound):
                    self._cancel(running, CancelReason.LEASE_LOST)
                    return
                except (RotaError, asyncio.TimeoutError) as e:
                    self._guard(self.listener.on_error, "heartbeat", e)
                    next_beat = time.monotonic() + min(interval, 1.0)
            await asyncio.sleep(max(0.0, min(next_beat, context.deadline) - time.monotonic()))

    def _report_done(self, report: asyncio.Task[None]) -> None:
        self._reports.discard(report)
        if not report.cancelled() and report.exception() is not None:
            self._guard(self.listener.on_error, "report", report.exception())

    async def _report_and_claim(self, running: _Running, outcome: Outcome) -> ClaimResult | None:
        """Reports with the slot's next claim. The claim does not wait (``waitSeconds`` 0, answered
        within the node's settle): when it finds nothing the slot long-polls as usual, so stopping
        never waits out a long poll behind a report. A report whose answer was lost goes again
        alone (a lease granted to a lost answer expires and counts as a retry)."""
        activation = running.activation
        try:
            result = await self.client.report_and_claim(
                activation.lease_id,
                running.slot_id,
                outcome,
                sends=running.sends,
                defer=running.defer,
                input_seen=running.input_seen,
                mode=self.mode,
                capabilities=self.capabilities,
                wait_seconds=0,
                lease_seconds=self.lease_seconds,
            )
        except (LeaseLost, LeaseNotHeld):
            self._guard(self.listener.on_cancelled, activation, CancelReason.LEASE_LOST)
            return None
        except InvalidRequest as e:
            if "unknown field 'next'" not in e.message:
                raise
            # A node from before "next": nothing was reported; report alone from now on.
            self._next_refused = True
            await self._report(running, outcome)
            return None
        except (ConnectionFailed, Unavailable) as e:
            sent = isinstance(e, ConnectionFailed) and e.request_sent
            await self._report(running, outcome, answer_lost=sent)
            return None
        self._guard(self.listener.on_reported, activation, outcome)
        return result

    async def _report(self, running: _Running, outcome: Outcome, answer_lost: bool = False) -> None:
        activation, context = running.activation, running.context
        while True:
            try:
                if outcome.action == "complete":
                    await self.client.complete(
                        activation.lease_id,
                        running.slot_id,
                        outcome.result,
                        sends=running.sends,
                        defer=running.defer,
                        input_seen=running.input_seen,
                    )
                else:
                    await self.client.fail(
                        activation.lease_id,
                        running.slot_id,
                        action=outcome.action,
                        error=outcome.error,
                        snooze_seconds=outcome.snooze_seconds,
                        input_seen=running.input_seen,
                    )
                self._guard(self.listener.on_reported, activation, outcome)
                return
            except (LeaseLost, LeaseNotHeld) as e:
                # After an answer was lost, 410 most likely means the first report went through.
                if not answer_lost:
                    why = (
                        CancelReason.INTERRUPTED
                        if isinstance(e, LeaseLost) and e.interrupted
                        else CancelReason.LEASE_LOST
                    )
                    self._guard(self.listener.on_cancelled, activation, why)
                return
            except (ConnectionFailed, Unavailable) as e:
                if isinstance(e, ConnectionFailed):
                    answer_lost |= e.request_sent
                if context.remaining() <= 0:
                    self._guard(self.listener.on_error, "report", e)
                    return
                await asyncio.sleep(min(e.retry_after or 0.5, max(0.05, context.remaining())))
            except RotaError as e:
                self._guard(self.listener.on_error, "report", e)
                return

    async def _hand_back(self, running: _Running, why: str) -> None:
        if running.handed_back:
            return
        running.handed_back = True
        await self._hand_back_lease(
            running.activation, running.slot_id, why, running.context.input_seen
        )

    async def _hand_back_lease(
        self, activation: Activation, slot_id: str, why: str, input_seen: list[str] | None = None
    ) -> None:
        """Snoozes the lease for 0 s (no attempt used), naming the steered notifications its
        handler took (none when no handler ran)."""
        try:
            await self.client.fail(
                activation.lease_id,
                slot_id,
                action="snooze",
                error=why,
                snooze_seconds=0,
                input_seen=input_seen or [],
            )
        except (LeaseLost, LeaseNotHeld, NotFound):
            pass  # nothing to hand back
        except RotaError as e:
            self._guard(self.listener.on_error, "hand back", e)

    @staticmethod
    def _guard(call: Callable[..., None], *args: Any) -> None:
        try:
            call(*args)
        except Exception:
            log.exception("rota runner listener failed")


class Runner:
    """The blocking runner: :class:`AsyncRunner`'s loop on an event loop of its own.

    :meth:`run` blocks the calling thread until the process gets SIGTERM or SIGINT (when called
    from the main thread) or :meth:`stop` is called; :meth:`start` runs it on a background thread
    instead. Plain-function handlers run on threads of their own, so they may block.

    >>> rota = Rota("http://localhost:8080")
    >>> Runner(rota, handle, runner_id="reviewers", capabilities=["code"]).run()
    """

    def __init__(
        self,
        client: Rota,
        handler: Handler,
        *,
        runner_id: str | None = None,
        mode: RunnerMode = "hybrid",
        capabilities: Iterable[str] = (),
        concurrency: int = 1,
        lease_seconds: int | None = None,
        wait_seconds: int = 20,
        heartbeat_fraction: float = 1 / 3,
        heartbeat_interval: float | None = None,
        shutdown_grace: float = 30.0,
        listener: RunnerListener | None = None,
        follow_input: str = "auto",
    ) -> None:
        self._client = client
        self._handler = handler
        self._options: dict[str, Any] = {
            "runner_id": runner_id or f"runner-{uuid.uuid4().hex[:8]}",
            "mode": mode,
            "capabilities": tuple(capabilities),
            "concurrency": concurrency,
            "lease_seconds": lease_seconds,
            "wait_seconds": wait_seconds,
            "heartbeat_fraction": heartbeat_fraction,
            "heartbeat_interval": heartbeat_interval,
            "shutdown_grace": shutdown_grace,
            "listener": listener,
            "follow_input": follow_input,
        }
        self._async: AsyncRunner | None = None
        self._ready = threading.Event()
        self._stop_requested = False
        self._stop_grace: float | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    @property
    def runner_id(self) -> str:
        return str(self._options["runner_id"])

    @property
    def busy(self) -> int:
        return self._async.busy if self._async else 0

    @property
    def slot_ids(self) -> list[str]:
        """The runner ids the slots claim as: ``runner_id``, or ``<runner_id>-i`` for several."""
        return _slot_ids(self.runner_id, int(self._options["concurrency"]))

    def report_health(
        self, degraded: bool, *, reason: str | None = None, seconds: float | None = None
    ) -> list[RunnerHealth]:
        """Reports every slot degraded for ``seconds`` (with a ``reason``) or healthy again,
        which also wakes the slots waiting out a refusal; see :meth:`AsyncRunner.report_health`.
        Blocking: call it from a plain-function handler, a health probe's thread, or before
        :meth:`start` (not from a coroutine handler: use ``await`` on the :class:`AsyncRunner`)."""
        states = [
            self._client.report_health(slot, degraded, reason=reason, seconds=seconds)
            for slot in self.slot_ids
        ]
        runner = self._async
        loop = runner._loop if runner is not None else None
        if not degraded and runner is not None and loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(runner._wake_refused)
        return states

    def run(self) -> None:
        """Runs until stopped (SIGTERM/SIGINT handled when on the main thread)."""
        on_main = threading.current_thread() is threading.main_thread()
        asyncio.run(self._main(handle_signals=on_main))

    def start(self) -> Runner:
        """Runs on a background thread; returns once the loop is up."""

        def target() -> None:
            try:
                asyncio.run(self._main(handle_signals=False))
            except BaseException as e:  # surfaced by stop()
                self._error = e
                self._ready.set()

        self._thread = threading.Thread(target=target, name="rota-runner", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise self._error
        return self

    def stop(self, grace: float | None = None, timeout: float | None = None) -> None:
        """Stops gracefully (see :class:`AsyncRunner`); waits for a :meth:`start`-ed runner."""
        self._stop_grace = grace
        self._stop_requested = True
        if self._async is not None:
            self._async.stop(grace)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        if self._error is not None:
            raise self._error

    def __enter__(self) -> Runner:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _main(self, *, handle_signals: bool) -> None:
        client = AsyncRota(
            self._client.base_url,
            token=self._client.token,
            timeout=self._client.timeout,
            retry=self._client.retry,
        )
        try:
            self._async = AsyncRunner(client, self._handler, **self._options)
            if self._stop_requested:
                self._async.stop(self._stop_grace)
            self._ready.set()
            await self._async.run(handle_signals=handle_signals)
        finally:
            await client.aclose()
