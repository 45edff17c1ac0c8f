"""The asyncio client, :class:`AsyncRota`: the calls of :class:`rota.Rota`, awaited."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any

import httpx

from . import _core as core
from ._calls import CallAnswer
from ._errors import ConnectionFailed, RotaError, Unavailable
from ._models import (
    ClaimResult,
    Event,
    FailAction,
    JsonObject,
    NotifyResult,
    Outcome,
    RunnerHealth,
    RunnerMode,
    RunnerView,
)
from ._sse import SseDecoder


class AsyncRota:
    """The asyncio client: the same calls as :class:`rota.Rota`, awaited. Share one per loop.

    >>> async with AsyncRota("http://localhost:8080") as rota:
    ...     await rota.register_agent("reviewer-1", capabilities=["code"])
    ...     await rota.notify("reviewer-1", "mention", {"postId": "p9"}, dedupe_key="p9")

    Errors are :class:`rota.RotaError` subclasses, one per API error code; see
    :class:`rota.RetryPolicy` for which calls are repeated and when.
    """

    def __init__(
        self,
        base_url: str = "http://localhost:8080",
        *,
        token: str | None = None,
        tenant: str | None = None,
        timeout: float = 30.0,
        retry: core.RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        # Every agent call (/v1/agents...) works in this tenant (?tenant=); None: the token's own,
        # or default.
        self.tenant = tenant
        self.timeout = timeout
        self.retry = retry or core.RetryPolicy()
        self._lease_binding: bool | None = None
        # A node from before the runner's cursor refused inputSeen: reports go without it.
        self._input_seen_refused = False
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers=core.headers(token),
            timeout=timeout,
            transport=transport,
            limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
        )

    @property
    def lease_binding(self) -> bool | None:
        """Whether the node takes the claiming ``runnerId`` on lease reports: None until a report
        with one was answered, False once a node refused the field (reports then go without)."""
        return self._lease_binding

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncRota:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # ---- agents (role producer) ----

    async def register_agent(
        self,
        agent_id: str,
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
        """Registers an agent or updates it (``PUT``); fields not given keep their values.

        ``schedules`` are the API's objects (``name``, ``cron``, ``timezone``, ``payload``); a
        list replaces them all, ``[]`` removes them. ``new_input`` says what a notification
        arriving during a turn does (``queue``, ``steer``, ``interrupt``, ``reject``);
        ``debounce_ms`` / ``debounce_max_ms`` make a burst of notifications one turn.
        """
        body = core.agent_spec(
            name=name,
            capabilities=capabilities,
            priority=priority,
            min_activation_interval_seconds=min_activation_interval_seconds,
            max_inbox_depth=max_inbox_depth,
            max_attempts=max_attempts,
            metadata=metadata,
            schedules=schedules,
            new_input=new_input,
            debounce_ms=debounce_ms,
            debounce_max_ms=debounce_max_ms,
        )
        return await self._json(core.with_body("PUT", core.agent_path(agent_id), body, safe=True))

    update_agent = register_agent

    async def get_agent(self, agent_id: str) -> JsonObject:
        return await self._json(core.Call("GET", core.agent_path(agent_id), safe=True))

    async def list_agents(
        self, *, order: str | None = None, limit: int | None = None, after: str | None = None
    ) -> JsonObject:
        """One page: ``{"agents": [...], "next": cursor-or-None}``."""
        params = core.list_agents_params(order, limit, after)
        return await self._json(core.Call("GET", "/v1/agents", safe=True, params=params))

    async def iter_agents(
        self, *, order: str | None = None, page_size: int = 100
    ) -> AsyncIterator[JsonObject]:
        """Every agent, page after page."""
        after: str | None = None
        while True:
            page = await self.list_agents(order=order, limit=page_size, after=after)
            for agent in page.get("agents", []):
                yield agent
            after = page.get("next")
            if not after:
                return

    async def explain(self, agent_id: str) -> JsonObject:
        """Why the agent is or is not being picked."""
        return await self._json(core.Call("GET", core.agent_path(agent_id) + "/explain", safe=True))

    async def history(self, agent_id: str, *, limit: int = 100) -> list[JsonObject]:
        """The agent's recent events, newest first."""
        path = core.agent_path(agent_id) + "/history"
        page = await self._json(core.Call("GET", path, safe=True, params={"limit": str(limit)}))
        events: list[JsonObject] = page.get("events", [])
        return events

    async def pause_agent(self, agent_id: str) -> JsonObject:
        return await self._json(core.Call("POST", core.agent_path(agent_id) + "/pause", safe=True))

    async def resume_agent(self, agent_id: str) -> JsonObject:
        return await self._json(core.Call("POST", core.agent_path(agent_id) + "/resume", safe=True))

    async def deregister_agent(self, agent_id: str) -> None:
        """Deletes the agent and its inbox; :class:`rota.Conflict` while it holds a lease."""
        await self._send(core.Call("DELETE", core.agent_path(agent_id), safe=True))

    # ---- notifications (role producer) ----

    async def notify(
        self,
        agent_id: str,
        type: str,
        payload: Any = None,
        *,
        dedupe_key: str | None = None,
        new_input: str | None = None,
    ) -> NotifyResult:
        """Puts a notification in the agent's inbox. It is retried on 503/429 and
        connection failures under the same ``dedupe_key`` (a repeat is answered as a duplicate);
        without one of the caller's, a generated ``sdk-<uuid>`` key is sent, since a 503 may come
        after the node accepted it. ``new_input``
        overrides the agent's policy for a turn running now; :class:`rota.TurnInProgress` when
        it (or the agent) says ``reject``."""
        body = core.notification_body(
            type, payload, core.dedupe_key_or_generated(dedupe_key), new_input
        )
        path = core.agent_path(agent_id) + "/notifications"
        raw = await self._json(core.with_body("POST", path, body, safe=True))
        return NotifyResult.from_json(raw)

    # ---- calls (role producer) ----

    async def start_call(
        self,
        agent_id: str,
        type: str,
        payload: Any = None,
        *,
        timeout_seconds: int | None = None,
        dedupe_key: str | None = None,
    ) -> NotifyResult:
        """Sends a notification as a call without waiting: the answer's ``call_id`` is what
        :meth:`get_call` takes. Retried like :meth:`notify`, under one dedupe key, so a retry
        after a lost answer gets the first call's id rather than calling twice."""
        body = core.call_notification_body(type, payload, dedupe_key, timeout_seconds)
        path = core.agent_path(agent_id) + "/notifications"
        result = NotifyResult.from_json(
            await self._json(core.with_body("POST", path, body, safe=True))
        )
        if result.call_id is None:
            raise RotaError(202, "bad_answer", "the node answered a call without a callId")
        return result

    async def get_call(self, call_id: str, *, wait_seconds: int = 0) -> CallAnswer:
        """Where a call stands, waiting up to ``wait_seconds`` (0 to 60) at the node for its
        answer; :class:`rota.NotFound` for an unknown call or one of another tenant."""
        return CallAnswer.from_json(
            await self._json(core.get_call(call_id, wait_seconds, self.timeout))
        )

    async def call(
        self,
        agent_id: str,
        type: str,
        payload: Any = None,
        *,
        timeout_seconds: int | None = None,
        wait: float = 60.0,
        dedupe_key: str | None = None,
    ) -> CallAnswer:
        """Calls an agent and waits for its answer: sends the notification as a call
        (``timeout_seconds`` at the node, 1 to 86,400, its default an hour), then long-polls
        ``GET /v1/calls/{callId}`` until the call is answered, failed or timed out, or until
        ``wait`` seconds have passed; then the answer is ``pending`` (ask again with
        :meth:`get_call`). An answered call's ``result`` is the agent's turn's completion result."""
        deadline = time.monotonic() + max(0.0, wait)
        started = await self.start_call(
            agent_id, type, payload, timeout_seconds=timeout_seconds, dedupe_key=dedupe_key
        )
        call_id = str(started.call_id)
        while True:
            left = deadline - time.monotonic()
            answer = await self.get_call(
                call_id, wait_seconds=core.next_call_wait(deadline, time.monotonic())
            )
            if not answer.pending or time.monotonic() >= deadline:
                return answer
            if left < 1:
                # Under a second left: the node answers at once, so wait here rather than spin.
                await asyncio.sleep(min(0.2, max(0.0, left)))

    # ---- admin ----

    async def stats(self) -> JsonObject:
        return await self._json(core.Call("GET", "/admin/stats", safe=True))

    async def pools(self) -> list[JsonObject]:
        page = await self._json(core.Call("GET", "/admin/pools", safe=True))
        pools: list[JsonObject] = page.get("pools", [])
        return pools

    async def runners(self) -> list[RunnerView]:
        """Every runner seen lately, with its ``status``, ``stats`` and (while degraded) why."""
        page = await self._json(core.Call("GET", "/admin/runners", safe=True))
        return [RunnerView.from_json(r) for r in page.get("runners", []) if isinstance(r, dict)]

    async def drain_runner(self, runner_id: str) -> RunnerHealth:
        """Gives the runner no new work until :meth:`restore_runner`; its current lease runs on.
        Its claims are answered ``none`` with reason ``draining``."""
        path = core.admin_runner_path(runner_id) + "/drain"
        return RunnerHealth.from_json(await self._json(core.Call("POST", path, safe=True)))

    async def restore_runner(self, runner_id: str) -> RunnerHealth:
        """Clears the runner's degradation or drain: it gets work again."""
        path = core.admin_runner_path(runner_id) + "/restore"
        return RunnerHealth.from_json(await self._json(core.Call("POST", path, safe=True)))

    # ---- tenants (role admin) ----

    async def tenants(self) -> list[JsonObject]:
        """Every tenant with its weight, caps, agents and last minute (activations, ``share``)."""
        page = await self._json(core.Call("GET", "/admin/tenants", safe=True))
        tenants: list[JsonObject] = page.get("tenants", [])
        return tenants

    async def tenant_view(self, name: str) -> JsonObject:
        """One tenant as in :meth:`tenants`; :class:`rota.NotFound` for an unknown one."""
        return await self._json(core.Call("GET", core.tenant_path(name), safe=True))

    async def set_tenant(
        self,
        name: str,
        *,
        weight: int = 1,
        max_concurrent: int | None = None,
        max_activations_per_minute: int | None = None,
    ) -> JsonObject:
        """Creates a tenant or changes it (a cap not given is removed); returns its view."""
        body = core.tenant_body(weight, max_concurrent, max_activations_per_minute)
        return await self._json(core.with_body("PUT", core.tenant_path(name), body, safe=True))

    async def delete_tenant(self, name: str) -> None:
        """Deletes a tenant without agents; :class:`rota.Conflict` while it has agents, for
        ``default`` and for a tenant declared in the node's configuration."""
        await self._send(core.Call("DELETE", core.tenant_path(name), safe=True))

    async def pause(self) -> bool:
        """Pauses the whole system: claims answer ``paused``; running activations finish."""
        answer = await self._json(core.Call("POST", "/admin/pause", safe=True))
        return bool(answer.get("paused"))

    async def resume(self) -> bool:
        answer = await self._json(core.Call("POST", "/admin/resume", safe=True))
        return bool(answer.get("paused"))

    async def dead_letters(
        self, *, agent_id: str | None = None, limit: int | None = None
    ) -> list[JsonObject]:
        params = core.dead_letter_params(agent_id, limit)
        page = await self._json(core.Call("GET", "/admin/dead-letters", safe=True, params=params))
        letters: list[JsonObject] = page.get("deadLetters", [])
        return letters

    async def redrive(self, dead_letter_id: str) -> JsonObject:
        """Puts a dead letter back into its agent's inbox with fresh attempts."""
        path = f"/admin/dead-letters/{core.segment(dead_letter_id)}/redrive"
        return await self._json(core.Call("POST", path, safe=False))

    async def discard_dead_letter(self, dead_letter_id: str) -> None:
        """Removes a dead letter for good: its notification is never delivered.
        :class:`rota.NotFound` when there is no such dead letter, as after an earlier discard."""
        path = f"/admin/dead-letters/{core.segment(dead_letter_id)}"
        await self._send(core.Call("DELETE", path, safe=True))

    def events(
        self,
        *,
        agent_id: str | None = None,
        types: Iterable[str] | None = None,
        since: str | None = None,
        read_timeout: float = 60.0,
    ) -> AsyncEventStream:
        """The event stream (role admin) from now, or after the event ``since``. It reconnects by
        itself after a dropped connection, resuming after the last event it returned."""
        return AsyncEventStream(self, core.event_params(agent_id, types, None), since, read_timeout)

    # ---- runners (role runner); Runner uses these ----

    async def claim(
        self,
        runner_id: str,
        *,
        mode: RunnerMode = "hybrid",
        capabilities: Iterable[str] = (),
        wait_seconds: int = 20,
        lease_seconds: int | None = None,
    ) -> ClaimResult:
        call = core.claim_call(
            runner_id, mode, capabilities, wait_seconds, lease_seconds, self.timeout
        )
        return ClaimResult.from_json(await self._json(call))

    async def report_health(
        self,
        runner_id: str,
        degraded: bool,
        *,
        reason: str | None = None,
        seconds: float | None = None,
    ) -> RunnerHealth:
        """Reports the runner degraded for ``seconds`` (required then; 1 s to the node's
        ``rota.runner-health.max-report-seconds``), with a ``reason`` (at most 500 characters),
        or healthy again (``degraded=False``; ends a degradation, not a drain). While degraded
        its claims are answered ``none`` with reason ``degraded``. Role runner."""
        body = core.health_body(degraded, reason, seconds)
        call = core.with_body("POST", core.runner_path(runner_id) + "/health", body, safe=True)
        return RunnerHealth.from_json(await self._json(call))

    async def heartbeat(self, lease_id: str, runner_id: str | None = None) -> JsonObject:
        """Extends the lease by its own length from now; :class:`rota.LeaseLost` if lost."""
        return await self._lease_report(lease_id, "heartbeat", runner_id, core.heartbeat_body)

    async def await_input(
        self, lease_id: str, runner_id: str, wait_seconds: int = 20
    ) -> JsonObject:
        """Waits up to ``wait_seconds`` (0-60) for new input during the turn: ``notifications``
        steered into the lease that this runner was not given yet, or ``interrupted``. Does not
        extend the lease; :class:`rota.LeaseLost` when the lease ended otherwise."""
        body = {"runnerId": runner_id, "waitSeconds": wait_seconds}
        call = core.with_body(
            "POST",
            f"{core.lease_path(lease_id)}/input",
            body,
            safe=True,
            timeout=wait_seconds + self.timeout,
        )
        return await self._json(call)

    async def complete(
        self,
        lease_id: str,
        runner_id: str | None = None,
        result: Any = None,
        *,
        sends: list[JsonObject] | None = None,
        defer: list[str] | None = None,
        input_seen: Sequence[str] | None = None,
    ) -> JsonObject:
        """Completes the turn; ``sends`` (items of :attr:`Context.sends`) go out with it, in one
        durable write: if and only if the completion is accepted. The calls named in ``defer``
        (carried by the turn, or owed from an earlier one) stay owed: a later completion answers
        them (docs/api.md, "Deferred answers"). ``input_seen`` (:attr:`Context.input_seen`), when
        given, names the steered notifications the turn took: it completes those, and any other
        steered into the lease returns to the inbox for the next turn; without it, all are the
        turn's."""
        return await self._lease_report(
            lease_id,
            "complete",
            runner_id,
            lambda rid: core.complete_body(rid, result, sends, defer, input_seen),
        )

    async def fail(
        self,
        lease_id: str,
        runner_id: str | None = None,
        *,
        action: FailAction = "retry",
        error: str | None = None,
        snooze_seconds: int | None = None,
        input_seen: Sequence[str] | None = None,
    ) -> JsonObject:
        """Ends the turn as failed (``retry``, ``cancel``, ``discard`` or ``snooze``). With
        ``input_seen`` the steered notifications it names fail with the turn, and any other
        steered into the lease returns to the inbox unread, no attempt counted."""
        return await self._lease_report(
            lease_id,
            "fail",
            runner_id,
            lambda rid: core.fail_body(rid, action, error, snooze_seconds, input_seen),
        )

    async def report_and_claim(
        self,
        lease_id: str,
        runner_id: str,
        outcome: Outcome,
        *,
        sends: list[JsonObject] | None = None,
        defer: list[str] | None = None,
        input_seen: Sequence[str] | None = None,
        mode: RunnerMode = "hybrid",
        capabilities: Iterable[str] = (),
        wait_seconds: int = 0,
        lease_seconds: int | None = None,
    ) -> ClaimResult:
        """Reports ``outcome`` (a completion or a failure) and claims again in the same request:
        once the report is durable the node makes the claim as ``runner_id`` and answers it too
        (docs/api.md, "Complete and claim again"), so a turn costs one request. The report stands
        whatever the claim answers; :class:`rota.LeaseLost` means no report and no claim. A node
        that answers no ``next`` is read as a claim that found nothing. ``sends`` go out with a
        completion only; ``input_seen`` goes with either (see :meth:`complete`)."""
        claim = core.next_body(mode, capabilities, wait_seconds, lease_seconds)
        if outcome.action == "complete":
            what = "complete"

            def body(rid: str | None) -> JsonObject:
                report = core.complete_body(rid, outcome.result, sends, defer, input_seen)
                return {**report, "next": claim}

        else:
            what = "fail"
            action, error, snooze_seconds = core.outcome_fail_args(outcome)

            def body(rid: str | None) -> JsonObject:
                report = core.fail_body(rid, action, error, snooze_seconds, input_seen)
                return {**report, "next": claim}

        answer = await self._lease_report(
            lease_id, what, runner_id, body, timeout=wait_seconds + 2 * self.timeout
        )
        nxt = answer.get("next")
        return ClaimResult.from_json(nxt if isinstance(nxt, dict) else {"status": "none"})

    # ---- plumbing ----

    async def _lease_report(
        self,
        lease_id: str,
        what: str,
        runner_id: str | None,
        body: Callable[[str | None], JsonObject],
        timeout: float | None = None,
    ) -> JsonObject:
        path = f"{core.lease_path(lease_id)}/{what}"
        while True:
            bound = runner_id if self._lease_binding is not False else None
            sent = body(bound)
            if self._input_seen_refused:
                sent.pop(core.INPUT_SEEN, None)
            try:
                answer = await self._json(
                    core.with_body("POST", path, sent, safe=False, timeout=timeout)
                )
            except RotaError as e:
                # A node from before a field refuses it and does nothing: again without it.
                if bound is not None and core.is_binding_refused(e):
                    self._lease_binding = False
                elif core.INPUT_SEEN in sent and core.is_field_unknown(e, core.INPUT_SEEN):
                    self._input_seen_refused = True
                else:
                    raise
                continue
            if bound is not None:
                self._lease_binding = True
            return answer

    async def _json(self, call: core.Call) -> JsonObject:
        result = await self._send(call)
        return result if isinstance(result, dict) else {}

    async def _send(self, call: core.Call) -> Any:
        call = core.in_tenant(call, self.tenant)
        tries = 0
        while True:
            tries += 1
            try:
                response = await self._http.send(core.build_request(self._http, call, self.timeout))
                return core.answer(response)
            except httpx.TransportError as e:
                failure: RotaError = core.transport_error(call, e)
            except RotaError as e:
                failure = e
            wait = self.retry.wait_before_retry(call, failure, tries)
            if wait is None:
                raise failure
            await asyncio.sleep(wait)


