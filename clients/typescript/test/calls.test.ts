import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Outcome, Rota, Runner, callOf, isReply, replyOf, type ActivationNotification, type Handler } from "../src/index.js";
import { eventually } from "./node.js";
import { HttpProxy, type Seen } from "./proxies.js";

/**
 * What a turn's sends and calls put on the wire, the typed replies and calls an assignment carries,
 * and a producer's call waiting for its answer. A proxy that answers every request itself plays the
 * node, to see a report's exact body and answer "pending" on cue.
 */
const json = (status: number, body: unknown): { status: number; body: string } => ({ status, body: JSON.stringify(body) });

function assignment(): unknown {
  const now = Date.now();
  return {
    status: "assigned",
    assignment: {
      leaseId: "l1",
      agentId: "boss",
      kind: "inbox",
      attempt: 1,
      grantedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 60_000).toISOString(),
      notifications: [],
      agent: { name: "boss", capabilities: [], metadata: {} },
    },
  };
}

/** Runs `handler` on one scripted turn; the report the runner made. */
async function oneTurn(handler: Handler): Promise<{ path: string; body: Record<string, unknown> }> {
  const scripted = await HttpProxy.start("http://127.0.0.1:9");
  let granted = false;
  scripted.intercept = (seen) => {
    if (seen.path.startsWith("/v1/claims")) {
      const first = !granted;
      granted = true;
      return json(200, first ? assignment() : { status: "none" });
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

describe("a turn's sends and calls", () => {
  test("a completed turn carries its sends and calls in order", async () => {
    const report = await oneTurn((_activation, context) => {
      context.send("worker-1", "task", { n: 1 });
      context.call("worker-2", "task", undefined, { timeoutSeconds: 300, group: "all", dedupeKey: "t2" });
      context.call("worker-3", "task");
      return Outcome.complete({ ok: true });
    });
    assert.equal(report.path, "/v1/leases/l1/complete");
    assert.deepEqual(report.body.result, { ok: true });
    assert.deepEqual(report.body.send, [
      { agentId: "worker-1", type: "task", payload: { n: 1 } },
      { agentId: "worker-2", type: "task", dedupeKey: "t2", call: { timeoutSeconds: 300, group: "all" } },
      { agentId: "worker-3", type: "task", call: {} },
    ]);
  });

  test("a failed turn sends nothing", async () => {
    const report = await oneTurn((_activation, context) => {
      context.send("worker-1", "task");
      context.call("worker-2", "task");
      throw new Error("the model is down");
    });
    assert.equal(report.path, "/v1/leases/l1/fail");
    assert.equal(report.body.action, "retry");
    assert.equal("send" in report.body, false);
  });

  test("a send after the handler returned is refused", async () => {
    let kept: Parameters<Handler>[1] | undefined;
    const report = await oneTurn((_activation, context) => {
      kept = context;
    });
    assert.equal("send" in report.body, false);
    assert.throws(() => kept!.send("late", "task"), /the turn is over/);
    assert.deepEqual(kept!.sends, []);
  });
});

describe("typed replies and calls", () => {
  const notification = (fields: Partial<ActivationNotification> & Record<string, unknown>): ActivationNotification => ({
    notificationId: "n1",
    type: "task",
    payload: {},
    receivedAt: "2026-01-01T00:00:00Z",
    attempt: 1,
    ...fields,
  });

  test("reads answered and failed replies", () => {
    const answered = notification({
      type: "rota.reply",
      payload: { callId: "c1", from: { tenant: "acme", agentId: "worker-1" }, status: "answered", result: { summary: "done" } },
    });
    const failed = notification({
      type: "rota.reply",
      payload: { callId: "c2", from: { tenant: "acme", agentId: "gone" }, status: "failed", error: { reason: "undeliverable", message: "no such agent" } },
    });
    assert.ok(isReply(answered));
    const reply = replyOf(answered);
    assert.equal(reply?.callId, "c1");
    assert.deepEqual(reply?.from, { tenant: "acme", agentId: "worker-1" });
    assert.equal(reply?.status, "answered");
    assert.deepEqual(reply?.result, { summary: "done" });
    assert.deepEqual(replyOf(failed)?.error, { reason: "undeliverable", message: "no such agent" });
    assert.equal(callOf(answered), undefined);
  });

  test("a notification that is a call says who called and how deep", () => {
    const call = notification({ call: { callId: "c9", from: { tenant: "acme", agentId: "boss" }, depth: 2 } });
    assert.deepEqual(callOf(call), { callId: "c9", from: { tenant: "acme", agentId: "boss" }, depth: 2 });
    assert.equal(isReply(call), false);
    assert.equal(replyOf(call), undefined);
    assert.throws(() => replyOf(notification({ type: "rota.reply", payload: {} })), TypeError);
  });
});

describe("a producer's call", () => {
  async function answeringAfter(pending: number): Promise<HttpProxy> {
    const scripted = await HttpProxy.start("http://127.0.0.1:9");
    let polls = 0;
    scripted.intercept = (seen: Seen) => {
      if (seen.method === "POST") {
        return json(202, { notificationId: "n1", unread: 1, duplicate: false, callId: "c1" });
      }
      polls += 1;
      return polls <= pending
        ? json(200, { callId: "c1", status: "pending" })
        : json(200, { callId: "c1", status: "answered", result: { text: "hi" }, answeredAt: "2026-01-01T00:00:01Z" });
    };
    return scripted;
  }

  test("posts the call, then polls until it is answered", async () => {
    const scripted = await answeringAfter(2);
    try {
      const answer = await new Rota(scripted.url, { tenant: "acme" }).call("bot", "chat.message", { text: "hello" }, { timeoutSeconds: 120, waitMs: 60_000 });
      assert.equal(answer.status, "answered");
      assert.deepEqual(answer.result, { text: "hi" });
      const [post, ...polls] = scripted.seen;
      assert.equal(post?.path, "/v1/agents/bot/notifications?tenant=acme");
      const posted = JSON.parse(post.body) as { call: unknown; payload: unknown; dedupeKey: string };
      assert.deepEqual(posted.call, { timeoutSeconds: 120 });
      assert.deepEqual(posted.payload, { text: "hello" });
      assert.match(posted.dedupeKey, /^rota-ts-/);
      assert.equal(polls.length, 3);
      for (const poll of polls) {
        assert.equal(poll.method, "GET");
        assert.match(poll.path, /^\/v1\/calls\/c1\?waitSeconds=(59|60)&tenant=acme$/);
      }
    } finally {
      await scripted.close();
    }
  });

  test("answers pending once its own wait has passed", async () => {
    const scripted = await answeringAfter(Number.MAX_SAFE_INTEGER);
    try {
      const started = performance.now();
      const answer = await new Rota(scripted.url).call("bot", "chat.message", undefined, { waitMs: 1_500 });
      const took = performance.now() - started;
      assert.equal(answer.status, "pending");
      assert.ok(took >= 1_400 && took < 10_000, `took ${took} ms`);
      assert.deepEqual((JSON.parse(scripted.seen[0]!.body) as { call: unknown }).call, {});
      assert.match(scripted.seen[1]!.path, /waitSeconds=1\b/);
      assert.throws(() => new Rota(scripted.url).getCall("c1", { waitSeconds: 61 }), RangeError);
    } finally {
      await scripted.close();
    }
  });
});
