import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Outcome, Rota, Runner, type CallInfo, type Handler } from "../src/index.js";
import { eventually } from "./node.js";
import { HttpProxy } from "./proxies.js";

/**
 * Deferred answers on the wire: a turn sees every call it may answer (carried, and owed from
 * earlier turns) and its completion names the ones it defers; a failed turn defers nothing. A proxy
 * that answers every request itself plays the node.
 */
const json = (status: number, body: unknown): { status: number; body: string } => ({ status, body: JSON.stringify(body) });

/** A turn whose notification is call c-new, and which owes call c-old. */
function owingTurn(): unknown {
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
      notifications: [
        {
          notificationId: "n1",
          type: "question",
          payload: {},
          receivedAt: new Date(now).toISOString(),
          attempt: 1,
          call: { callId: "c-new", from: { tenant: "default", agentId: "a" }, depth: 1 },
        },
      ],
      owes: [{ callId: "c-old", from: { tenant: "default", agentId: "z" }, depth: 2 }],
      agent: { name: "b", capabilities: [], metadata: {} },
    },
  };
}

async function oneTurn(handler: Handler): Promise<{ path: string; body: Record<string, unknown> }> {
  const scripted = await HttpProxy.start("http://127.0.0.1:9");
  let granted = false;
  scripted.intercept = (seen) => {
    if (seen.path.startsWith("/v1/claims")) {
      const first = !granted;
      granted = true;
      return json(200, first ? owingTurn() : { status: "none" });
    }
    return json(200, { completedAt: new Date().toISOString(), next: { status: "none" } });
  };
  const runner = new Runner(new Rota(scripted.url), handler, { runnerId: "r1", waitSeconds: 0, shutdownGraceMs: 1_000 });
  const running = runner.run();
  try {
    const report = await eventually("the turn's report", () => Promise.resolve(scripted.seen.find((s) => s.path.startsWith("/v1/leases/l1/"))));
    return { path: report.path, body: JSON.parse(report.body) as Record<string, unknown> };
  } finally {
    await runner.stop();
    await running;
    await scripted.close();
  }
}

describe("deferred answers", () => {
  test("a turn sees the calls it owes and its completion names those it defers", async () => {
    let owes: readonly CallInfo[] = [];
    const report = await oneTurn((_activation, context) => {
      owes = context.owes;
      context.call("c", "question");
      context.defer("c-new");
      return Outcome.complete({ step: 1 });
    });
    assert.deepEqual(
      owes.map((c) => c.callId),
      ["c-new", "c-old"],
    );
    assert.equal(owes[1]?.from.agentId, "z");
    assert.equal(owes[1]?.depth, 2);
    assert.equal(report.path, "/v1/leases/l1/complete");
    assert.deepEqual(report.body.defer, ["c-new"]);
    assert.equal((report.body.send as unknown[]).length, 1);
  });

  test("deferAll defers every call, and a failed turn defers nothing", async () => {
    const all = await oneTurn((_activation, context) => {
      context.deferAll();
      return Outcome.complete();
    });
    assert.deepEqual(all.body.defer, ["c-new", "c-old"]);
    const failed = await oneTurn((_activation, context) => {
      context.deferAll();
      throw new Error("down");
    });
    assert.equal(failed.path, "/v1/leases/l1/fail");
    assert.equal("defer" in failed.body, false);
  });
});
