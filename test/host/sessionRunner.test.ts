import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import {
  type CassetteModelStep,
  type ContextMessage,
  NONE_CONTRACT,
  type ProviderCapabilities,
} from "../../src/domain/index.js";
import { SessionRunner, type SessionRunnerOptions, type TurnOptions } from "../../src/host/sessionRunner.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { MemoryTurnStore, type NewMemoryTurn } from "../../src/persistence/MemoryTurnStore.js";
import type { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import type { Provider, ProviderRequest } from "../../src/services/providers/Provider.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { anthropicToolFields, toAnthropicConversation } from "../../src/services/providers/serializers/anthropic.js";
import { chatToolFields, toChatMessages } from "../../src/services/providers/serializers/openaiChat.js";
import { responsesToolFields, toResponsesInput } from "../../src/services/providers/serializers/openaiResponses.js";
import type { AnyToolDefinition } from "../../src/services/tools/Tool.js";
import { BASE_PROMPT } from "../../src/services/workspace/prompt.js";
import { anthropicProtocol } from "../support/fakeServers/anthropic.js";
import { openAIChatProtocol } from "../support/fakeServers/openaiChat.js";
import { openAIResponsesProtocol } from "../support/fakeServers/openaiResponses.js";
import {
  callStep,
  finish,
  fixture,
  lookupTool,
  readLedger,
  textStep,
  useRuntimeHarness,
} from "../support/runtimeHarness.js";
import {
  type AnthropicWireMessage,
  anthropicProblems,
  type ChatWireMessage,
  chatProblems,
  responsesProblems,
  wireProblems,
} from "../support/wireValidators.js";

const harness = useRuntimeHarness("agentloop-session-");

/** A scripted provider that keeps every request it was sent. */
function recordingProvider(
  steps: ReadonlyArray<CassetteModelStep>,
  options: { id?: string; capabilities?: Partial<ProviderCapabilities> } = {},
) {
  const inner = scriptedProvider(steps, { ...(options.capabilities ? { capabilities: options.capabilities } : {}) });
  const requests: ProviderRequest[] = [];
  const provider: Provider = {
    ...inner,
    id: options.id ?? inner.id,
    sample: (request) =>
      Effect.suspend(() => {
        requests.push(request);
        return inner.sample(request);
      }),
  };
  return { provider, requests };
}

interface TurnSpec extends Partial<Omit<TurnOptions, "provider">> {
  readonly steps: ReadonlyArray<CassetteModelStep>;
  readonly providerId?: string;
  readonly capabilities?: Partial<ProviderCapabilities>;
}

/** Runs one turn to the end (dual-write included); returns its handle, result and provider requests. */
async function turn(runner: SessionRunner, input: string, spec: TurnSpec) {
  const { steps, providerId, capabilities, ...options } = spec;
  const { provider, requests } = recordingProvider(steps, {
    ...(providerId ? { id: providerId } : {}),
    ...(capabilities ? { capabilities } : {}),
  });
  const handle = await runner.startTurn({
    sessionId: "s",
    tools: [lookupTool()],
    // These tests read the replayed history; the default base prompt has its own tests.
    system: false,
    ...options,
    input,
    provider,
  });
  const result = await handle.settled;
  return { handle, result, requests, firstRequest: requests[0]?.messages ?? [] };
}

const lookupTurn = (id = "c1", answer = "Item 1 is 'item'."): TurnSpec => ({
  steps: [callStep(id, "lookup", { i: 1 }, "Looking it up."), textStep(answer)],
});

const listSession = (runtime: AgentRuntime, sessionId = "s") =>
  runtime.run(Effect.flatMap(MemoryTurnStore, (turns) => turns.listSession(sessionId)));
const listSessions = (runtime: AgentRuntime) =>
  runtime.run(Effect.flatMap(MemoryTurnStore, (turns) => turns.listSessions()));
const seedTurns = (runtime: AgentRuntime, turns: ReadonlyArray<NewMemoryTurn>) =>
  runtime.run(Effect.flatMap(MemoryTurnStore, (store) => store.append(turns)));

const roles = (messages: ReadonlyArray<ContextMessage>) =>
  messages.map((message) =>
    message.role === "assistant" && message.toolCalls.length > 0
      ? `assistant+calls(${message.toolCalls.map((call) => call.id).join(",")})`
      : message.role === "tool"
        ? `tool(${message.callId})`
        : message.role,
  );

const hoursAgo = (hours: number, plusSeconds = 0) =>
  new Date(Date.now() - hours * 3_600_000 + plusSeconds * 1_000).toISOString();

/** Two visible turns of an old session that has no ledger. */
const legacyTurns = (sessionId = "s"): NewMemoryTurn[] => [
  { sessionId, role: "user", content: "What is the capital of France?", source: "chat", createdAt: hoursAgo(2) },
  { sessionId, role: "assistant", content: "Paris.", source: "chat", createdAt: hoursAgo(2, 1) },
];

describe("SessionRunner history replay", () => {
  it("sends the next turn the previous turn's tool call and its recorded result, not just the assistant's claim", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, "Check item 1.", lookupTurn());
    const { firstRequest } = await turn(runner, "And item 2?", { steps: [textStep("I will check.")] });
    expect(firstRequest.slice(0, 4)).toEqual([
      { role: "user", content: "Check item 1." },
      {
        role: "assistant",
        content: "Looking it up.",
        toolCalls: [{ id: "c1", name: "lookup", arguments: { i: 1 } }],
        provenance: "ledger",
      },
      {
        role: "tool",
        callId: "c1",
        toolName: "lookup",
        isError: false,
        content: '{"value":"item"}',
        facts: expect.stringMatching(/^status ok; output_sha256=[0-9a-f]{64}$/),
      },
      { role: "assistant", content: "Item 1 is 'item'.", toolCalls: [], provenance: "ledger" },
    ]);
    expect(firstRequest.at(-1)).toEqual({ role: "user", content: "And item 2?" });
  });

  it("replays the turns of a session in order, each before the next", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, "Turn one.", lookupTurn("c1", "Answer one."));
    await turn(runner, "Turn two.", lookupTurn("c2", "Answer two."));
    const { firstRequest } = await turn(runner, "Turn three.", { steps: [textStep("Answer three.")] });
    expect(roles(firstRequest)).toEqual([
      "user",
      "assistant+calls(c1)",
      "tool(c1)",
      "assistant",
      "user",
      "assistant+calls(c2)",
      "tool(c2)",
      "assistant",
      "user",
    ]);
    expect(firstRequest.filter((message) => message.role === "user").map((message) => message.content)).toEqual([
      "Turn one.",
      "Turn two.",
      "Turn three.",
    ]);
  });

  it("returns the built context it sent as the turn's history", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, "Check item 1.", lookupTurn());
    const { handle, firstRequest } = await turn(runner, "Again.", { steps: [textStep("Done.")] });
    expect(firstRequest).toEqual([...handle.history.context.messages, { role: "user", content: "Again." }]);
    expect(handle.history.rowsRead).toBeGreaterThan(0);
  });

  it("puts the system prompt and the skill catalog first", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, "Check item 1.", lookupTurn());
    const { firstRequest } = await turn(runner, "Again.", {
      steps: [textStep("Done.")],
      system: "You are the agent.",
      skills: [{ name: "deploy", description: "Deploys the service." }],
    });
    expect(firstRequest[0]).toEqual({
      role: "system",
      content: expect.stringMatching(/^You are the agent\.\n\n[\s\S]*- deploy: Deploys the service\.$/),
    });
  });

  it("sends the base prompt (the evidence rules) as the system prompt when the host passes none", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    const { provider, requests } = recordingProvider([textStep("Hello.")]);
    const handle = await runner.startTurn({ sessionId: "s", input: "Hi.", provider });
    expect((await handle.settled).terminalState).toBe("completed");
    expect(requests[0]!.messages[0]).toEqual({ role: "system", content: BASE_PROMPT });
    expect(handle.history.context.messages[0]).toEqual({ role: "system", content: BASE_PROMPT });
    const peek = await runner.history("s", recordingProvider([]).provider, "Next?");
    expect(peek.context.messages[0]).toEqual({ role: "system", content: BASE_PROMPT });
  });

  it("puts the skill catalog after the default base prompt", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    const { provider, requests } = recordingProvider([textStep("Hello.")]);
    await (
      await runner.startTurn({
        sessionId: "s",
        input: "Hi.",
        provider,
        skills: [{ name: "deploy", description: "Deploys the service." }],
      })
    ).settled;
    const system = requests[0]!.messages[0]!;
    expect(system.role).toBe("system");
    expect(system.content.startsWith(`${BASE_PROMPT}\n\n`)).toBe(true);
    expect(system.content).toMatch(/- deploy: Deploys the service\.$/);
  });

  it("sends no system prompt when the host opts out with system: false", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    const { provider, requests } = recordingProvider([textStep("Hello.")]);
    await (await runner.startTurn({ sessionId: "s", input: "Hi.", provider, system: false })).settled;
    expect(requests[0]!.messages).toEqual([{ role: "user", content: "Hi." }]);
  });

  it("replays a run that ended unverified with its terminal state, not as a completed answer", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, "Check item 1.", {
      signals: { command: "/check" },
      steps: [textStep("I have checked it."), textStep("I have checked it.")],
    });
    const { firstRequest } = await turn(runner, "Well?", { steps: [textStep("Sorry.")] });
    expect(firstRequest.map((message) => message.content)).toEqual([
      "Check item 1.",
      "[run ended unverified/receipt_missing: not completed] The model's last reply, unverified: I have checked it.",
      "Well?",
    ]);
  });

  it("pages back through runs that started in the same millisecond without losing any", async () => {
    const runtime = await harness.makeRuntime();
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    await runtime.run(
      Effect.gen(function* () {
        const store = yield* AgentRunStore;
        for (const n of [1, 2, 3, 4, 5]) {
          const runId = `run_${n}`;
          yield* store.createRun({
            runId,
            sessionId: "s",
            traceId: `trace_${n}`,
            contract: NONE_CONTRACT,
            providerId: "scripted",
            startedAt,
          });
          yield* store.appendEvents(runId, [
            { sequence: 1, type: "user_input", payload: { text: `Question ${n}.`, origin: "user" } },
            {
              sequence: 2,
              type: "assistant_output",
              payload: { step: 1, text: `Answer ${n}.`, finishReason: "stop", toolCallCount: 0, role: "answer" },
            },
          ]);
          yield* store.finishRun(runId, {
            sequence: 3,
            terminal: {
              terminalState: "completed",
              reason: "answered",
              finalText: `Answer ${n}.`,
              steps: 1,
              correctionTurns: 0,
            },
          });
        }
      }),
    );
    for (const pageSize of [1, 2, 64]) {
      const history = await new SessionRunner(runtime, { pageSize }).history("s", recordingProvider([]).provider);
      expect(
        history.context.messages.filter((message) => message.role === "user").map((message) => message.content),
        `pageSize ${pageSize}`,
      ).toEqual(["Question 1.", "Question 2.", "Question 3.", "Question 4.", "Question 5."]);
    }
  });

  it("replays a crashed run's unfinished call as interrupted after start-up recovery, never as a success", async () => {
    const first = await harness.makeRuntime();
    await first.run(
      Effect.gen(function* () {
        const store = yield* AgentRunStore;
        yield* store.createRun({
          runId: "run_crashed",
          sessionId: "s",
          traceId: "trace_crashed",
          contract: NONE_CONTRACT,
          providerId: "scripted",
          model: "cassette",
          apiFamily: "scripted",
        });
        yield* store.appendEvents("run_crashed", [
          { sequence: 1, type: "user_input", payload: { text: "Deploy v2.", origin: "user" } },
          {
            sequence: 2,
            type: "tool_call",
            payload: { step: 1, callId: "d1", toolName: "deploy", arguments: {}, inputFingerprint: "0".repeat(64) },
          },
        ]);
        // The executor was invoked (its start record is durable) when the process died.
        yield* store.startCalls("run_crashed", [
          { callId: "d1", toolName: "deploy", mayRepeat: false, startedAt: new Date().toISOString() },
        ]);
      }),
    );
    await first.dispose();
    const second = await harness.makeRuntime();
    expect(second.recovered).toEqual([{ runId: "run_crashed", sessionId: "s", cancelledCallIds: ["d1"] }]);
    const { firstRequest } = await turn(new SessionRunner(second), "Did it deploy?", { steps: [textStep("Unknown.")] });
    expect(roles(firstRequest)).toEqual(["user", "assistant+calls(d1)", "tool(d1)", "assistant", "user"]);
    const result = firstRequest[2] as Extract<ContextMessage, { role: "tool" }>;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^\[interrupted\] .*Verify the current state before repeating it\.$/);
    expect(result.facts).toMatch(/^status cancelled \(interrupted\)/);
    expect(firstRequest[3]!.content).toBe("[run ended failed/interrupted: not completed]");
    expect(wireProblems(firstRequest)).toEqual([]);
  });
});

