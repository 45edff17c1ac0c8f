import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Outcome, Rota, Runner, type Handler } from "../src/index.js";
import { eventually } from "./node.js";
import { HttpProxy, type Seen } from "./proxies.js";

/**
 * The runner's cursor on steered input: a turn's report names, in `inputSeen`, the steered
 * notifications its handler took (iterated, waited for, drained, handed to its callback), not those
 * that only reached the SDK; a handler that took none sends an empty list. A proxy that answers
 * every request itself plays the node, to see each report's exact body.
 */
const json = (status: number, body: unknown): { status: number; body: string } => ({ status, body: JSON.stringify(body) });

const REPORTED = json(200, { completedAt: new Date().toISOString(), next: { status: "none" } });

function turn(): unknown {
  const now = Date.now();
  return {
    status: "assigned",
    assignment: {
      leaseId: "l1",
      agentId: "b",
      kind: "inbox",
      attempt: 1,
      grantedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 60_000).toISOString(),
      notifications: [{ notificationId: "n1", type: "question", payload: {}, receivedAt: new Date(now).toISOString(), attempt: 1 }],
      agent: { name: "b", capabilities: [], metadata: {} },
    },
  };
}

/** A heartbeat's answer that steers the notifications `ids` into the turn. */
function beat(...ids: string[]): { status: number; body: string } {
  const now = new Date().toISOString();
  const notifications = ids.map((id) => ({ notificationId: id, type: "message", payload: { text: id }, receivedAt: now, attempt: 1 }));
  return json(200, { expiresAt: new Date(Date.now() + 60_000).toISOString(), notifications });
}

interface OneTurn {
  /** The turn's reports (complete or fail), in order, with their bodies. */
  reports: { path: string; body: Record<string, unknown> }[];
}

/**
 * Runs one turn whose heartbeats are answered from `beats` in order (the last one repeats);
 * `heartbeats()` in the handler counts those the runner got so far. Ends with `runner.stop(graceMs)`
 * once the turn is reported, or at once when `stopWhen` resolves.
 */
async function oneTurn(
  handler: (heartbeats: () => number) => Handler,
  beats: { status: number; body: string }[],
  stopWhen?: (heartbeats: () => number) => Promise<unknown>,
): Promise<OneTurn> {
  const scripted = await HttpProxy.start("http://127.0.0.1:9");
  let granted = false;
  let heartbeats = 0;
  const script = [...beats];
  scripted.intercept = (seen: Seen) => {
    if (seen.path.startsWith("/v1/claims")) {
      const first = !granted;
      granted = true;
      return json(200, first ? turn() : { status: "none" });
    }
    if (seen.path.endsWith("/heartbeat")) {
      return script.length > 1 ? script.shift() : script[0];
    }
    return REPORTED;
  };
  const counted = (): number => heartbeats;
  const runner = new Runner(new Rota(scripted.url), handler(counted), {
    runnerId: "r1",
    waitSeconds: 0,
    heartbeatIntervalMs: 100,
    shutdownGraceMs: 5_000,
    listener: { onHeartbeat: () => heartbeats++ },
  });
  const running = runner.run();
  const isReport = (s: Seen): boolean => s.path.startsWith("/v1/leases/l1/complete") || s.path.startsWith("/v1/leases/l1/fail");
  try {
    if (stopWhen !== undefined) {
      await stopWhen(counted);
      await runner.stop(200);
    } else {
      await eventually("the turn's report", () => Promise.resolve(scripted.seen.find(isReport)));
    }
  } finally {
    await runner.stop();
    await running;
    await scripted.close();
  }
  const reports = scripted.seen.filter(isReport).map((s) => ({ path: s.path, body: JSON.parse(s.body) as Record<string, unknown> }));
  return { reports };
}

/** Resolves once `heartbeats()` reaches `count`. */
function heartbeatsReach(heartbeats: () => number, count: number): Promise<true> {
  return eventually(`${count} heartbeats`, () => Promise.resolve(heartbeats() >= count ? true : undefined), 20_000);
}

