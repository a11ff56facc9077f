/**
 * The run queue and its workers: `enqueueRun` writes a run of a named agent and returns; a
 * runtime made with `worker` — in this process or another on the same ledger file — takes the
 * run's lease and drives it, each run exactly once.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { SqlClient } from "@effect/sql";
import { Effect } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ProviderCapabilities, type RunRecord } from "../../src/domain/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import type { AgentDefinition, AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import type { Provider } from "../../src/services/providers/Provider.js";
import { scriptedResponse } from "../../src/services/providers/scripted.js";
import { defineTool } from "../../src/services/tools/Tool.js";
import { BACKENDS, freshDatabase, noticePostgresSkipped, sharedLedger } from "../support/backends.js";
import { eventually } from "../support/remoteControl.js";
import { useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-queue-");
noticePostgresSkipped();
const ROOT = resolve(import.meta.dirname, "../..");

/** An order-support agent whose model looks the order up once, then answers from the result. */
function orderAgent(options: {
  executions: string[];
  requests?: string[];
  gate?: Promise<void>;
  inFlight?: { now: number; max: number };
}): AgentDefinition {
  const provider: Provider = {
    id: "orders",
    model: "orders-scripted",
    apiFamily: "scripted",
    capabilities: ProviderCapabilities.parse({}),
    sample: (request) =>
      Effect.sync(() => {
        options.requests?.push(request.runId);
        const looked = request.messages.some((message) => message.role === "tool");
        return looked
          ? scriptedResponse({ text: "Your order is in transit." })
          : scriptedResponse({
              toolCalls: [{ id: "lookup_1", name: "lookup_order", arguments: { runId: request.runId } }],
            });
      }),
  };
  const lookup = defineTool({
    name: "lookup_order",
    description: "Looks an order up.",
    kind: "observe",
    input: z.object({ runId: z.string() }),
    execute: async ({ runId }) => {
      options.executions.push(runId);
      if (options.inFlight) {
        options.inFlight.now += 1;
        options.inFlight.max = Math.max(options.inFlight.max, options.inFlight.now);
      }
      await options.gate;
      if (options.inFlight) options.inFlight.now -= 1;
      return { status: "ok", output: { status: "in_transit" } };
    },
  });
  return {
    provider,
    tools: [lookup],
    contract: { evidenceMode: "observe", requiredToolNames: ["lookup_order"] },
    system: "You answer questions about orders.",
  };
}

const queued = (runtime: AgentRuntime) =>
  runtime.run(Effect.flatMap(AgentRunStore, (store) => store.findQueuedRuns(100)));

/** The runs' records once none of them is still running. */
const settled = async (runtime: AgentRuntime, runIds: ReadonlyArray<string>, timeoutMs = 10_000) =>
  (await eventually(
    () => Promise.all(runIds.map((runId) => runtime.ledger.getRun(runId))),
    (runs) => runs.every((run) => run !== undefined && run.terminalState !== "running"),
    timeoutMs,
  )) as RunRecord[];

/** A worker in a child process (the built package) that drives queued runs until stdin closes. */
const WORKER = `
import { AgentRuntime, defineTool } from "./dist/index.js";
import { z } from "zod";
const file = process.argv.at(-1);
const response = (partial) => ({ text: "", toolCalls: [], malformedToolCalls: [], anomalies: [], streamed: false, finishReason: "stop", ...partial });
const { Effect } = await import("effect");
const provider = {
  id: "orders", model: "orders-scripted", apiFamily: "scripted",
  capabilities: { streaming: false, toolCalling: true, parallelToolCalls: false, jsonMode: false, systemPrompt: true, maxContextTokens: null },
  sample: (request) => Effect.sync(() => request.messages.some((m) => m.role === "tool")
    ? response({ text: "Your order is in transit." })
    : response({ toolCalls: [{ id: "lookup_1", name: "lookup_order", arguments: { runId: request.runId } }], finishReason: "tool_calls" })),
};
const lookup = defineTool({
  name: "lookup_order", description: "Looks an order up.", kind: "observe", input: z.object({ runId: z.string() }),
  execute: async ({ runId }) => { process.stdout.write("executed " + runId + "\\n"); return { status: "ok", output: { status: "in_transit" } }; },
});
const runtime = await AgentRuntime.make({
  database: file,
  agents: { orders: { provider, tools: [lookup], contract: { evidenceMode: "observe", requiredToolNames: ["lookup_order"] } } },
  worker: { pollMs: 20 },
});
process.stdout.write("ready\\n");
process.stdin.resume();
process.stdin.once("end", async () => { await runtime.dispose(); process.exit(0); });
`;

