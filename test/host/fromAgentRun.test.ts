/**
 * A run invoked from a host's own statechart: an order-support machine invokes `fromAgentRun`,
 * hears the run's events, approves a call that waits, and gets the run's result as the child's
 * output; leaving the state cancels the run.
 */
import { describe, expect, it } from "vitest";
import { type AnyActorRef, assign, createActor, type InspectionEvent, setup, toPromise } from "xstate";
import type { AgentRunResult, LoopEvent } from "../../src/domain/index.js";
import { fromAgentRun } from "../../src/host/fromAgentRun.js";
import type { AgentRunNotice } from "../../src/machines/agentRun/machine.js";
import type { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import { waitUntilAborted } from "../support/remoteControl.js";
import { callStep, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-from-run-");

const sendTool = fixtureTool({
  name: "send_message",
  kind: "deliver",
  outcomes: [{ status: "ok", output: { sent: true }, evidence: { message_id: "m-1" } }],
});

/** The host's order-support chart: it runs the agent, approves what the run asks, and ends with the run's result. */
function orderSupport(runtime: AgentRuntime, autoApprove: boolean) {
  return setup({
    types: {
      context: {} as { seen: LoopEvent["type"][]; result: AgentRunResult | null },
      events: {} as AgentRunNotice | { type: "GIVE_UP" },
    },
    actors: { agentRun: fromAgentRun(runtime) },
  }).createMachine({
    context: { seen: [], result: null },
    initial: "answering",
    states: {
      answering: {
        invoke: {
          id: "run",
          src: "agentRun",
          input: {
            sessionId: "order-7",
            input: "Tell the customer their order shipped.",
            contract: { evidenceMode: "deliver" },
            approval: { kinds: ["deliver"] },
            provider: scriptedProvider([
              callStep("c1", "send_message", { text: "Your order shipped." }),
              textStep("I sent the message (m-1)."),
            ]),
            tools: [sendTool],
          },
          onDone: { target: "answered", actions: assign({ result: ({ event }) => event.output }) },
        },
        on: {
          "agentloop.event": {
            actions: [
              assign({ seen: ({ context, event }) => [...context.seen, event.event.type] }),
              ({ event, self }) => {
                if (autoApprove && event.event.type === "approval_requested") {
                  self
                    .getSnapshot()
                    .children.run?.send({ type: "APPROVE", callId: event.event.callId, decidedBy: "host-chart" });
                }
              },
            ],
          },
          GIVE_UP: "gaveUp",
        },
      },
      answered: { type: "final" },
      gaveUp: { type: "final" },
    },
  });
}

describe("fromAgentRun", () => {
  it("a host machine invokes a run, approves its waiting call, hears its events and gets its result as output", async () => {
    const runtime = await harness.makeRuntime();
    const host = createActor(orderSupport(runtime, true)).start();
    await toPromise(host);
    const { result, seen } = host.getSnapshot().context;
    expect(result).toMatchObject({ terminalState: "completed" });
    expect(seen).toContain("approval_requested");
    expect(seen).toContain("tool_result");
    expect(seen.at(-1)).toBe("done");
    const receipts = await runtime.ledger.listReceipts(result!.runId);
    expect(receipts.map((receipt) => [receipt.toolName, receipt.status])).toEqual([["send_message", "ok"]]);
  });

  it("leaving the state that invoked the run cancels the run", async () => {
    const runtime = await harness.makeRuntime();
    const machine = setup({
      types: { events: {} as AgentRunNotice | { type: "GIVE_UP" } },
      actors: { agentRun: fromAgentRun(runtime) },
    }).createMachine({
      initial: "answering",
      states: {
        answering: {
          invoke: {
            src: "agentRun",
            input: {
              runId: "given-up",
              sessionId: "s",
              input: "Wait.",
              provider: scriptedProvider([callStep("c1", "wait_for_operator", {}), textStep("Stopped.")]),
              tools: [waitUntilAborted],
            },
          },
          on: { GIVE_UP: "gaveUp" },
        },
        gaveUp: { type: "final" },
      },
    });
    const host = createActor(machine).start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    host.send({ type: "GIVE_UP" });
    const deadline = Date.now() + 10_000;
    while ((await runtime.ledger.getRun("given-up"))?.terminalState === "running" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const run = await runtime.ledger.getRun("given-up");
    expect([run?.terminalState, run?.failureCode]).toEqual(["cancelled", "cancelled_by_user"]);
  });

  it("with the host's inspect set, the run and its tool batch appear under the actor that invoked it", async () => {
    const runtime = await harness.makeRuntime();
    const actors: AnyActorRef[] = [];
    const host = createActor(orderSupport(runtime, true), {
      inspect: (event: InspectionEvent) => {
        if (event.type === "@xstate.actor") actors.push(event.actorRef as AnyActorRef);
      },
    }).start();
    await toPromise(host);
    const runId = host.getSnapshot().context.result!.runId;
    const runActor = actors.find((actor) => actor.id === runId);
    // host → the invoked fromAgentRun actor → the callback that started the run → the run
    const ancestors: AnyActorRef[] = [];
    for (let actor = runActor?._parent; actor !== undefined; actor = actor._parent) ancestors.push(actor);
    expect(ancestors.map((actor) => actor.id)).toEqual(["run", "run", host.id]);
    expect(ancestors.at(-1)).toBe(host);
    const batch = actors.find((actor) => actor.id === "toolBatch");
    expect(batch?._parent).toBe(runActor);
  });

  it("two runs invoked side by side in one host system each drive their own tools", async () => {
    const runtime = await harness.makeRuntime();
    const runOf = (sessionId: string, messageId: string) => ({
      sessionId,
      input: "Tell the customer.",
      contract: { evidenceMode: "deliver" as const },
      provider: scriptedProvider([
        callStep("c1", "send_message", { text: sessionId }),
        textStep(`I sent the message (${messageId}).`),
      ]),
      tools: [sendTool],
    });
    const machine = setup({ actors: { agentRun: fromAgentRun(runtime) } }).createMachine({
      type: "parallel",
      states: {
        first: {
          initial: "running",
          states: {
            running: { invoke: { src: "agentRun", input: runOf("a", "m-1"), onDone: "done" } },
            done: { type: "final" },
          },
        },
        second: {
          initial: "running",
          states: {
            running: { invoke: { src: "agentRun", input: runOf("b", "m-1"), onDone: "done" } },
            done: { type: "final" },
          },
        },
      },
    });
    const host = createActor(machine).start();
    await toPromise(host);
    const runs = await runtime.ledger.listRuns({});
    expect(runs.map((run) => [run.sessionId, run.terminalState]).sort()).toEqual([
      ["a", "completed"],
      ["b", "completed"],
    ]);
  });

  it("a run that cannot start is the child's error", async () => {
    const runtime = await harness.makeRuntime();
    const machine = setup({ actors: { agentRun: fromAgentRun(runtime) } }).createMachine({
      context: { error: "" },
      initial: "answering",
      states: {
        answering: {
          invoke: {
            src: "agentRun",
            input: { agent: "nobody", sessionId: "s", input: "Hi" },
            onError: { target: "failed", actions: assign({ error: ({ event }) => String(event.error) }) },
          },
        },
        failed: { type: "final" },
      },
    });
    const host = createActor(machine).start();
    await toPromise(host);
    expect(host.getSnapshot().context.error).toContain('no agent named "nobody"');
  });

  it("resumes a parked run from its ledger, approves its waiting call and branches on the terminal state", async () => {
    const file = harness.dbFile();
    const first = await harness.makeRuntime({ database: file });
    const parked = first.startRun({
      sessionId: "order-9",
      input: "Tell the customer their order shipped.",
      contract: { evidenceMode: "deliver" },
      approval: { kinds: ["deliver"] },
      provider: scriptedProvider([callStep("c1", "send_message", { text: "Your order shipped." })]),
      tools: [sendTool],
    });
    for await (const event of parked.events) if (event.type === "approval_requested") break;
    await first.dispose();

    const second = await harness.makeRuntime({ database: file });
    const machine = setup({
      types: { events: {} as AgentRunNotice },
      actors: { agentRun: fromAgentRun(second) },
    }).createMachine({
      initial: "resuming",
      states: {
        resuming: {
          invoke: {
            id: "run",
            src: "agentRun",
            input: {
              resumeRunId: parked.runId,
              approval: { kinds: ["deliver"] },
              provider: scriptedProvider([textStep("I sent the message (m-1).")]),
              tools: [sendTool],
            },
            onDone: [
              { guard: ({ event }) => event.output.terminalState === "completed", target: "answered" },
              { target: "escalated" },
            ],
          },
          on: {
            "agentloop.event": {
              actions: ({ event, self }) => {
                if (event.event.type === "approval_requested") {
                  self.getSnapshot().children.run?.send({ type: "APPROVE", callId: event.event.callId });
                }
              },
            },
          },
        },
        answered: { type: "final" },
        escalated: { type: "final" },
      },
    });
    const host = createActor(machine).start();
    await toPromise(host);
    expect(host.getSnapshot().value).toBe("answered");
    const run = await second.ledger.getRun(parked.runId);
    expect(run?.terminalState).toBe("completed");
  });

  it("a run that cannot be resumed is the child's error", async () => {
    const runtime = await harness.makeRuntime();
    const machine = setup({ actors: { agentRun: fromAgentRun(runtime) } }).createMachine({
      context: { error: "" },
      initial: "resuming",
      states: {
        resuming: {
          invoke: {
            src: "agentRun",
            input: { resumeRunId: "no-such-run", provider: scriptedProvider([]) },
            onError: { target: "failed", actions: assign({ error: ({ event }) => String(event.error) }) },
          },
        },
        failed: { type: "final" },
      },
    });
    const host = createActor(machine).start();
    await toPromise(host);
    expect(host.getSnapshot().context.error).toContain("no-such-run");
  });
});
