/**
 * Runs node:test over the given files against one node started for them all, instead of a node per
 * file: `node build/test/with-node.js [node --test options] files...`. The files find the node
 * through `sharedNode()`; the node is stopped after the last file, and its log is shown when a
 * file failed.
 */
import { spawn } from "node:child_process";

import { SHARED_MANAGEMENT_URL, SHARED_URL, startNode } from "./node.js";

const node = await startNode();
const stopAndExit = (code: number): void => {
  void node.stop().then(() => process.exit(code));
};
process.once("SIGINT", () => stopAndExit(130));
process.once("SIGTERM", () => stopAndExit(143));

const tests = spawn(process.execPath, ["--test", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, [SHARED_URL]: node.url, [SHARED_MANAGEMENT_URL]: node.managementUrl },
});
const code = await new Promise<number>((resolve) => tests.on("exit", (exit, signal) => resolve(exit ?? (signal ? 1 : 0))));
if (code !== 0) {
  console.error(`the shared node's log, last lines:\n${node.logTail(80)}`);
}
await node.stop();
process.exit(code);
