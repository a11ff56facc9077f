import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import type { ContextMessage } from "../../src/domain/index.js";
import { SessionRunner } from "../../src/host/sessionRunner.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import type { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { type BuiltContext, buildContext } from "../../src/services/contextBuilder.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { messageTokens, type TokenCounter, tokenCounterFor } from "../../src/services/tokens.js";
import { projectRuns } from "../../src/services/transcriptProjector.js";
import { callStep, lookupTool, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-history-");
const TURNS = 40;
const INPUT = "Next question.";

/** Turn i: a call with a unique id, some narration, then an answer of varying length. */
async function makeSession(runtime: AgentRuntime) {
  const runner = new SessionRunner(runtime);
  for (let i = 0; i < TURNS; i++) {
    const provider = scriptedProvider([
      callStep(`c${i}`, "lookup", { i }, i % 3 === 0 ? `Narration ${i}.` : undefined),
      textStep(`Answer ${i}: ${"detail ".repeat((i * 13) % 40)}`),
    ]);
    const handle = await runner.startTurn({
      sessionId: "s",
      input: `Question ${i}: ${"context ".repeat(i % 7)}`,
      provider,
      tools: [lookupTool()],
    });
    expect((await handle.settled).terminalState).toBe("completed");
  }
  const ledgers = await runtime.run(
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      return yield* store.loadRunLedgers(yield* store.listRuns({ sessionId: "s", endedOnly: true }));
    }),
  );
  return { ledgers, rows: ledgers.reduce((sum, ledger) => sum + 1 + ledger.events.length + ledger.receipts.length, 0) };
}

/** What a caller sees; droppedGroups counts only the groups that were read. */
const seen = ({ droppedGroups: _, ...context }: BuiltContext) => context;

describe("SessionRunner reading a long session", () => {
  it("stops reading runs once older ones cannot change the context, which equals the one built from every run", async () => {
    const runtime = await harness.makeRuntime();
    const { ledgers, rows } = await makeSession(runtime);
    const provider = scriptedProvider([]);
    const counter = tokenCounterFor(provider.apiFamily, provider.model);
    const everything = projectRuns(ledgers);
    const read: number[] = [];
    const compacted: number[] = [];
    for (const contextBudgetTokens of [300, 700, 1_200, 1_000_000]) {
      const history = await new SessionRunner(runtime, { contextBudgetTokens, pageSize: 3 }).history(
        "s",
        provider,
        INPUT,
        { system: false },
      );
      const budgetTokens = contextBudgetTokens - messageTokens({ role: "user", content: INPUT }, counter);
      const expected = buildContext({ history: everything, budgetTokens, counter });
      expect(seen(history.context), `budget ${contextBudgetTokens}`).toEqual(seen(expected));
      read.push(history.rowsRead);
      compacted.push(expected.compactedGroups);
    }
    // The smaller budgets trim older runs (summarizing some of them), and read only part of the session.
    expect(compacted.filter((groups) => groups > 0).length).toBeGreaterThanOrEqual(2);
    expect(read.slice(0, 3).every((rowsRead) => rowsRead < rows)).toBe(true);
    expect(read).toEqual([...read].sort((a, b) => a - b));
    expect(read.at(-1)).toBe(rows);
  });

  it("counts each message's tokens once between reading the runs and building the context", async () => {
    const runtime = await harness.makeRuntime();
    await makeSession(runtime);
    const counted: string[] = [];
    const tokenCounter: TokenCounter = {
      encoding: "o200k_base",
      count: (text) => {
        counted.push(text);
        return Math.ceil(text.length / 4);
      },
    };
    const runner = new SessionRunner(runtime, { contextBudgetTokens: 1_500, pageSize: 4, tokenCounter });
    const { context } = await runner.history("s", scriptedProvider([]), INPUT);
    expect(context.compactedGroups).toBeGreaterThan(0);
    // Questions, answers and call ids are unique to their message: each is counted exactly once.
    const unique = (message: ContextMessage) =>
      message.role === "tool"
        ? [message.callId]
        : /^(Question|Answer) \d+:/.test(message.content)
          ? [message.content]
          : [];
    const texts = context.messages.flatMap(unique);
    expect(texts.length).toBeGreaterThan(10);
    for (const text of texts)
      expect(
        counted.filter((entry) => entry === text),
        text,
      ).toHaveLength(1);
  });
});

describe("SessionRunner with a provider that numbers its calls the same way every turn", () => {
  const turn = async (runner: SessionRunner, i: number) => {
    const handle = await runner.startTurn({
      sessionId: "numbered",
      input: `Question ${i}`,
      provider: scriptedProvider([callStep("call_0", "lookup", { i }), textStep(`Answer ${i}`)]),
      tools: [lookupTool()],
    });
    expect((await handle.settled).terminalState).toBe("completed");
    return handle;
  };

  it("gives the new run's call an id the replayed history does not hold", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await turn(runner, 1);
    const second = await turn(runner, 2);
    const calls = second.transcript
      .getSnapshot()
      .context.messages.flatMap((message) => (message.role === "assistant" ? message.toolCalls : []))
      .map((call) => call.id);
    expect(calls).toEqual(["call_0", "call_0_2"]);
  });

  it("replays every turn's call and result, renaming an older run's id that a newer run holds", async () => {
    const runtime = await harness.makeRuntime();
    const runner = new SessionRunner(runtime);
    for (let i = 1; i <= 3; i++) await turn(runner, i);
    const history = await runner.history("numbered", scriptedProvider([]), "Next");
    const messages = history.context.messages as ReadonlyArray<ContextMessage>;
    const calls = messages.flatMap((message) => (message.role === "assistant" ? message.toolCalls : []));
    const results = messages.flatMap((message) => (message.role === "tool" ? [message.callId] : []));
    expect(calls.map((call) => call.arguments)).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(3);
    expect(results).toEqual(calls.map((call) => call.id));
  });
});
