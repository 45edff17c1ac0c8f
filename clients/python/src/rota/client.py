"""The blocking client, :class:`Rota`, for producers, admins and runners."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
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
    RunnerHealth,
    RunnerMode,
    RunnerView,
)
from ._sse import SseDecoder


class Rota:
    """A client of one node (or a load balancer in front of several). Thread-safe; share one.

    >>> with Rota("http://localhost:8080") as rota:
    ...     rota.register_agent("reviewer-1", capabilities=["code"])
    ...     rota.notify("reviewer-1", "mention", {"postId": "p9"}, dedupe_key="p9-mention")

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
        transport: httpx.BaseTransport | None = None,
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
        self._http = httpx.Client(
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

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Rota:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ---- agents (role producer) ----

    def register_agent(
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
        return self._json(core.with_body("PUT", core.agent_path(agent_id), body, safe=True))

    update_agent = register_agent

    def get_agent(self, agent_id: str) -> JsonObject:
        return self._json(core.Call("GET", core.agent_path(agent_id), safe=True))

    def list_agents(
        self, *, order: str | None = None, limit: int | None = None, after: str | None = None
    ) -> JsonObject:
        """One page: ``{"agents": [...], "next": cursor-or-None}``."""
        params = core.list_agents_params(order, limit, after)
        return self._json(core.Call("GET", "/v1/agents", safe=True, params=params))

    def iter_agents(
        self, *, order: str | None = None, page_size: int = 100
    ) -> Iterator[JsonObject]:
        """Every agent, page after page."""
        after: str | None = None
        while True:
            page = self.list_agents(order=order, limit=page_size, after=after)
            yield from page.get("agents", [])
            after = page.get("next")
            if not after:
                return

    def explain(self, agent_id: str) -> JsonObject:
        """Why the agent is or is not being picked."""
        return self._json(core.Call("GET", core.agent_path(agent_id) + "/explain", safe=True))

    def history(self, agent_id: str, *, limit: int = 100) -> list[JsonObject]:
        """The agent's recent events, newest first."""
        path = core.agent_path(agent_id) + "/history"
        page = self._json(core.Call("GET", path, safe=True, params={"limit": str(limit)}))
        events: list[JsonObject] = page.get("events", [])
        return events

    def pause_agent(self, agent_id: str) -> JsonObject:
        return self._json(core.Call("POST", core.agent_path(agent_id) + "/pause", safe=True))

    def resume_agent(self, agent_id: str) -> JsonObject:
        return self._json(core.Call("POST", core.agent_path(agent_id) + "/resume", safe=True))

    def deregister_agent(self, agent_id: str) -> None:
        """Deletes the agent and its inbox; :class:`rota.Conflict` while it holds a lease."""
        self._send(core.Call("DELETE", core.agent_path(agent_id), safe=True))

    # ---- notifications (role producer) ----

    def notify(
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
        raw = self._json(core.with_body("POST", path, body, safe=True))
        return NotifyResult.from_json(raw)

    # ---- calls (role producer) ----

    def start_call(
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
        result = NotifyResult.from_json(self._json(core.with_body("POST", path, body, safe=True)))
        if result.call_id is None:
            raise RotaError(202, "bad_answer", "the node answered a call without a callId")
        return result

    def get_call(self, call_id: str, *, wait_seconds: int = 0) -> CallAnswer:
        """Where a call stands, waiting up to ``wait_seconds`` (0 to 60) at the node for its
        answer; :class:`rota.NotFound` for an unknown call or one of another tenant."""
        return CallAnswer.from_json(self._json(core.get_call(call_id, wait_seconds, self.timeout)))

    def call(
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
        started = self.start_call(
            agent_id, type, payload, timeout_seconds=timeout_seconds, dedupe_key=dedupe_key
        )
        call_id = str(started.call_id)
        while True:
            left = deadline - time.monotonic()
            answer = self.get_call(
                call_id, wait_seconds=core.next_call_wait(deadline, time.monotonic())
            )
            if not answer.pending or time.monotonic() >= deadline:
                return answer
            if left < 1:
                # Under a second left: the node answers at once, so wait here rather than spin.
                time.sleep(min(0.2, max(0.0, left)))

    # ---- admin ----

    def stats(self) -> JsonObject:
        return self._json(core.Call("GET", "/admin/stats", safe=True))

    def pools(self) -> list[JsonObject]:
        page = self._json(core.Call("GET", "/admin/pools", safe=True))
        pools: list[JsonObject] = page.get("pools", [])
        return pools

    def runners(self) -> list[RunnerView]:
        """Every runner seen lately, with its ``status``, ``stats`` and (while degraded) why."""
        page = self._json(core.Call("GET", "/admin/runners", safe=True))
        return [RunnerView.from_json(r) for r in page.get("runners", []) if isinstance(r, dict)]

    def drain_runner(self, runner_id: str) -> RunnerHealth:
        """Gives the runner no new work until :meth:`restore_runner`; its current lease runs on.
        Its claims are answered ``none`` with reason ``draining``."""
        path = core.admin_runner_path(runner_id) + "/drain"
        return RunnerHealth.from_json(self._json(core.Call("POST", path, safe=True)))

    def restore_runner(self, runner_id: str) -> RunnerHealth:
        """Clears the runner's degradation or drain: it gets work again."""
        path = core.admin_runner_path(runner_id) + "/restore"
        return RunnerHealth.from_json(self._json(core.Call("POST", path, safe=True)))

    # ---- tenants (role admin) ----

    def tenants(self) -> list[JsonObject]:
        """Every tenant with its weight, caps, agents and last minute (activations, ``share``)."""
        page = self._json(core.Call("GET", "/admin/tenants", safe=True))
        tenants: list[JsonObject] = page.get("tenants", [])
        return tenants

    def tenant_view(self, name: str) -> JsonObject:
        """One tenant as in :meth:`tenants`; :class:`rota.NotFound` for an unknown one."""
        return self._json(core.Call("GET", core.tenant_path(name), safe=True))

    def set_tenant(
        self,
        name: str,
        *,
        weight: int = 1,
        max_concurrent: int | None = None,
        max_activations_per_minute: int | None = None,
    ) -> JsonObject:
        """Creates a tenant or changes it (a cap not given is removed); returns its view."""
        body = core.tenant_body(weight, max_concurrent, max_activations_per_minute)
        return self._json(core.with_body("PUT", core.tenant_path(name), body, safe=True))

    def delete_tenant(self, name: str) -> None:
        """Deletes a tenant without agents; :class:`rota.Conflict` while it has agents, for
        ``default`` and for a tenant declared in the node's configuration."""
        self._send(core.Call("DELETE", core.tenant_path(name), safe=True))

    def pause(self) -> bool:
        """Pauses the whole system: claims answer ``paused``; running activations finish."""
        answer = self._json(core.Call("POST", "/admin/pause", safe=True))
        return bool(answer.get("paused"))

    def resume(self) -> bool:
        answer = self._json(core.Call("POST", "/admin/resume", safe=True))
        return bool(answer.get("paused"))

    def dead_letters(
        self, *, agent_id: str | None = None, limit: int | None = None
    ) -> list[JsonObject]:
        params = core.dead_letter_params(agent_id, limit)
        page = self._json(core.Call("GET", "/admin/dead-letters", safe=True, params=params))
        letters: list[JsonObject] = page.get("deadLetters", [])
        return letters

    def redrive(self, dead_letter_id: str) -> JsonObject:
        """Puts a dead letter back into its agent's inbox with fresh attempts."""
        path = f"/admin/dead-letters/{core.segment(dead_letter_id)}/redrive"
        return self._json(core.Call("POST", path, safe=False))

    def discard_dead_letter(self, dead_letter_id: str) -> None:
        """Removes a dead letter for good: its notification is never delivered.
        :class:`rota.NotFound` when there is no such dead letter, as after an earlier discard."""
        path = f"/admin/dead-letters/{core.segment(dead_letter_id)}"
        self._send(core.Call("DELETE", path, safe=True))

    def events(
        self,
        *,
        agent_id: str | None = None,
        types: Iterable[str] | None = None,
        since: str | None = None,
        read_timeout: float = 60.0,
    ) -> EventStream:
        """The event stream (role admin) from now, or after the event ``since``. It reconnects by
        itself after a dropped connection, resuming after the last event it returned."""
        return EventStream(self, core.event_params(agent_id, types, None), since, read_timeout)

    # ---- runners (role runner); Runner uses these ----

    def claim(
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
        return ClaimResult.from_json(self._json(call))

    def report_health(
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
        return RunnerHealth.from_json(self._json(call))

    def heartbeat(self, lease_id: str, runner_id: str | None = None) -> JsonObject:
        """Extends the lease by its own length from now; :class:`rota.LeaseLost` if lost."""
        return self._lease_report(lease_id, "heartbeat", runner_id, core.heartbeat_body)

    def complete(
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
        return self._lease_report(
            lease_id,
            "complete",
            runner_id,
            lambda rid: core.complete_body(rid, result, sends, defer, input_seen),
        )

    def fail(
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
        return self._lease_report(
            lease_id,
            "fail",
            runner_id,
            lambda rid: core.fail_body(rid, action, error, snooze_seconds, input_seen),
        )

    # ---- plumbing ----

    def _lease_report(
        self,
        lease_id: str,
        what: str,
        runner_id: str | None,
        body: Callable[[str | None], JsonObject],
    ) -> JsonObject:
        path = f"{core.lease_path(lease_id)}/{what}"
        while True:
            bound = runner_id if self._lease_binding is not False else None
            sent = body(bound)
            if self._input_seen_refused:
                sent.pop(core.INPUT_SEEN, None)
            try:
                answer = self._json(core.with_body("POST", path, sent, safe=False))
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

    def _json(self, call: core.Call) -> JsonObject:
        result = self._send(call)
        return result if isinstance(result, dict) else {}

    def _send(self, call: core.Call) -> Any:
        call = core.in_tenant(call, self.tenant)
        tries = 0
        while True:
            tries += 1
            try:
                response = self._http.send(core.build_request(self._http, call, self.timeout))
                return core.answer(response)
            except httpx.TransportError as e:
                failure: RotaError = core.transport_error(call, e)
            except RotaError as e:
                failure = e
            wait = self.retry.wait_before_retry(call, failure, tries)
            if wait is None:
                raise failure
            time.sleep(wait)


class EventStream(Iterator[Event]):
    """A blocking iterator over ``/v1/events`` that reconnects by itself (``Last-Event-ID``).

    Use it as a context manager, or call :meth:`close`; ``last_event_id`` is the cursor to
    resume from in a later process.
    """

    def __init__(
        self, rota: Rota, params: Mapping[str, str], since: str | None, read_timeout: float
    ) -> None:
        self._rota = rota
        self._params = dict(params)
        self.last_event_id = since
        self._read_timeout = read_timeout
        self._response: httpx.Response | None = None
        self._closed = False
        self._events = self._follow()

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> Event:
        return next(self._events)

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._closed = True
        response, self._response = self._response, None
        if response is not None:
            response.close()

    def _follow(self) -> Iterator[Event]:
        backoff = self._rota.retry.initial_backoff
        while not self._closed:
            try:
                response = self._open()
            except (Unavailable, ConnectionFailed) as e:
                time.sleep(min(e.retry_after or backoff, self._rota.retry.max_retry_after))
                backoff = min(backoff * 2, self._rota.retry.max_backoff)
                continue
            self._response = response
            decoder = SseDecoder()
            try:
                for line in response.iter_lines():
                    event = decoder.feed(line)
                    if event is not None:
                        backoff = self._rota.retry.initial_backoff
                        if event.id is not None:
                            self.last_event_id = event.id
                        yield event
            except (httpx.TransportError, httpx.StreamError):
                pass  # dropped: reconnect after the last event returned
            finally:
                response.close()
            if not self._closed:
                time.sleep(backoff)
                backoff = min(backoff * 2, self._rota.retry.max_backoff)

    def _open(self) -> httpx.Response:
        http = self._rota._http
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        timeout = httpx.Timeout(self._read_timeout, connect=min(10.0, self._rota.timeout))
        request = http.build_request(
            "GET", "/v1/events", params=self._params, headers=headers, timeout=timeout
        )
        try:
            response = http.send(request, stream=True)
        except httpx.TransportError as e:
            raise core.transport_error(core.Call("GET", "/v1/events", safe=True), e) from e
        if response.status_code >= 300:
            response.read()
            response.close()
            core.answer(response)
        return response