describe("SessionRunner dual-write to memory_turns", () => {
  it("writes the user input and the final text with source agentloop and the run's metadata after each turn", async () => {
    const runtime = await harness.makeRuntime();
    const runner = new SessionRunner(runtime);
    const one = await turn(runner, "Check item 1.", lookupTurn());
    expect(await listSession(runtime)).toHaveLength(2);
    const two = await turn(runner, "Thanks.", { steps: [textStep("You're welcome.")] });
    const metadataOf = (result: typeof one.result) => ({
      runId: result.runId,
      traceId: result.traceId,
      terminalState: "completed",
      reason: result.terminalReason,
    });
    expect(
      (await listSession(runtime)).map(({ role, content, source, metadata }) => ({ role, content, source, metadata })),
    ).toEqual([
      { role: "user", content: "Check item 1.", source: "agentloop", metadata: metadataOf(one.result) },
      { role: "assistant", content: "Item 1 is 'item'.", source: "agentloop", metadata: metadataOf(one.result) },
      { role: "user", content: "Thanks.", source: "agentloop", metadata: metadataOf(two.result) },
      { role: "assistant", content: "You're welcome.", source: "agentloop", metadata: metadataOf(two.result) },
    ]);
    expect(one.result.terminalReason).toBe("answered");
  });

  it("records a non-completed turn's terminal state and reason in the metadata", async () => {
    const runtime = await harness.makeRuntime();
    const { result } = await turn(new SessionRunner(runtime), "Check item 1.", {
      signals: { command: "/check" },
      steps: [textStep("Checked."), textStep("Checked.")],
    });
    const [, assistant] = await listSession(runtime);
    expect(assistant!.metadata).toEqual({
      runId: result.runId,
      traceId: result.traceId,
      terminalState: "unverified",
      reason: "receipt_missing",
    });
  });

  it("shows the session in the session list with one row per visible message, unchanged by history reads and direct runs", async () => {
    const runtime = await harness.makeRuntime();
    const runner = new SessionRunner(runtime);
    await turn(runner, "One.", lookupTurn("c1"));
    await turn(runner, "Two.", lookupTurn("c2"));
    await turn(runner, "Elsewhere.", { sessionId: "other", steps: [textStep("Hi.")] });
    const before = await listSessions(runtime);
    expect(before.map(({ sessionId, turns }) => ({ sessionId, turns }))).toEqual([
      { sessionId: "other", turns: 2 },
      { sessionId: "s", turns: 4 },
    ]);
    await runner.history("s", recordingProvider([]).provider, "peek");
    await finish(
      runtime,
      runtime.startRun({ sessionId: "s", input: "direct", provider: scriptedProvider([textStep("ok")]) }),
    );
    expect(await listSessions(runtime)).toEqual(before);
  });
});

