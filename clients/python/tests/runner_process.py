"""A runner process for the SIGTERM test: claims one agent's turn, says so, and blocks in its
handler until the runner stops it. Usage: runner_process.py URL RUNNER_ID CAPABILITY"""

from __future__ import annotations

import sys

from rota import Activation, Context, Outcome, Rota, Runner


def main() -> None:
    url, runner_id, capability = sys.argv[1:4]

    def handle(activation: Activation, context: Context) -> Outcome:
        print(f"claimed {activation.agent_id} attempt {activation.attempt}", flush=True)
        context.wait_cancelled(120)
        print(f"cancelled {context.reason.value if context.reason else None}", flush=True)
        return Outcome.complete()

    with Rota(url) as rota:
        runner = Runner(
            rota,
            handle,
            runner_id=runner_id,
            mode="notification",
            capabilities=[capability],
            wait_seconds=2,
            lease_seconds=60,
            shutdown_grace=1.0,
        )
        runner.run()  # until SIGTERM
    print("stopped", flush=True)


if __name__ == "__main__":
    main()