describe("the runner's cursor on steered input", () => {
  test("a completion names the steered input the handler took, and not what only arrived", async () => {
    const { reports } = await oneTurn(
      (heartbeats) => async (_activation, context) => {
        const took = await context.nextInput(20_000);
        // The third heartbeat starts after the second one's answer (s2) reached the turn.
        await heartbeatsReach(heartbeats, 3);
        assert.deepEqual(context.inputSeen, ["s1"]);
        return Outcome.complete({ took: took?.notificationId });
      },
      [beat("s1"), beat("s2"), beat()],
    );
    assert.equal(reports.length, 1);
    const [report] = reports;
    assert.equal(report?.path, "/v1/leases/l1/complete");
    assert.deepEqual(report?.body.result, { took: "s1" });
    assert.deepEqual(report?.body.inputSeen, ["s1"]);
    assert.ok("next" in (report?.body ?? {}), "the report that claims again carries the cursor too");
  });

  test("a handler that never reads its input sends an empty list", async () => {
    const { reports } = await oneTurn(
      (heartbeats) => async () => {
        await heartbeatsReach(heartbeats, 2); // s1 has arrived
      },
      [beat("s1"), beat()],
    );
    assert.equal(reports[0]?.path, "/v1/leases/l1/complete");
    assert.deepEqual(reports[0]?.body.inputSeen, []);
  });

  test("what the iterator and then the callback took is named, in order", async () => {
    const { reports } = await oneTurn(
      () => async (_activation, context) => {
        for await (const notification of context.input()) {
          assert.equal(notification.notificationId, "s1");
          break; // s2 came with s1 and waits
        }
        const called: string[] = [];
        context.onInput((notification) => called.push(notification.notificationId));
        assert.deepEqual(called, ["s2"]);
      },
      [beat("s1", "s2"), beat()],
    );
    assert.deepEqual(reports[0]?.body.inputSeen, ["s1", "s2"]);
  });

  test("a failed turn names the steered input its handler drained", async () => {
    const { reports } = await oneTurn(
      () => async (_activation, context) => {
        const took = await eventually("drained input", () => Promise.resolve(context.drainInput().at(0)), 20_000);
        throw new Error(`cannot answer ${took.notificationId}`);
      },
      [beat("s1"), beat()],
    );
    assert.equal(reports[0]?.path, "/v1/leases/l1/fail");
    assert.equal(reports[0]?.body.action, "retry");
    assert.deepEqual(reports[0]?.body.inputSeen, ["s1"]);
  });

  test("a lease handed back at stop names the steered input its handler took", async () => {
    let took: string | undefined;
    const { reports } = await oneTurn(
      () => async (_activation, context) => {
        took = (await context.nextInput(20_000))?.notificationId;
        await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
      },
      [beat("s1"), beat()],
      () => eventually("s1 taken", () => Promise.resolve(took)),
    );
    assert.equal(reports.length, 1);
    assert.equal(reports[0]?.path, "/v1/leases/l1/fail");
    assert.equal(reports[0]?.body.action, "snooze");
    assert.equal(reports[0]?.body.snoozeSeconds, 0);
    assert.deepEqual(reports[0]?.body.inputSeen, ["s1"]);
  });

  test("the client sends inputSeen only when given, and not again to a node that refuses it", async () => {
    const scripted = await HttpProxy.start("http://127.0.0.1:9");
    const refused = json(400, { error: "invalid", message: "unknown field 'inputSeen' (known fields: runnerId)" });
    let refusing = false;
    scripted.intercept = (seen) => (refusing && seen.body.includes('"inputSeen"') ? refused : REPORTED);
    const rota = new Rota(scripted.url);
    try {
      await rota.complete("l1", "r1", undefined, { inputSeen: ["s1"] });
      await rota.fail("l2", "r1", { inputSeen: [] });
      await rota.complete("l3", "r1");
      refusing = true;
      await rota.complete("l4", "r1", undefined, { inputSeen: ["s4"] });
      await rota.fail("l5", "r1", { inputSeen: ["s5"] });
    } finally {
      await scripted.close();
    }
    assert.deepEqual(
      scripted.seen.map((s) => JSON.parse(s.body) as unknown),
      [
        { runnerId: "r1", inputSeen: ["s1"] },
        { runnerId: "r1", action: "retry", inputSeen: [] },
        { runnerId: "r1" },
        { runnerId: "r1", inputSeen: ["s4"] },
        { runnerId: "r1" },
        { runnerId: "r1", action: "retry" },
      ],
    );
  });
});
