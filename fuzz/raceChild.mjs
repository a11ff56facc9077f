/**
 * A process of the takeover race suite (fuzz/raceFuzz.ts): an owner that starts one run, or a
 * supervising replica that takes abandoned runs over. Both drive runs through the built package
 * (dist/) on one ledger (a SQLite file or a PostgreSQL URL), with one tool, `refund` (mutating,
 * not idempotent), that appends a line to a side-effect file outside the ledger the moment its
 * executor is invoked — so the parent counts executions the ledger could not hide.
 *
 *   node fuzz/raceChild.mjs owner   <db> <effectsFile> <runId> <approval:0|1> <sampleMs> <toolMs>
 *   node fuzz/raceChild.mjs replica <db> <effectsFile> <toolMs>
 *
 * Lines on stdout: `ready`, `sampling <runId>`, `tool <runId> <callId>` (an executor was invoked),
 * `waiting <runId> <callId>` (a call asks for approval), `resumed <runId>`,
 * `finished <runId> <state> <reason>`, `decided <runId> <callId> ok|<why>`.
 * A replica reads `approve <runId> <callId>` on stdin and records the decision in the ledger.
 */
import { appendFileSync } from "node:fs";
import { Effect } from "effect";

const { AgentRuntime, defineTool, jsonSchemaInput, scriptedProvider } = {
  ...(await import("../dist/index.js")),
  ...(await import("../dist/entries/testing.js")),
};
const { recordApprovalDecision } = await import("../dist/persistence/approvals.js");

const [role, database, effectsFile, ...rest] = process.argv.slice(2);
const say = (line) => process.stdout.write(`${line}\n`);
process.on("uncaughtException", (error) => {
  process.stderr.write(`error ${error?.stack ?? error}\n`);
  process.exit(1);
});

const LEASE = { durationMs: 1_000, renewEveryMs: 250 };
const toolMs = Number(role === "owner" ? rest[4] : rest[0]) || 300;
const sampleMs = role === "owner" ? Number(rest[2]) || 0 : 0;

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      },
      { once: true },
    );
  });
}

const refund = defineTool({
  name: "refund",
  description: "Refunds an order.",
  kind: "mutate",
  input: jsonSchemaInput({ type: "object" }),
  execute: async (_args, { runId, callId, signal }) => {
    appendFileSync(effectsFile, `${runId} ${callId} ${process.pid} ${role}\n`);
    say(`tool ${runId} ${callId}`);
    await sleep(toolMs, signal);
    return { status: "ok", output: { refunded: true }, evidence: { rows_affected: 1 } };
  },
});

/**
 * A model that answers from the conversation alone, so that any replica can continue any run:
 * no tool result yet — call `refund`; otherwise — say what happened.
 */
const template = scriptedProvider([{ text: "" }]);
const provider = {
  ...template,
  sample: (request) => {
    const answered = request.messages.some((message) => message.role === "tool");
    const approve = request.messages.some((message) => message.role === "user" && message.content.includes("approval"));
    const step = answered
      ? { text: "The refund of order 7 is recorded above.", delayMs: 20 }
      : {
          toolCalls: [{ id: "c1", name: "refund", arguments: { order: "7", approve } }],
          finishReason: "tool_calls",
          delayMs: request.step === 1 ? sampleMs : 20,
        };
    if (!answered && request.step === 1) say(`sampling ${request.runId}`);
    return scriptedProvider([step]).sample(request);
  },
};

const contract = { evidenceMode: "mutate", requiredToolNames: ["refund"] };
/** Every process asks for approval of the same calls: those of runs started "with approval". */
const approval = {
  when: ({ arguments: args }) => typeof args === "object" && args !== null && args.approve === true,
  timeoutMs: 120_000,
  pollMs: 50,
};

function follow(handle) {
  handle.actor.on("approval_requested", (event) => say(`waiting ${handle.runId} ${event.callId}`));
  handle.result.then(
    (result) =>
      say(
        `finished ${handle.runId} ${result.terminalState} ${result.terminalReason} ${JSON.stringify(result.finalText).slice(0, 300)}`,
      ),
    () => undefined,
  );
}

if (role === "owner") {
  const [runId, withApproval] = rest;
  const runtime = await AgentRuntime.make({
    database,
    tools: [refund],
    provider,
    lease: LEASE,
    recoverOnStart: false,
    approval,
  });
  say("ready");
  const input = withApproval === "1" ? "Refund order 7 (with approval)." : "Refund order 7.";
  const handle = runtime.startRun({ runId, sessionId: `s-${runId}`, input, contract });
  follow(handle);
  await handle.result.catch(() => undefined);
  await runtime.dispose();
  process.exit(0);
} else if (role === "replica") {
  const runtime = await AgentRuntime.make({
    database,
    tools: [refund],
    provider,
    lease: LEASE,
    approval,
    supervise: {
      intervalMs: 150,
      onResumed: (handle) => {
        say(`resumed ${handle.runId}`);
        follow(handle);
      },
    },
  });
  say("ready");
  let buffer = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    buffer += chunk;
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const [command, runId, callId] = buffer.slice(0, newline).trim().split(" ");
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
      if (command !== "approve") continue;
      const decision = {
        decision: "approved",
        scope: "once",
        decidedBy: `replica:${process.pid}`,
        decidedAt: new Date().toISOString(),
      };
      runtime
        .run(Effect.either(recordApprovalDecision(runId, callId, decision)))
        .then((outcome) => say(`decided ${runId} ${callId} ${outcome._tag === "Right" ? "ok" : outcome.left.reason}`));
    }
  });
  process.stdin.on("error", () => {});
  process.on("SIGTERM", () => void runtime.dispose().finally(() => process.exit(0)));
} else {
  process.stderr.write("usage: node fuzz/raceChild.mjs owner|replica <db> <effectsFile> …\n");
  process.exit(2);
}
