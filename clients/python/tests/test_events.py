"""The event stream: filters, and resuming after a dropped connection without losing events."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from urllib.parse import urlparse

from rota import AsyncRota, Event, Rota

from .node import Node
from .proxy import Proxy
from .support import register, wait_until


def test_resumes_after_a_dropped_connection_without_losing_an_event(
    node: Node, rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    proxy = Proxy(urlparse(node.url).port or 80)
    received: queue.Queue[Event] = queue.Queue()
    with Rota(f"http://127.0.0.1:{proxy.port}") as through_proxy:
        stream = through_proxy.events(agent_id=agent_id, types=["notification.accepted"])

        def follow() -> None:
            for event in stream:
                received.put(event)

        threading.Thread(target=follow, daemon=True).start()
        try:
            wait_until("the stream is connected", lambda: proxy.accepted == 1)
            time.sleep(0.5)
            sent = [rota.notify(agent_id, "mention", {"n": i}).notification_id for i in range(3)]
            before = [received.get(timeout=20) for _ in range(3)]

            proxy.cut()
            # Accepted while no stream is connected: only a resume can deliver these.
            sent += [rota.notify(agent_id, "mention", {"n": i}).notification_id for i in (3, 4, 5)]
            after = [received.get(timeout=30) for _ in range(3)]
            time.sleep(1.0)
            assert received.empty(), "no event is delivered twice"
        finally:
            stream.close()
            proxy.close()

    assert proxy.accepted >= 2, "the stream reconnected"
    got = [e.data["notificationId"] for e in before + after]
    assert got == sent
    assert all(e.type == "notification.accepted" and e.agent_id == agent_id for e in before + after)
    ids = [int(str(e.id).split(".")[0]) for e in before + after]
    assert ids == sorted(ids)


def test_resumes_after_a_given_event_id(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    received: queue.Queue[Event] = queue.Queue()
    stream = rota.events(agent_id=agent_id)

    def follow() -> None:
        for event in stream:
            received.put(event)

    threading.Thread(target=follow, daemon=True).start()
    time.sleep(1.0)
    first = rota.notify(agent_id, "mention", {"n": 1})
    second = rota.notify(agent_id, "mention", {"n": 2})
    try:
        events = [received.get(timeout=20) for _ in range(2)]
    finally:
        stream.close()
    assert [e.data["notificationId"] for e in events] == [
        first.notification_id,
        second.notification_id,
    ]

    with rota.events(agent_id=agent_id, since=events[0].id) as resumed:
        assert next(resumed).data["notificationId"] == second.notification_id
        assert resumed.last_event_id == events[1].id


async def test_the_async_stream_filters_by_type(node: Node, rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention", {"n": 0})
    async with AsyncRota(node.url) as client:
        history = rota.history(agent_id)
        assert history
        # Replays from the start of the journal are bounded by the filter to this agent.
        stream = client.events(agent_id=agent_id, types=["notification.accepted"], since="0")
        async with stream:
            event = await stream.__anext__()
    assert event.type == "notification.accepted"
    assert event.agent_id == agent_id
    assert event.data["notificationId"]


async def test_the_async_stream_resumes_after_a_dropped_connection(
    node: Node, rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    proxy = Proxy(urlparse(node.url).port or 80)
    received: asyncio.Queue[Event] = asyncio.Queue()
    try:
        async with AsyncRota(f"http://127.0.0.1:{proxy.port}") as client:
            stream = client.events(agent_id=agent_id, types=["notification.accepted"])

            async def follow() -> None:
                async for event in stream:
                    await received.put(event)

            following = asyncio.create_task(follow())
            await asyncio.to_thread(
                wait_until, "the stream is connected", lambda: proxy.accepted == 1
            )
            await asyncio.sleep(0.5)
            sent = [rota.notify(agent_id, "mention", {"n": 1}).notification_id]
            first = await asyncio.wait_for(received.get(), 20)

            proxy.cut()
            sent += [rota.notify(agent_id, "mention", {"n": i}).notification_id for i in (2, 3)]
            rest = [await asyncio.wait_for(received.get(), 30) for _ in range(2)]
            following.cancel()
            await stream.aclose()
    finally:
        proxy.close()

    assert proxy.accepted >= 2, "the stream reconnected"
    assert [e.data["notificationId"] for e in [first, *rest]] == sent
