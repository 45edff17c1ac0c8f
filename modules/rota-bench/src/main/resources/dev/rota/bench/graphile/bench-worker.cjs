// Drives graphile-worker for rota-bench. Written into the bench's graphile folder next to its
// node_modules and run by GraphileSystem:
//   node bench-worker.cjs migrate <connectionString>
//   node bench-worker.cjs work <connectionString> <settings-json> <activation-ms>
// "work" prints READY once the worker runs, then one line per job event, batched:
//   S <token> <agentId> <epochMicros>   the no-op task started (the claim)
//   C <agentId> <epochMicros>           the job's completion was written back (job:complete)
//   E <message>                         a job failed
// It stops gracefully when its stdin closes.
"use strict";
const { run, runMigrations, Logger } = require("graphile-worker");

// Logging is not a throughput setting: keep warnings and errors, drop the per-job info lines.
const logger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") {
    process.stderr.write(`[graphile ${level}] ${message}\n`);
  }
});

const nowMicros = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

let lines = [];
const flush = () => {
  if (lines.length > 0) {
    process.stdout.write(lines.join("\n") + "\n");
    lines = [];
  }
};

async function work(connectionString, settings, activationMs) {
  const taskList = {
    noop: async (payload) => {
      lines.push(`S ${payload.t || 0} ${payload.a} ${nowMicros()}`);
      if (activationMs > 0) {
        await new Promise((resolve) => setTimeout(resolve, activationMs));
      }
    },
  };
  const runner = await run({
    connectionString,
    logger,
    taskList,
    noHandleSignals: true,
    preset: { worker: settings },
  });
  runner.events.on("job:complete", ({ job, error }) => {
    if (error) {
      lines.push(`E job ${job.id}: ${String(error).replace(/\s+/g, " ")}`);
    } else {
      lines.push(`C ${job.payload.a} ${nowMicros()}`);
    }
  });
  const flusher = setInterval(flush, 10);
  process.stdout.write("READY\n");
  process.stdin.on("data", () => {});
  process.stdin.on("end", async () => {
    await runner.stop();
    clearInterval(flusher);
    flush();
    process.exit(0);
  });
  await runner.promise;
}

async function main() {
  const [command, connectionString, settingsJson, activationMs] = process.argv.slice(2);
  if (command === "migrate") {
    await runMigrations({ connectionString, logger });
  } else if (command === "work") {
    await work(connectionString, JSON.parse(settingsJson), Number(activationMs || 0));
  } else {
    throw new Error(`unknown command ${command}`);
  }
}

main().catch((e) => {
  process.stderr.write(`bench-worker failed: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
