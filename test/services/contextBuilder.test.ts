import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContextMessage, ToolCall } from "../../src/domain/index.js";
import {
  type BuiltContext,
  buildContext,
  groupMessages,
  type MessageGroup,
  repairPairing,
  SUMMARY_LINE_OUTPUT_CHARS,
  skillCatalog,
  summarizeGroups,
} from "../../src/services/contextBuilder.js";
import { EARLIER_TURNS_LEFT_OUT, toAnthropicConversation } from "../../src/services/providers/serializers/anthropic.js";
import { messageTokens, type TokenCounter, tokenCounterFor } from "../../src/services/tokens.js";
import {
  anthropicProblems,
  chatProblems,
  literalAnthropic,
  literalChat,
  literalResponses,
  responsesProblems,
  wireProblems,
} from "../support/wireValidators.js";

type ToolMessage = Extract<ContextMessage, { role: "tool" }>;
type AssistantMessage = Extract<ContextMessage, { role: "assistant" }>;

/** A cheap deterministic counter (4 characters a token) keeps the properties fast. */
const counter: TokenCounter = { encoding: "o200k_base", count: (text) => Math.ceil(text.length / 4) };
const tokensOf = (messages: ReadonlyArray<ContextMessage>) =>
  messages.reduce((sum, message) => sum + messageTokens(message, counter), 0);

/** Every piece of assistant narration carries this marker; no summary may contain it. */
const NARRATION = "NARRATION";

const user = (content: string): ContextMessage => ({ role: "user", content });
const assistant = (content: string, toolCalls: ToolCall[] = []): AssistantMessage => ({
  role: "assistant",
  content,
  toolCalls,
  provenance: "ledger",
});
const call = (id: string, name = "lookup"): ToolCall => ({ id, name, arguments: { id } });
const result = (callId: string, toolName = "lookup", content = `output of ${callId}`): ToolMessage => ({
  role: "tool",
  callId,
  toolName,
  content,
  isError: false,
  facts: `status ok; output_sha256=${callId}digest`,
});

// --- Random histories -------------------------------------------------------------------------

const words = fc
  .array(fc.constantFrom("alpha", "beta", "gamma", "delta", "file", "item", "value", "report", "x"), {
    minLength: 0,
    maxLength: 12,
  })
  .map((list) => list.join(" "));