describe("SessionRunner with sessions that have no ledger", () => {
  it("loads an old session's visible turns as legacy_unverified history and continues it", async () => {
    const runtime = await harness.makeRuntime();
    await seedTurns(runtime, legacyTurns());
    const runner = new SessionRunner(runtime);
    const { handle, firstRequest } = await turn(runner, "And of Italy?", { steps: [textStep("Rome.")] });
    expect(handle.history.legacyFallback).toBe(true);
    expect(firstRequest).toEqual([
      { role: "user", content: "What is the capital of France?" },
      { role: "assistant", content: "Paris.", toolCalls: [], provenance: "legacy_unverified" },
      { role: "user", content: "And of Italy?" },
    ]);
    expect((await listSessions(runtime)).map(({ sessionId, turns }) => ({ sessionId, turns }))).toEqual([
      { sessionId: "s", turns: 4 },
    ]);
  });

  it("puts the legacy turns first and the ledger turns after them in later turns", async () => {
    const runtime = await harness.makeRuntime();
    await seedTurns(runtime, legacyTurns());
    const runner = new SessionRunner(runtime);
    await turn(runner, "Check item 1.", lookupTurn());
    const { handle, firstRequest } = await turn(runner, "Thanks.", { steps: [textStep("Welcome.")] });
    expect(handle.history.legacyFallback).toBe(true);
    expect(roles(firstRequest)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant+calls(c1)",
      "tool(c1)",
      "assistant",
      "user",
    ]);
    expect(firstRequest[1]).toMatchObject({ content: "Paris.", provenance: "legacy_unverified" });
    expect(firstRequest[3]).toMatchObject({ provenance: "ledger" });
    // The dual-written agentloop turns are not replayed a second time as legacy turns.
    expect(firstRequest.filter((message) => message.content === "Check item 1.")).toHaveLength(1);
  });

  it("reports no legacy fallback for a session whose history is all in the ledger", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, "Check item 1.", lookupTurn());
    const { handle } = await turn(runner, "Thanks.", { steps: [textStep("Welcome.")] });
    expect(handle.history.legacyFallback).toBe(false);
  });

  it("reports no legacy fallback for a new empty session", async () => {
    const { handle, firstRequest } = await turn(new SessionRunner(await harness.makeRuntime()), "Hi.", {
      steps: [textStep("Hello.")],
    });
    expect(handle.history.legacyFallback).toBe(false);
    expect(firstRequest).toEqual([{ role: "user", content: "Hi." }]);
  });

  it("ignores the legacy turns when legacyHistoryMode is off", async () => {
    const runtime = await harness.makeRuntime();
    await seedTurns(runtime, legacyTurns());
    const runner = new SessionRunner(runtime, { flags: { legacyHistoryMode: "off" } });
    const { handle, firstRequest } = await turn(runner, "And of Italy?", { steps: [textStep("Rome.")] });
    expect(handle.history.legacyFallback).toBe(false);
    expect(firstRequest).toEqual([{ role: "user", content: "And of Italy?" }]);
  });

  it("reads only the visible turns when the canonical ledger is disabled", async () => {
    const runtime = await harness.makeRuntime();
    const runner = new SessionRunner(runtime, { flags: { canonicalLedgerEnabled: false } });
    await turn(runner, "Check item 1.", lookupTurn());
    const { handle, firstRequest } = await turn(runner, "Thanks.", { steps: [textStep("Welcome.")] });
    expect(firstRequest).toEqual([
      { role: "user", content: "Check item 1." },
      { role: "assistant", content: "Item 1 is 'item'.", toolCalls: [], provenance: "legacy_unverified" },
      { role: "user", content: "Thanks." },
    ]);
    expect(handle.history.legacyFallback).toBe(true);
  });
});