describe.each(BACKENDS)("the run queue on %s", (backend) => {
  const { ledger, makeRuntime } = sharedLedger(harness, backend);

  describe("enqueueRun", () => {
    it("writes the run of a named agent and its place in the queue, and returns before any model request", async () => {
      const requests: string[] = [];
      const runtime = await makeRuntime({ agents: { orders: orderAgent({ executions: [], requests }) } });
      const { runId } = await runtime.enqueueRun({
        agent: "orders",
        sessionId: "customer-7",
        input: "Where is my order?",
      });
      const run = await runtime.ledger.getRun(runId);
      expect(run).toMatchObject({ terminalState: "running", agentName: "orders", sessionId: "customer-7" });
      expect(run?.contract.requiredToolNames).toEqual(["lookup_order"]);
      expect((await runtime.ledger.listEvents(runId)).map((event) => [event.type, event.payload])).toEqual([
        ["user_input", { text: "Where is my order?", origin: "user" }],
      ]);
      expect((await queued(runtime)).map((entry) => [entry.runId, entry.agentName])).toEqual([[runId, "orders"]]);
      // This runtime is no worker: the run waits for one.
      await new Promise((done) => setTimeout(done, 150));
      expect(requests).toEqual([]);
    });

    it("refuses an agent the runtime does not know and writes nothing", async () => {
      const runtime = await makeRuntime({ agents: { orders: orderAgent({ executions: [] }) } });
      await expect(runtime.enqueueRun({ agent: "billing", sessionId: "s", input: "x" })).rejects.toThrow(
        'no agent named "billing" on this runtime (known: orders)',
      );
      expect(await runtime.ledger.listRuns()).toEqual([]);
    });

    it("a runtime starting next to queued runs leaves them open for a worker rather than closing them", async () => {
      const agents = { orders: orderAgent({ executions: [] }) };
      const producer = await makeRuntime({ agents });
      const { runId } = await producer.enqueueRun({ agent: "orders", sessionId: "s", input: "Where is my order?" });
      await producer.dispose();
      const next = await makeRuntime({ agents });
      expect(next.recovered).toEqual([]);
      expect((await next.ledger.getRun(runId))?.terminalState).toBe("running");
      expect((await queued(next)).map((entry) => entry.runId)).toEqual([runId]);
    });
  });

  describe("workers", () => {
    it("a worker sends the system prompt the run was queued with, resolved over the queuing runtime's agent", async () => {
      const producer = await makeRuntime({ agents: { orders: orderAgent({ executions: [] }) } });
      const { runId } = await producer.enqueueRun({
        agent: "orders",
        sessionId: "s",
        input: "Where is my order?",
        system: { append: "The customer is on the phone." },
      });
      const workerAgent = orderAgent({ executions: [] });
      const prompts: string[] = [];
      const provider = workerAgent.provider!;
      const worker = await makeRuntime({
        agents: {
          orders: {
            ...workerAgent,
            system: "A prompt the queued run must not get.",
            provider: {
              ...provider,
              sample: (request) => {
                prompts.push(
                  ...request.messages.flatMap((message) => (message.role === "system" ? [message.content] : [])),
                );
                return provider.sample(request);
              },
            },
          },
        },
        worker: { pollMs: 20 },
      });
      const [run] = await settled(worker, [runId]);
      expect(run?.terminalState).toBe("completed");
      expect(new Set(prompts)).toEqual(
        new Set(["You answer questions about orders.\n\nThe customer is on the phone."]),
      );
    });

    it("a worker on the same ledger drives a queued run to completed from the agent's definition, and empties the queue", async () => {
      const executions: string[] = [];
      const agents = { orders: orderAgent({ executions }) };
      const producer = await makeRuntime({ agents });
      const { runId } = await producer.enqueueRun({ agent: "orders", sessionId: "s", input: "Where is my order?" });
      const picked: string[] = [];
      const worker = await makeRuntime({
        agents,
        worker: { pollMs: 20, onRun: (handle) => picked.push(handle.runId) },
      });
      const [run] = await settled(worker, [runId]);
      expect(run).toMatchObject({ terminalState: "completed", agentName: "orders" });
      expect(executions).toEqual([runId]);
      expect(picked).toEqual([runId]);
      expect(await queued(worker)).toEqual([]);
      const types = (await worker.ledger.listEvents(runId)).map((event) => event.type);
      expect(types.filter((type) => type === "user_input")).toHaveLength(1);
      expect(types.at(-1)).toBe("terminal");
      expect(await worker.ledger.listReceipts(runId)).toHaveLength(1);
    });

    it("a run enqueued on a worker starts at once, without waiting for the next poll", async () => {
      const executions: string[] = [];
      const worker = await makeRuntime({
        agents: { orders: orderAgent({ executions }) },
        worker: { pollMs: 3_600_000 },
      });
      const { runId } = await worker.enqueueRun({ agent: "orders", sessionId: "s", input: "Where is my order?" });
      const [run] = await settled(worker, [runId]);
      expect(run?.terminalState).toBe("completed");
      expect(executions).toEqual([runId]);
    });

    it("two workers on one ledger drive every queued run exactly once", async () => {
      const executions: string[] = [];
      const agents = { orders: orderAgent({ executions }) };
      const producer = await makeRuntime({ agents });
      const runIds: string[] = [];
      for (let i = 0; i < 12; i++) {
        runIds.push(
          (await producer.enqueueRun({ agent: "orders", sessionId: `s${i}`, input: "Where is my order?" })).runId,
        );
      }
      const first = await makeRuntime({ agents, worker: { pollMs: 10, concurrency: 3 } });
      const second = await makeRuntime({ agents, worker: { pollMs: 10, concurrency: 3 } });
      const runs = await settled(first, runIds, 20_000);
      expect(runs.map((run) => run.terminalState)).toEqual(runIds.map(() => "completed"));
      expect([...executions].sort()).toEqual([...runIds].sort());
      for (const runId of runIds) {
        const events = await second.ledger.listEvents(runId);
        expect(events.filter((event) => event.type === "tool_call")).toHaveLength(1);
        expect(events.filter((event) => event.type === "terminal")).toHaveLength(1);
      }
    });

    it("a worker drives at most its concurrency of runs at once", async () => {
      let open!: () => void;
      const gate = new Promise<void>((done) => {
        open = done;
      });
      const inFlight = { now: 0, max: 0 };
      const executions: string[] = [];
      const worker = await makeRuntime({
        agents: { orders: orderAgent({ executions, gate, inFlight }) },
        worker: { pollMs: 10, concurrency: 2 },
      });
      const runIds: string[] = [];
      for (let i = 0; i < 5; i++) {
        runIds.push((await worker.enqueueRun({ agent: "orders", sessionId: `s${i}`, input: "Where?" })).runId);
      }
      const deadline = Date.now() + 10_000;
      while (inFlight.now < 2 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 10));
      // Given time to take more, it still drives two.
      await new Promise((done) => setTimeout(done, 200));
      expect(inFlight.now).toBe(2);
      expect((await queued(worker)).length).toBe(3);
      open();
      await settled(worker, runIds);
      expect(inFlight.max).toBe(2);
      expect(executions).toHaveLength(5);
    });

    it("a disposed worker takes no more runs: what it had not taken stays queued", async () => {
      const agents = { orders: orderAgent({ executions: [] }) };
      const worker = await makeRuntime({ agents, worker: { pollMs: 10 } });
      await worker.dispose();
      const producer = await makeRuntime({ agents });
      const { runId } = await producer.enqueueRun({ agent: "orders", sessionId: "s", input: "Where?" });
      await new Promise((done) => setTimeout(done, 100));
      expect((await queued(producer)).map((entry) => entry.runId)).toEqual([runId]);
    });
  });

  describe("a worker in another process", () => {
    const children: ReturnType<typeof spawn>[] = [];
    afterEach(() => {
      for (const child of children.splice(0)) child.kill("SIGKILL");
    });

    it("drives the runs this process enqueued, each once", async () => {
      const executions: string[] = [];
      const producer = await makeRuntime({ agents: { orders: orderAgent({ executions }) } });
      const child = spawn(process.execPath, ["--input-type=module", "-e", WORKER, await ledger()], {
        cwd: ROOT,
        stdio: ["pipe", "pipe", "pipe"],
      });
      children.push(child);
      let output = "";
      child.stdout.on("data", (chunk) => {
        output += String(chunk);
      });
      let errors = "";
      child.stderr.on("data", (chunk) => {
        errors += String(chunk);
      });
      const runIds: string[] = [];
      for (let i = 0; i < 4; i++) {
        runIds.push((await producer.enqueueRun({ agent: "orders", sessionId: `s${i}`, input: "Where?" })).runId);
      }
      const runs = await settled(producer, runIds, 20_000).catch((error) => {
        throw new Error(`${error}\nworker stdout: ${output}\nworker stderr: ${errors}`);
      });
      expect(runs.map((run) => run.terminalState)).toEqual(runIds.map(() => "completed"));
      // Executed in the child, not here: this process only enqueued.
      expect(executions).toEqual([]);
      const executed = output
        .split("\n")
        .filter((line) => line.startsWith("executed "))
        .map((line) => line.slice(9));
      expect(executed.sort()).toEqual([...runIds].sort());
      child.stdin.end();
    });
  });
});

