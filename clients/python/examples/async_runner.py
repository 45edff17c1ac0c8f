"""An asyncio runner: a coroutine handler that awaits a (stub) model and posts the reply as the
turn's result, four turns at a time. A turn whose lease is lost is cancelled where it awaits.

    python examples/async_runner.py           # run until SIGTERM or Ctrl-C
    python examples/async_runner.py --demo    # one agent, three notifications, exit
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid

from rota import Activation, AsyncRota, AsyncRunner, Context, Outcome, RunnerListener


async def stub_model(prompt: str) -> str:
    """Stands in for an async model client (an HTTP call in real life)."""
    await asyncio.sleep(0.1)
    return f"summary of {len(prompt)} characters"


async def handle(activation: Activation, context: Context) -> Outcome:
    prompt = "\n".join(str(n.payload) for n in activation.notifications)
    try:
        # Never run past the lease: leave a second to report the outcome.
        summary = await asyncio.wait_for(
            stub_model(prompt), timeout=max(0.1, context.remaining() - 1)
        )
    except asyncio.TimeoutError:
        return Outcome.retry("model did not answer in time")
    return Outcome.complete({"summary": summary, "read": len(activation.notifications)})


async def main(demo: bool) -> None:
    url = os.environ.get("ROTA_URL", "http://localhost:8080")
    capability = os.environ.get("ROTA_CAPABILITIES") or f"demo-{uuid.uuid4().hex[:8]}"
    async with AsyncRota(url, token=os.environ.get("ROTA_TOKEN")) as rota:
        done = asyncio.Event()

        class Watch(RunnerListener):
            def on_reported(self, activation: Activation, outcome: Outcome) -> None:
                print(f"{activation.agent_id}: {outcome.action} {outcome.result}", flush=True)
                done.set()

        runner = AsyncRunner(
            rota,
            handle,
            runner_id=os.environ.get("ROTA_RUNNER_ID", "async-runner"),
            mode="notification" if demo else "hybrid",
            capabilities=[capability] if demo else [c for c in capability.split(",") if c],
            concurrency=4,
            wait_seconds=2 if demo else 20,
            listener=Watch(),
        )
        if not demo:
            await runner.run(handle_signals=True)
            return
        agent = f"summarizer-{capability}"
        await rota.register_agent(agent, capabilities=[capability])
        for i in range(3):
            await rota.notify(agent, "document", {"text": f"page {i}"}, dedupe_key=f"{agent}-{i}")
        running = asyncio.create_task(runner.run())
        await asyncio.wait_for(done.wait(), timeout=30)
        runner.stop(grace=5)
        await running
        print("done", flush=True)


if __name__ == "__main__":
    asyncio.run(main("--demo" in sys.argv))