const stepArb = fc.record({
  narrate: fc.boolean(),
  narration: words,
  calls: fc.array(
    fc.record({
      name: fc.constantFrom("lookup", "shell", "send_message"),
      output: words,
      isError: fc.boolean(),
      exitCode: fc.integer({ min: 0, max: 3 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

const runArb = fc.record({
  input: words,
  steps: fc.array(stepArb, { minLength: 0, maxLength: 3 }),
  ending: fc.constantFrom("answer", "ended", "none"),
  answer: words,
});

const legacyArb = fc.array(fc.tuple(words, words), { minLength: 0, maxLength: 2 });

/** A well-formed history: legacy turns, then runs of user message, tool steps and a final reply. */
const historyArb = fc.tuple(legacyArb, fc.array(runArb, { minLength: 1, maxLength: 12 })).map(([legacy, runs]) => {
  const messages: ContextMessage[] = [];
  for (const [question, reply] of legacy) {
    messages.push(user(`legacy question ${question}`));
    messages.push({
      role: "assistant",
      content: `${NARRATION} legacy ${reply}`,
      toolCalls: [],
      provenance: "legacy_unverified",
    });
  }
  runs.forEach((run, r) => {
    messages.push(user(`question ${r} ${run.input}`));
    run.steps.forEach((step, s) => {
      const calls = step.calls.map((spec, k) => call(`call_${r}_${s}_${k}`, spec.name));
      messages.push(assistant(step.narrate ? `${NARRATION} ${r}.${s} ${step.narration}` : "", calls));
      step.calls.forEach((spec, k) => {
        const id = calls[k]!.id;
        messages.push({
          role: "tool",
          callId: id,
          toolName: spec.name,
          content: `${spec.isError ? "error: " : ""}out ${spec.output}`,
          isError: spec.isError,
          facts: `status ${spec.isError ? "error" : "ok"}; output_sha256=d${r}${s}${k}; exit_code=${spec.exitCode}`,
        });
      });
    });
    if (run.ending === "answer") messages.push(assistant(`${NARRATION} answer ${r} ${run.answer}`));
    if (run.ending === "ended") {
      messages.push(
        assistant(`[run ended unverified/receipt_missing: not completed] ${NARRATION} claim ${r} ${run.answer}`),
      );
    }
  });
  return messages;
});

/** A history with a budget anywhere from far too small to more than enough. */
const caseArb = fc
  .tuple(historyArb, fc.integer({ min: 0, max: 1_200 }), fc.boolean())
  .map(([history, permille, compaction]) => ({
    history,
    budgetTokens: Math.floor((tokensOf(history) * permille) / 1_000),
    compaction,
  }));

const build = (input: { history: ContextMessage[]; budgetTokens: number; compaction: boolean }): BuiltContext =>
  buildContext({ history: input.history, budgetTokens: input.budgetTokens, counter, compaction: input.compaction });

const isSummary = (message: ContextMessage) => message.role === "user" && message.content.startsWith("[Summary of ");

/** The output's groups without the runtime's summary message. */
const bodyGroups = (built: BuiltContext) =>
  groupMessages(built.messages.filter((message) => message.role !== "system" && !isSummary(message)));

const RUNS = { numRuns: 300 };

// --- Properties -------------------------------------------------------------------------------

describe("buildContext over random histories and budgets", () => {
  it("answers every assistant tool call with exactly one result directly after its message, and leaves no result without its call", () => {
    fc.assert(
      fc.property(caseArb, (input) => {
        const { messages } = build(input);
        messages.forEach((message, index) => {
          if (message.role === "assistant" && message.toolCalls.length > 0) {
            const following = messages.slice(index + 1, index + 1 + message.toolCalls.length);
            expect(following.map((next) => (next.role === "tool" ? next.callId : `(${next.role})`))).toEqual(
              message.toolCalls.map((toolCall) => toolCall.id),
            );
          }
          if (message.role === "tool") {
            const owner = messages.slice(0, index).findLast((previous) => previous.role !== "tool") as
              | AssistantMessage
              | undefined;
            expect(owner?.role).toBe("assistant");
            expect(owner!.toolCalls.map((toolCall) => toolCall.id)).toContain(message.callId);
          }
        });
        expect(wireProblems(messages)).toEqual([]);
      }),
      RUNS,
    );
  });

  it("opens every Anthropic request built from the context with a user turn, at every budget", () => {
    fc.assert(
      fc.property(caseArb, fc.boolean(), (input, toolsOffered) => {
        const built = build(input);
        const { messages } = toAnthropicConversation(built.messages, { toolsOffered });
        expect(messages[0]?.role).toBe("user");
        // The synthetic opening stands only where the context itself does not open with the user.
        const opensWithUser = built.messages.find((message) => message.role !== "system")?.role === "user";
        expect(JSON.stringify(messages[0]!.content).includes(EARLIER_TURNS_LEFT_OUT)).toBe(!opensWithUser);
      }),
      RUNS,
    );
  });

  it("never splits a group: every output group is identical to one input group", () => {
    fc.assert(
      fc.property(caseArb, (input) => {
        const inputGroups = groupMessages(input.history).map((group) => JSON.stringify(group));
        for (const group of bodyGroups(build(input))) expect(inputGroups).toContain(JSON.stringify(group));
      }),
      RUNS,
    );
  });

  it("removes the oldest groups first: what is kept is the newest suffix of the input groups", () => {
    fc.assert(
      fc.property(caseArb, (input) => {
        const built = build(input);
        const inputGroups = groupMessages(input.history);
        const kept = bodyGroups(built);
        expect(kept.length).toBeGreaterThan(0);
        expect(kept).toEqual(inputGroups.slice(inputGroups.length - kept.length));
        expect(built.compactedGroups + built.droppedGroups).toBe(inputGroups.length - kept.length);
      }),
      RUNS,
    );
  });

  it("keeps the whole history untouched when it fits", () => {
    fc.assert(
      fc.property(historyArb, fc.integer({ min: 0, max: 50 }), (history, slack) => {
        const built = build({ history, budgetTokens: tokensOf(history) + slack, compaction: true });
        expect(built).toMatchObject({ messages: history, compactedGroups: 0, droppedGroups: 0, overBudget: false });
      }),
      { numRuns: 100 },
    );
  });

  it("replaces compacted groups with one summary that carries their tool facts and none of the narration", () => {
    fc.assert(
      fc.property(caseArb, (input) => {
        const built = build(input);
        const summaries = built.messages.filter(isSummary);
        if (built.compactedGroups === 0) {
          expect(summaries).toEqual([]);
          return;
        }
        expect(summaries).toHaveLength(1);
        expect(built.messages[0]).toBe(summaries[0]);
        const summary = summaries[0]!.content;
        expect(summary).not.toContain(NARRATION);
        // Groups older than the compacted ones were trimmed: oldest first, also out of the summary.
        const compacted = groupMessages(input.history)
          .slice(built.droppedGroups, built.droppedGroups + built.compactedGroups)
          .flat();
        for (const message of compacted) {
          if (message.role === "tool") {
            expect(summary).toContain(`- tool ${message.toolName} (call ${message.callId}): ${message.facts}`);
          }
          if (message.role === "assistant" && message.content.startsWith("[run ended")) {
            expect(summary).toContain("- assistant: [run ended unverified/receipt_missing: not completed]");
          }
        }
      }),
      RUNS,
    );
  });

  it("stays within the budget unless even the newest group alone exceeds it", () => {
    fc.assert(
      fc.property(caseArb, (input) => {
        const built = build(input);
        const newest = groupMessages(input.history).at(-1)!;
        if (built.overBudget) {
          expect(tokensOf(newest)).toBeGreaterThan(input.budgetTokens);
          expect(built.messages).toEqual(newest);
        } else {
          expect(built.tokens).toBeLessThanOrEqual(input.budgetTokens);
        }
        expect(built.tokens).toBe(tokensOf(built.messages));
      }),
      RUNS,
    );
  });

  it("puts the system prompt and the skill catalog first and never trims them", () => {
    const skills = [
      { name: "deploy", description: "Deploys the service.", body: "SKILL BODY: run make deploy then check." },
      { name: "triage", description: "Sorts incoming tickets.", body: "SKILL BODY: read every ticket." },
    ];
    fc.assert(
      fc.property(caseArb, (input) => {
        const built = buildContext({ ...input, counter, system: "You are the agent.", skills });
        const [first, ...rest] = built.messages;
        expect(first).toEqual({
          role: "system",
          content: `You are the agent.\n\n${skillCatalog(skills)}`,
        });
        expect(first!.content).toContain("- deploy: Deploys the service.");
        expect(first!.content).toContain("- triage: Sorts incoming tickets.");
        expect(first!.content).not.toContain("SKILL BODY");
        expect(rest.some((message) => message.role === "system")).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it("keeps the newest group whole and reports overBudget when the budget is smaller than that group", () => {
    fc.assert(
      fc.property(historyArb, fc.integer({ min: 0, max: 100 }), (history, permille) => {
        const newest = groupMessages(history).at(-1)!;
        const budgetTokens = Math.floor((tokensOf(newest) * permille) / 1_000);
        fc.pre(budgetTokens < tokensOf(newest));
        const built = build({ history, budgetTokens, compaction: true });
        expect(built.messages).toEqual(newest);
        expect(built.overBudget).toBe(true);
        expect(built.droppedGroups).toBe(groupMessages(history).length - 1);
      }),
      { numRuns: 100 },
    );
  });

  it("drops the history's own system messages", () => {
    const built = buildContext({
      history: [{ role: "system", content: "old system prompt" }, user("hi")],
      budgetTokens: 1_000,
      counter,
      system: "new system prompt",
    });
    expect(built.messages).toEqual([{ role: "system", content: "new system prompt" }, user("hi")]);
  });
});

describe("buildContext trimming and compaction", () => {
  const bigOutput = "x".repeat(2_000);
  const history: ContextMessage[] = [
    user("first question"),
    assistant(`${NARRATION} looking`, [call("a1")]),
    result("a1", "lookup", bigOutput),
    assistant(`${NARRATION} first answer`),
    user("second question"),
    assistant("", [call("b1", "shell"), call("b2", "shell")]),
    result("b1", "shell"),
    result("b2", "shell"),
    assistant(`${NARRATION} second answer`),
  ];
  const lastTwoGroups = history.slice(-4);

  it("compacts the older groups into one summary placed before the kept groups", () => {
    const built = buildContext({ history, budgetTokens: 400, counter });
    // The first question and its large lookup go into the summary; everything after fits.
    expect(built).toMatchObject({ compactedGroups: 2, droppedGroups: 0, overBudget: false });
    expect(built.messages).toEqual([summarizeGroups(groupMessages(history).slice(0, 2)), ...history.slice(3)]);
    expect(built.messages[0]!.content).toContain("- tool lookup (call a1): status ok; output_sha256=a1digest");
    expect(built.messages[0]!.content).not.toContain(bigOutput);
  });

  it("trims the older groups without a summary when compaction is off", () => {
    const built = buildContext({ history, budgetTokens: tokensOf(lastTwoGroups), counter, compaction: false });
    expect(built.messages).toEqual(lastTwoGroups);
    expect(built).toMatchObject({ compactedGroups: 0, droppedGroups: 4, overBudget: false });
  });

  it("trims without a summary when not even a summary of one group fits", () => {
    const built = buildContext({ history, budgetTokens: tokensOf(lastTwoGroups) + 10, counter });
    expect(built.messages.some(isSummary)).toBe(false);
    expect(built.compactedGroups).toBe(0);
    expect(built.messages).toEqual(history.slice(history.length - built.messages.length));
  });

  it("trims the oldest groups out of the summary when a summary of all older groups does not fit", () => {
    const long: ContextMessage[] = Array.from({ length: 12 }, (_, k) => [
      user(`question ${k}`),
      assistant("", [call(`call_${k}`)]),
      result(`call_${k}`, "lookup", "y".repeat(400)),
      assistant(`${NARRATION} answer ${k}`),
    ]).flat();
    const newestRun = long.slice(-4);
    const built = buildContext({ history: long, budgetTokens: tokensOf(newestRun) + 120, counter });
    expect(built.droppedGroups).toBeGreaterThan(0);
    expect(built.compactedGroups).toBeGreaterThan(0);
    expect(built.tokens).toBeLessThanOrEqual(tokensOf(newestRun) + 120);
    const summary = built.messages.find(isSummary)!.content;
    expect(summary).toContain("- tool lookup (call call_10): status ok; output_sha256=call_10digest");
    expect(summary).not.toContain("call_0)");
    expect(built.messages.slice(1)).toEqual(long.slice(long.length - (built.messages.length - 1)));
  });

  it("keeps the newest group without reporting overBudget when it fits the budget exactly", () => {
    const newest = history.slice(-1);
    const built = buildContext({ history, budgetTokens: tokensOf(newest), counter });
    expect(built).toMatchObject({ messages: newest, overBudget: false, droppedGroups: 5 });
  });

  it("returns just the system prompt for an empty history, even when the prompt alone exceeds the budget", () => {
    const built = buildContext({ history: [], budgetTokens: -5, counter, system: "You are the agent." });
    expect(built.messages).toEqual([{ role: "system", content: "You are the agent." }]);
    expect(built.overBudget).toBe(true);
  });

  it("returns an empty context for an empty history and a zero budget", () => {
    expect(buildContext({ history: [], budgetTokens: 0, counter })).toMatchObject({ messages: [], overBudget: false });
  });

  it("counts with the real tokenizer of the model", () => {
    const o200k = tokenCounterFor("openai", "gpt-4o");
    const built = buildContext({ history, budgetTokens: 100_000, counter: o200k });
    expect(built.tokens).toBe(history.reduce((sum, message) => sum + messageTokens(message, o200k), 0));
  });
});

describe("summarizeGroups", () => {
  it("states what the user asked and which tools ran with which facts, and leaves the narration out", () => {
    const summary = summarizeGroups(
      groupMessages([
        user("Deploy the service."),
        assistant(`${NARRATION} deploying now`, [call("c1", "deploy")]),
        { ...result("c1", "deploy"), facts: "status ok; exit_code=0; message_id=m-1" },
        assistant(`${NARRATION} it is deployed`),
      ]),
    );
    expect(summary.role).toBe("user");
    expect(summary.content.split("\n")).toEqual([
      "[Summary of 4 earlier messages, made by the runtime from recorded facts; the assistant's narration is omitted (1 replies)]",
      "- user: Deploy the service.",
      '- tool deploy (call c1): status ok; exit_code=0; message_id=m-1; output: "output of c1"',
      "- assistant answered (text omitted from this summary)",
    ]);
  });

  it("keeps what an ok call returned (cut short), so a tracking number survives compaction", () => {
    const summary = summarizeGroups(
      groupMessages([
        user("Where is my parcel?"),
        assistant("", [call("c1", "track_parcel")]),
        result("c1", "track_parcel", `{"tracking":"JJD0099887766","history":"${"scan ".repeat(200)}"}`),
      ]),
    );
    const line = summary.content.split("\n").find((text) => text.startsWith("- tool track_parcel"))!;
    expect(line).toContain("JJD0099887766");
    const output = JSON.parse(line.slice(line.indexOf("output: ") + "output: ".length)) as string;
    expect(output).toHaveLength(SUMMARY_LINE_OUTPUT_CHARS);
  });

  it("leaves the text of a failed call out of the summary", () => {
    const failed: ToolMessage = { ...result("c1", "deploy", "error: SECRET-STACK-TRACE"), isError: true };
    const summary = summarizeGroups(groupMessages([assistant("", [call("c1", "deploy")]), failed]));
    expect(summary.content).not.toContain("SECRET-STACK-TRACE");
  });

  it("keeps a non-completed run's terminal state but not the claim after it", () => {
    const summary = summarizeGroups([
      [assistant(`[run ended failed/provider_error: not completed] The model's last reply, unverified: ${NARRATION}`)],
    ]);
    expect(summary.content).toContain("- assistant: [run ended failed/provider_error: not completed]");
    expect(summary.content).not.toContain(NARRATION);
  });

  it("says failed for a result without facts that is an error", () => {
    const summary = summarizeGroups([
      [assistant("", [call("c1")]), { ...result("c1"), isError: true, facts: undefined }],
    ]);
    expect(summary.content).toContain("- tool lookup (call c1): failed");
  });
});

describe("repairPairing", () => {
  it("drops a result whose call is not in the messages", () => {
    expect(repairPairing([user("hi"), result("ghost"), assistant("hello")])).toEqual([user("hi"), assistant("hello")]);
  });

  it("adds a missing result for a call without one, as an error", () => {
    expect(repairPairing([assistant("", [call("c1", "deploy")]), user("next")])).toEqual([
      assistant("", [call("c1", "deploy")]),
      {
        role: "tool",
        callId: "c1",
        toolName: "deploy",
        isError: true,
        content: "[missing] No result was recorded for this call; its outcome is unknown.",
      },
      user("next"),
    ]);
  });

  it("keeps the first of duplicate results", () => {
    const first = result("c1", "lookup", "first");
    expect(repairPairing([assistant("", [call("c1")]), first, result("c1", "lookup", "second")])).toEqual([
      assistant("", [call("c1")]),
      first,
    ]);
  });

  it("moves results to directly after their call message, in call order", () => {
    const calls = [call("c1"), call("c2")];
    expect(
      repairPairing([result("c2"), user("interjection"), assistant("", calls), assistant("later"), result("c1")]),
    ).toEqual([user("interjection"), assistant("", calls), result("c1"), result("c2"), assistant("later")]);
  });

  it("removes a repeated call id from a later assistant message, keeping its text", () => {
    expect(
      repairPairing([assistant("", [call("c1")]), result("c1"), assistant("again", [call("c1")]), user("next")]),
    ).toEqual([assistant("", [call("c1")]), result("c1"), assistant("again"), user("next")]);
  });

  it("drops a repeated-call message that has nothing else to say", () => {
    expect(repairPairing([assistant("", [call("c1")]), result("c1"), assistant(" ", [call("c1")])])).toEqual([
      assistant("", [call("c1")]),
      result("c1"),
    ]);
  });

  it("makes any shuffle, loss or duplication of results valid for all three protocols, and is idempotent", () => {
    const messyArb = historyArb.chain((history) =>
      fc
        .array(
          fc.record({
            op: fc.constantFrom("move", "drop", "duplicate", "orphan"),
            from: fc.nat(),
            to: fc.nat(),
          }),
          { maxLength: 6 },
        )
        .map((ops) => {
          const messages = [...history];
          ops.forEach(({ op, from, to }, n) => {
            const tools = messages.flatMap((message, index) => (message.role === "tool" ? [index] : []));
            const at = tools.length > 0 ? tools[from % tools.length]! : -1;
            if (op === "orphan") messages.splice(to % (messages.length + 1), 0, result(`orphan_${n}`));
            if (at < 0) return;
            const [picked] = op === "duplicate" ? [messages[at]!] : messages.splice(at, 1);
            if (op !== "drop") messages.splice(to % (messages.length + 1), 0, picked!);
          });
          return messages;
        }),
    );
    fc.assert(
      fc.property(messyArb, (messages) => {
        const repaired = repairPairing(messages);
        expect(wireProblems(repaired)).toEqual([]);
        expect(repairPairing(repaired)).toEqual(repaired);
      }),
      RUNS,
    );
  });
});

describe("groupMessages", () => {
  it("groups an assistant tool-call message with its results and leaves every other message alone", () => {
    const groups: MessageGroup[] = groupMessages([
      user("q"),
      assistant("", [call("c1"), call("c2")]),
      result("c1"),
      result("c2"),
      assistant("a"),
    ]);
    expect(groups.map((group) => group.length)).toEqual([1, 3, 1]);
  });
});

describe("the wire validators used by these tests", () => {
  const valid = [user("q"), assistant("", [call("c1"), call("c2")]), result("c1"), result("c2"), assistant("a")];
  const each = (messages: ContextMessage[]) => ({
    chat: chatProblems(literalChat(messages)).length > 0,
    responses: responsesProblems(literalResponses(messages)).length > 0,
    anthropic: anthropicProblems(literalAnthropic(messages)).length > 0,
  });

  it("accept a correctly paired conversation", () => {
    expect(wireProblems(valid)).toEqual([]);
  });

  it("reject a call without its result in all three protocols", () => {
    expect(each([user("q"), assistant("", [call("c1"), call("c2")]), result("c1"), assistant("a")])).toEqual({
      chat: true,
      responses: true,
      anthropic: true,
    });
  });

  it("reject a result without its call in all three protocols", () => {
    expect(each([user("q"), result("c9"), assistant("a")])).toEqual({ chat: true, responses: true, anthropic: true });
  });

  it("reject a duplicated result in all three protocols", () => {
    expect(each([assistant("", [call("c1")]), result("c1"), result("c1")])).toEqual({
      chat: true,
      responses: true,
      anthropic: true,
    });
  });

  it("reject a result separated from its call by a user message in Chat", () => {
    expect(chatProblems(literalChat([assistant("", [call("c1")]), user("x"), result("c1")]))).not.toEqual([]);
  });

  it("reject a result that comes after the next assistant message in Anthropic", () => {
    const messages = [assistant("", [call("c1")]), assistant("later"), result("c1")];
    expect(anthropicProblems(literalAnthropic(messages))).not.toEqual([]);
  });

  it("reject a system message after the start in Anthropic", () => {
    expect(anthropicProblems(literalAnthropic([user("q"), { role: "system", content: "late" }]))).not.toEqual([]);
  });
});