describe("SessionRunner replay modes", () => {
  const summaryOf = (messages: ReadonlyArray<ContextMessage>) =>
    messages.filter((message) => message.content.startsWith("Verified execution receipts"));
  const hasProtocol = (messages: ReadonlyArray<ContextMessage>) =>
    messages.some(
      (message) => message.role === "tool" || (message.role === "assistant" && message.toolCalls.length > 0),
    );

  it("replays earlier runs as a receipt summary after a switch to another provider", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, "Check item 1.", lookupTurn());
    const { firstRequest } = await turn(runner, "Thanks.", { providerId: "other", steps: [textStep("Welcome.")] });
    expect(hasProtocol(firstRequest)).toBe(false);
    expect(firstRequest.map((message) => message.role)).toEqual(["user", "user", "assistant", "user"]);
    expect(summaryOf(firstRequest)).toEqual([
      {
        role: "user",
        content: expect.stringMatching(
          /^Verified execution receipts .*\n- call_id: c1, tool: lookup, status ok; output_sha256=[0-9a-f]{64}; output: "\{\\"value\\":\\"item\\"\}"$/,
        ),
      },
    ]);
  });

  it("replays only the other provider's runs as summaries, and its own runs as protocol", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, "One.", lookupTurn("c1"));
    await turn(runner, "Two.", { ...lookupTurn("c2"), providerId: "other" });
    const { firstRequest } = await turn(runner, "Three.", { providerId: "other", steps: [textStep("Done.")] });
    expect(summaryOf(firstRequest)).toHaveLength(1);
    expect(summaryOf(firstRequest)[0]!.content).toContain("call_id: c1");
    expect(roles(firstRequest)).toEqual([
      "user",
      "user",
      "assistant",
      "user",
      "assistant+calls(c2)",
      "tool(c2)",
      "assistant",
      "user",
    ]);
  });

  it("replays the history as receipt summaries for a provider without tool calling", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, "Check item 1.", lookupTurn());
    const { firstRequest } = await turn(runner, "Thanks.", {
      capabilities: { toolCalling: false },
      steps: [textStep("Welcome.")],
    });
    expect(hasProtocol(firstRequest)).toBe(false);
    expect(summaryOf(firstRequest)[0]!.content).toContain("- call_id: c1, tool: lookup, status ok");
  });

  it("keeps what the tool returned in turn 1 in turn 2's history, for a provider without tool calling", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    const tracking = fixture({
      name: "track_parcel",
      kind: "observe",
      outcomes: [{ status: "ok", output: { tracking: "JJD0099887766" } }],
    });
    await turn(runner, "Where is my parcel?", {
      tools: [tracking],
      steps: [callStep("c1", "track_parcel", { order: "A-17" }), textStep("It is on its way.")],
    });
    const { firstRequest } = await turn(runner, "What was the tracking number?", {
      capabilities: { toolCalling: false },
      steps: [textStep("JJD0099887766.")],
    });
    expect(hasProtocol(firstRequest)).toBe(false);
    expect(summaryOf(firstRequest)[0]!.content).toContain("JJD0099887766");
  });
});

