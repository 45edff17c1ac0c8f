import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Rota } from "../src/index.js";
import { agentId, eventually, sharedNode, type Node } from "./node.js";

let node: Node;
let rota: Rota;

before(async () => {
  node = await sharedNode();
  rota = new Rota(node.url, { timeoutMs: 10_000 });
});
after(() => node.stop());

test("SIGTERM stops a runner process, which hands its lease back and exits", async () => {
  const id = agentId("sigterm");
  const capability = `cap-${id}`;
  await rota.registerAgent(id, { capabilities: [capability] });
  await rota.notify(id, "job");
  const script = join(fileURLToPath(new URL(".", import.meta.url)), "fixtures", "sigterm-runner.js");
  const child = spawn(process.execPath, [script, node.url, capability], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    await eventually("the child's turn", async () => (out.includes("turn") ? true : undefined), 20_000);
    assert.equal((await rota.getAgent(id)).status, "leased");
    child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("still running"), 15_000))]);
    assert.equal(code, 0);
    assert.ok(out.includes("stopped"), out);
  } finally {
    child.kill("SIGKILL");
  }
  const agent = await rota.getAgent(id);
  assert.equal(agent.lease, null, "the lease was handed back");
  assert.equal(agent.inbox.unread, 1);
});