class AsyncEventStream(AsyncIterator[Event]):
    """An async iterator over ``/v1/events`` that reconnects by itself (``Last-Event-ID``).

    Use it as an async context manager, or call :meth:`aclose`; ``last_event_id`` is the cursor to
    resume from in a later process.
    """

    def __init__(
        self, rota: AsyncRota, params: Mapping[str, str], since: str | None, read_timeout: float
    ) -> None:
        self._rota = rota
        self._params = dict(params)
        self.last_event_id = since
        self._read_timeout = read_timeout
        self._response: httpx.Response | None = None
        self._closed = False
        self._events = self._follow()

    def __aiter__(self) -> AsyncEventStream:
        return self

    async def __anext__(self) -> Event:
        return await self._events.__anext__()

    async def __aenter__(self) -> AsyncEventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True
        response, self._response = self._response, None
        if response is not None:
            await response.aclose()

    async def _follow(self) -> AsyncIterator[Event]:
        backoff = self._rota.retry.initial_backoff
        while not self._closed:
            try:
                response = await self._open()
            except (Unavailable, ConnectionFailed) as e:
                await asyncio.sleep(min(e.retry_after or backoff, self._rota.retry.max_retry_after))
                backoff = min(backoff * 2, self._rota.retry.max_backoff)
                continue
            self._response = response
            decoder = SseDecoder()
            try:
                async for line in response.aiter_lines():
                    event = decoder.feed(line)
                    if event is not None:
                        backoff = self._rota.retry.initial_backoff
                        if event.id is not None:
                            self.last_event_id = event.id
                        yield event
            except (httpx.TransportError, httpx.StreamError):
                pass  # dropped: reconnect after the last event returned
            finally:
                await response.aclose()
            if not self._closed:
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self._rota.retry.max_backoff)

    async def _open(self) -> httpx.Response:
        http = self._rota._http
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        timeout = httpx.Timeout(self._read_timeout, connect=min(10.0, self._rota.timeout))
        request = http.build_request(
            "GET", "/v1/events", params=self._params, headers=headers, timeout=timeout
        )
        try:
            response = await http.send(request, stream=True)
        except httpx.TransportError as e:
            raise core.transport_error(core.Call("GET", "/v1/events", safe=True), e) from e
        if response.status_code >= 300:
            await response.aread()
            await response.aclose()
            core.answer(response)
        return response