describe("SessionRunner contracts", () => {
  it("resolves the contract from the turn's signals: /check becomes an observe contract from the command", async () => {
    const runtime = await harness.makeRuntime();
    const { result } = await turn(new SessionRunner(runtime), "Check item 1.", {
      signals: { command: "/check" },
      ...lookupTurn(),
    });
    const ledger = await readLedger(runtime, result.runId);
    expect(ledger.run!.contract).toMatchObject({ evidenceMode: "observe", source: "command" });
    expect(result).toMatchObject({ terminalState: "completed", terminalReason: "receipts_satisfied" });
  });

  it("gives a turn without signals the none contract", async () => {
    const runtime = await harness.makeRuntime();
    const { result } = await turn(new SessionRunner(runtime), "Hi.", { steps: [textStep("Hello.")] });
    expect((await readLedger(runtime, result.runId)).run!.contract).toMatchObject({
      evidenceMode: "none",
      source: "default",
    });
  });

  it("uses the runner's own contract tables", async () => {
    const runtime = await harness.makeRuntime();
    const runner = new SessionRunner(runtime, { contractTables: { commands: { "/ship": "deliver" }, jobTypes: {} } });
    const { result } = await turn(runner, "Ship it.", {
      signals: { command: "/ship" },
      steps: [textStep("Shipped."), textStep("Shipped.")],
    });
    expect((await readLedger(runtime, result.runId)).run!.contract).toMatchObject({
      evidenceMode: "deliver",
      source: "command",
    });
  });
});