/** The job system PostgreSQL ledgers hand queued runs out with (no such system on SQLite). */
describe.each(BACKENDS.filter((backend) => backend === "postgres"))("queued runs as jobs on %s", (backend) => {
  const jobsOf = (runtime: AgentRuntime, runId: string) =>
    runtime.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ task_identifier: string }>`SELECT task_identifier FROM graphile_worker.jobs WHERE key = ${runId}`,
      ),
    );

  it("enqueueRun adds one job keyed by the run in the transaction that queues it, and the worker's run leaves none", async () => {
    const database = await freshDatabase(backend, harness.dbFile());
    const agents = { orders: orderAgent({ executions: [] }) };
    const producer = await harness.makeRuntime({ database, agents });
    const { runId } = await producer.enqueueRun({ agent: "orders", sessionId: "s", input: "Where?" });
    expect(await jobsOf(producer, runId)).toEqual([{ task_identifier: "agentloop_run" }]);
    const worker = await harness.makeRuntime({ database, agents, worker: {} });
    const [run] = await settled(worker, [runId]);
    expect(run?.terminalState).toBe("completed");
    const deadline = Date.now() + 5_000;
    while ((await jobsOf(producer, runId)).length > 0 && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 20));
    }
    expect(await jobsOf(producer, runId)).toEqual([]);
  });
});