describe("a long session", () => {
  const TURNS = 200;
  const flaky = fixture({
    name: "flaky",
    kind: "observe",
    outcomes: [
      { status: "error", output: { error: "flaked" } },
      { status: "ok", output: { value: "steady" } },
    ],
  });

  /** Turn i: one or two calls (sometimes with commentary), then an answer; some turns end unverified. */
  function script(i: number): { steps: CassetteModelStep[]; signals?: TurnOptions["signals"] } {
    if (i % 17 === 16) {
      return { signals: { command: "/check" }, steps: [textStep(`Claim ${i}.`), textStep(`Claim ${i} again.`)] };
    }
    const calls: NonNullable<CassetteModelStep["toolCalls"]> = [
      { id: `t${i}_a`, name: "lookup", arguments: { i } },
      ...(i % 2 === 1
        ? [{ id: `t${i}_b`, name: i % 3 === 0 ? "flaky" : "lookup", arguments: { i, second: true } }]
        : []),
    ];
    return {
      steps: [
        { ...(i % 4 === 0 ? { text: `Narration for turn ${i}.` } : {}), toolCalls: calls, finishReason: "tool_calls" },
        textStep(`Answer ${i}: the items are looked up and their values recorded in detail.`),
      ],
    };
  }

  async function runSession(options: SessionRunnerOptions, every = 1) {
    const runner = new SessionRunner(await harness.makeRuntime(), options);
    const tools: AnyToolDefinition[] = [lookupTool(), flaky];
    const contexts: Array<{
      index: number;
      messages: ReadonlyArray<ContextMessage>;
      compactedGroups: number;
      droppedGroups: number;
    }> = [];
    const problems: string[] = [];
    let overBudget = 0;
    for (let i = 0; i < TURNS; i++) {
      const { steps, signals } = script(i);
      const { handle, result, requests } = await turn(runner, `Question ${i}: look up the items.`, {
        steps,
        tools,
        ...(signals ? { signals } : {}),
      });
      expect(result.terminalState, `turn ${i}`).toBe(signals ? "unverified" : "completed");
      const context = handle.history.context;
      if (context.overBudget) overBudget += 1;
      contexts.push({
        index: i,
        messages: context.messages,
        compactedGroups: context.compactedGroups,
        droppedGroups: context.droppedGroups,
      });
      if (i % every === 0 || i === TURNS - 1) {
        for (const problem of validateEverywhere(context.messages)) problems.push(`turn ${i} context: ${problem}`);
        requests.forEach((request, n) => {
          for (const problem of wireProblems(request.messages)) problems.push(`turn ${i} request ${n}: ${problem}`);
        });
      }
    }
    return { contexts, problems, overBudget };
  }

  /** Literal translations (nothing repaired) and the real serializers' output, under all three protocols. */
  function validateEverywhere(messages: ReadonlyArray<ContextMessage>): string[] {
    const anthropic = toAnthropicConversation(messages);
    return [
      ...wireProblems(messages),
      ...chatProblems(toChatMessages(messages) as ReadonlyArray<ChatWireMessage>),
      ...responsesProblems(toResponsesInput(messages)),
      ...anthropicProblems(anthropic.messages as ReadonlyArray<AnthropicWireMessage>),
      ...(anthropic.messages.length === 0 || anthropic.messages[0]!.role === "user"
        ? []
        : ["anthropic: the conversation does not open with a user turn"]),
    ];
  }

  it("keeps every built context valid for Chat, Responses and Anthropic over 200 turns with a 2,000-token budget", async () => {
    const { contexts, problems, overBudget } = await runSession({ contextBudgetTokens: 2_000 });
    expect(problems).toEqual([]);
    expect(overBudget).toBe(0);
    // The budget forced compaction (and trimming of what the summary could not hold) long before the end.
    expect(contexts.filter((context) => context.compactedGroups > 0).length).toBeGreaterThan(TURNS / 2);
    expect(contexts.filter((context) => context.droppedGroups > 0).length).toBeGreaterThan(TURNS / 2);
    const last = contexts.at(-1)!.messages;
    expect(last[0]!.content).toMatch(/^\[Summary of \d+ earlier messages/);
    expect(last[0]!.content).toMatch(/- tool lookup \(call t\d+_a\): status ok; output_sha256=[0-9a-f]{64}/);
    expect(last.some((message) => message.role === "tool")).toBe(true);
    // The newest turn is always kept: the last context ends with turn 198's answer.
    expect(contexts.at(-1)!.messages.at(-1)!.content).toMatch(/^Answer 198: /);
    // About 10 s of CPU on an idle machine; the limit only guards against a hang under heavy parallel load.
  }, 180_000);
  it("sends a compacted context that the fake servers of all three protocols accept as a request", async () => {
    const runner = new SessionRunner(await harness.makeRuntime(), { contextBudgetTokens: 600 });
    let last: ProviderRequest | undefined;
    let compacted = 0;
    for (let i = 0; i < 30; i++) {
      const { handle, requests } = await turn(runner, `Question ${i}.`, { ...script(i), tools: [lookupTool(), flaky] });
      compacted += handle.history.context.compactedGroups;
      last = requests[0];
    }
    expect(compacted).toBeGreaterThan(0);
    const { messages, tools } = last!;
    const headers = { authorization: "Bearer test-key" };
    const choice = { mode: "auto" } as const;
    const conversation = toAnthropicConversation(messages);
    expect({
      chat: openAIChatProtocol.validate(
        { model: "gpt-4o", messages: toChatMessages(messages), ...chatToolFields(tools, choice) },
        headers,
      ),
      responses: openAIResponsesProtocol.validate(
        { model: "gpt-4o", input: toResponsesInput(messages), ...responsesToolFields(tools, choice) },
        headers,
      ),
      anthropic: anthropicProtocol.validate(
        { model: "claude-sonnet-4-5", max_tokens: 1024, ...conversation, ...anthropicToolFields(tools, choice) },
        headers,
      ),
    }).toEqual({ chat: undefined, responses: undefined, anthropic: undefined });
  });
});
