import { describe, expect, it } from "vitest";
import {
  CORRECTION_MESSAGE,
  type ContextMessage,
  type ExecutionReceipt,
  type JsonValue,
  type LedgerEvent,
  type MemoryTurn,
  NONE_CONTRACT,
  type ReceiptStatus,
  type RunRecord,
} from "../../src/domain/index.js";
import {
  callIdsOf,
  distinctCallIdsAcrossRuns,
  type ProjectedRun,
  projectLegacyTurns,
  projectRuns,
  receiptFacts,
  SUMMARY_OUTPUT_CHARS,
} from "../../src/services/transcriptProjector.js";

/**
 * Ledgers are built by hand as LedgerEvent arrays: the real ledger refuses orphan and duplicate
 * results, and the projector must still cope with them.
 */

const FINGERPRINT = "f".repeat(64);
const AT = "2025-01-01T00:00:00.000Z";

type Terminal = { state: RunRecord["terminalState"]; reason: string; finalText?: string };

function ledger(runId = "run_1") {
  const events: LedgerEvent[] = [];
  const receipts: ExecutionReceipt[] = [];
  const add = (type: LedgerEvent["type"], payload: JsonValue) => {
    events.push({ runId, sequence: events.length + 1, type, payload, createdAt: AT });
    return api;
  };
  const api = {
    user: (text: string, origin: "user" | "runtime_correction" = "user") => add("user_input", { text, origin }),
    commentary: (step: number, text: string, toolCallCount = 1) =>
      add("assistant_output", { step, text, finishReason: "tool_calls", toolCallCount, role: "commentary" }),
    answer: (step: number, text: string) =>
      add("assistant_output", { step, text, finishReason: "stop", toolCallCount: 0, role: "answer" }),
    call: (step: number, callId: string, toolName: string, args: JsonValue = {}) =>
      add("tool_call", { step, callId, toolName, arguments: args, inputFingerprint: FINGERPRINT }),
    result: (step: number, callId: string, toolName: string, status: ReceiptStatus, output: JsonValue) =>
      add("tool_result", { step, callId, toolName, status, output, outputHash: "h" }),
    receipt: (
      callId: string,
      toolName: string,
      status: ReceiptStatus,
      evidence: Record<string, JsonValue> = {},
      reason?: ExecutionReceipt["reason"],
    ) => {
      receipts.push({
        receiptId: `${runId}:${callId}`,
        runId,
        callId,
        toolName,
        status,
        ...(reason ? { reason } : {}),
        startedAt: AT,
        finishedAt: AT,
        inputFingerprint: FINGERPRINT,
        evidence,
        verificationStatus: status === "ok" ? "verified" : "unverified",
      });
      return api;
    },
    terminal: (state: Terminal["state"], reason: string, finalText = "") =>
      add("terminal", { terminalState: state, reason, finalText, steps: 1, correctionTurns: 0 }),
    build: (run: Partial<RunRecord> = {}): ProjectedRun => {
      const terminal = events.find((event) => event.type === "terminal")?.payload as
        | { terminalState: RunRecord["terminalState"]; reason: string }
        | undefined;
      return {
        run: {
          runId,
          sessionId: "s",
          workspaceId: null,
          agentName: null,
          providerId: "scripted",
          model: "cassette",
          apiFamily: "scripted",
          terminalState: terminal?.terminalState ?? "running",
          contract: NONE_CONTRACT,
          traceId: "t",
          startedAt: AT,
          endedAt: terminal ? AT : null,
          failureCode: terminal && terminal.terminalState !== "completed" ? terminal.reason : null,
          failureDetail: null,
          ...run,
        },
        events: [...events],
        receipts: [...receipts],
      };
    },
  };
  return api;
}

type ToolMessage = Extract<ContextMessage, { role: "tool" }>;
const toolMessages = (messages: ReadonlyArray<ContextMessage>) =>
  messages.filter((message): message is ToolMessage => message.role === "tool");
const allText = (messages: ReadonlyArray<ContextMessage>) => messages.map((message) => message.content).join("\n");

describe("projectRuns in protocol mode", () => {
  it("replays each tool step as one assistant message holding all its calls, followed by one result per call in call order", () => {
    const run = ledger()
      .user("Check items 1 and 2.")
      .call(1, "c1", "lookup", { i: 1 })
      .call(1, "c2", "lookup", { i: 2 })
      .result(1, "c1", "lookup", "ok", { value: "one" })
      .result(1, "c2", "lookup", "ok", { value: "two" })
      .receipt("c1", "lookup", "ok", { output_sha256: "aaa" })
      .receipt("c2", "lookup", "ok", { output_sha256: "bbb" })
      .answer(2, "Item 1 is one, item 2 is two.")
      .terminal("completed", "answered")
      .build();
    expect(projectRuns([run])).toEqual([
      { role: "user", content: "Check items 1 and 2." },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "c1", name: "lookup", arguments: { i: 1 } },
          { id: "c2", name: "lookup", arguments: { i: 2 } },
        ],
        provenance: "ledger",
      },
      {
        role: "tool",
        callId: "c1",
        toolName: "lookup",
        isError: false,
        content: '{"value":"one"}',
        facts: "status ok; output_sha256=aaa",
      },
      {
        role: "tool",
        callId: "c2",
        toolName: "lookup",
        isError: false,
        content: '{"value":"two"}',
        facts: "status ok; output_sha256=bbb",
      },
      { role: "assistant", content: "Item 1 is one, item 2 is two.", toolCalls: [], provenance: "ledger" },
    ]);
  });

  it("replays consecutive steps in ledger order, each step's calls directly followed by their results", () => {
    const run = ledger()
      .user("Go.")
      .call(1, "a1", "read")
      .result(1, "a1", "read", "ok", "r")
      .receipt("a1", "read", "ok")
      .call(2, "b1", "write")
      .result(2, "b1", "write", "ok", "w")
      .receipt("b1", "write", "ok")
      .answer(3, "Done.")
      .terminal("completed", "answered")
      .build();
    const shape = projectRuns([run]).map((message) =>
      message.role === "assistant"
        ? `assistant[${message.toolCalls.map((call) => call.id).join(",")}]`
        : message.role === "tool"
          ? `tool(${message.callId})`
          : message.role,
    );
    expect(shape).toEqual(["user", "assistant[a1]", "tool(a1)", "assistant[b1]", "tool(b1)", "assistant[]"]);
  });

  it("marks a recorded failed result as an error with its status and keeps the receipt's reason in the facts", () => {
    const run = ledger()
      .user("Run it.")
      .call(1, "c1", "shell")
      .result(1, "c1", "shell", "error", { error: "boom" })
      .receipt("c1", "shell", "error", { exit_code: 2 }, "tool_error")
      .answer(2, "It failed.")
      .terminal("completed", "answered")
      .build();
    expect(toolMessages(projectRuns([run]))).toEqual([
      {
        role: "tool",
        callId: "c1",
        toolName: "shell",
        isError: true,
        content: 'error: {"error":"boom"}',
        facts: "status error (tool_error); exit_code=2",
      },
    ]);
  });

  it("gives a started call whose receipt says interrupted an `interrupted` result that says to verify before repeating", () => {
    const run = ledger()
      .user("Deploy.")
      .call(1, "c1", "deploy")
      .receipt("c1", "deploy", "cancelled", { note: "the process ended" }, "interrupted")
      .terminal("failed", "interrupted")
      .build();
    const [result] = toolMessages(projectRuns([run]));
    expect(result!.isError).toBe(true);
    expect(result!.content.startsWith("[interrupted]")).toBe(true);
    expect(result!.content).toMatch(/side effects may have happened/);
    expect(result!.content).toMatch(/Verify the current state before repeating/);
    expect(result!.facts).toBe("status cancelled (interrupted); note=the process ended");
  });

  it("gives a started call cancelled by the user an `interrupted` result, since its outcome is unknown", () => {
    const run = ledger()
      .user("Deploy.")
      .call(1, "c1", "deploy")
      .receipt("c1", "deploy", "cancelled", {}, "cancelled_by_user")
      .terminal("cancelled", "cancelled_by_user")
      .build();
    const [result] = toolMessages(projectRuns([run]));
    expect(result!.content.startsWith("[interrupted]")).toBe(true);
    expect(result!.isError).toBe(true);
  });

  it("gives a call whose receipt says it never started a `not_started` result", () => {
    const run = ledger()
      .user("Deploy.")
      .call(1, "c1", "deploy")
      .receipt("c1", "deploy", "cancelled", { started: false }, "cancelled_by_user")
      .terminal("cancelled", "cancelled_by_user")
      .build();
    const [result] = toolMessages(projectRuns([run]));
    expect(result!.isError).toBe(true);
    expect(result!.content.startsWith("[not_started]")).toBe(true);
    expect(result!.content).toMatch(/never ran/);
  });

  it("gives a call without result or receipt a `missing` result whose facts say there is no receipt", () => {
    const run = ledger().user("Deploy.").call(1, "c1", "deploy").terminal("failed", "ledger_write_failed").build();
    const [result] = toolMessages(projectRuns([run]));
    expect(result).toMatchObject({ callId: "c1", toolName: "deploy", isError: true });
    expect(result!.content.startsWith("[missing]")).toBe(true);
    expect(result!.facts).toBe("status missing; no receipt");
  });

  it("never replays a synthetic result as a success", () => {
    const run = ledger()
      .user("Go.")
      .call(1, "a", "t")
      .call(1, "b", "t")
      .call(1, "c", "t")
      .receipt("a", "t", "cancelled", {}, "interrupted")
      .receipt("b", "t", "cancelled", { started: false })
      .terminal("failed", "interrupted")
      .build();
    const results = toolMessages(projectRuns([run]));
    expect(results.map((result) => /^\[(\w+)\]/.exec(result.content)?.[1])).toEqual([
      "interrupted",
      "not_started",
      "missing",
    ]);
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(result.content).not.toMatch(/\bok\b|succe/i);
    }
  });

  it("drops a result whose call is not in the ledger", () => {
    const run = ledger()
      .user("Go.")
      .call(1, "c1", "lookup")
      .result(1, "c1", "lookup", "ok", "fine")
      .result(1, "ghost", "lookup", "ok", "from nowhere")
      .receipt("c1", "lookup", "ok")
      .answer(2, "Done.")
      .terminal("completed", "answered")
      .build();
    const messages = projectRuns([run]);
    expect(toolMessages(messages).map((result) => result.callId)).toEqual(["c1"]);
    expect(allText(messages)).not.toContain("from nowhere");
  });

  it("keeps only the first of duplicate results for one call", () => {
    const run = ledger()
      .user("Go.")
      .call(1, "c1", "lookup")
      .result(1, "c1", "lookup", "ok", "first")
      .result(1, "c1", "lookup", "error", "second")
      .receipt("c1", "lookup", "ok")
      .answer(2, "Done.")
      .terminal("completed", "answered")
      .build();
    expect(toolMessages(projectRuns([run]))).toEqual([
      { role: "tool", callId: "c1", toolName: "lookup", isError: false, content: "first", facts: "status ok" },
    ]);
  });

  it("replays a duplicated tool_call row once", () => {
    const run = ledger()
      .user("Go.")
      .call(1, "c1", "lookup")
      .call(1, "c1", "lookup")
      .result(1, "c1", "lookup", "ok", "first")
      .receipt("c1", "lookup", "ok")
      .answer(2, "Done.")
      .terminal("completed", "answered")
      .build();
    const messages = projectRuns([run]);
    const callMessages = messages.filter((message) => message.role === "assistant" && message.toolCalls.length > 0);
    expect(callMessages).toHaveLength(1);
    expect(toolMessages(messages)).toHaveLength(1);
  });

  it("keeps pre-tool commentary as the content of the tool-call message, never as a completed answer", () => {
    const run = ledger()
      .user("Fix the build.")
      .commentary(1, "I will now fix the build and it will pass.")
      .call(1, "c1", "shell")
      .result(1, "c1", "shell", "error", "compile error")
      .receipt("c1", "shell", "error", { exit_code: 1 }, "tool_error")
      .terminal("incomplete", "max_steps_reached")
      .build();
    const messages = projectRuns([run]);
    const withCommentary = messages.filter(
      (message) => message.role === "assistant" && message.content.includes("I will now fix the build"),
    );
    expect(withCommentary).toEqual([
      {
        role: "assistant",
        content: "I will now fix the build and it will pass.",
        toolCalls: [{ id: "c1", name: "shell", arguments: {} }],
        provenance: "ledger",
      },
    ]);
    expect(messages.at(-1)).toEqual({
      role: "assistant",
      content: "[run ended incomplete/max_steps_reached: not completed]",
      toolCalls: [],
      provenance: "ledger",
    });
  });

  it("replays a completed run's commentary on its call and its answer as the final message", () => {
    const run = ledger()
      .user("Check.")
      .commentary(1, "Looking it up.")
      .call(1, "c1", "lookup")
      .result(1, "c1", "lookup", "ok", "v")
      .receipt("c1", "lookup", "ok")
      .answer(2, "It is v.")
      .terminal("completed", "receipts_satisfied")
      .build();
    const assistants = projectRuns([run]).filter((message) => message.role === "assistant");
    expect(assistants.map((message) => [message.content, message.toolCalls.length])).toEqual([
      ["Looking it up.", 1],
      ["It is v.", 0],
    ]);
  });

  it("replays a non-completed run's final text with its terminal state attached", () => {
    const run = ledger()
      .user("Check item 1.")
      .answer(1, "I have checked it.")
      .terminal("unverified", "receipt_missing", "I have checked it.")
      .build();
    const final = projectRuns([run]).at(-1)!;
    expect(final.role).toBe("assistant");
    expect(final.content).toBe(
      "[run ended unverified/receipt_missing: not completed] The model's last reply, unverified: I have checked it.",
    );
  });

  it("states the terminal state of a run that ended without any reply", () => {
    const run = ledger().user("Go.").terminal("failed", "provider_error").build();
    expect(projectRuns([run])).toEqual([
      { role: "user", content: "Go." },
      {
        role: "assistant",
        content: "[run ended failed/provider_error: not completed]",
        toolCalls: [],
        provenance: "ledger",
      },
    ]);
  });

  it("takes the terminal state from the run row when the terminal event is missing", () => {
    const run = ledger()
      .user("Go.")
      .answer(1, "Half done.")
      .build({ terminalState: "failed", failureCode: "interrupted", endedAt: AT });
    expect(projectRuns([run]).at(-1)!.content).toMatch(/^\[run ended failed\/interrupted: not completed\]/);
  });

  it("adds no final message for a run that is still running", () => {
    const run = ledger().user("Go.").answer(1, "Working on it.").build();
    expect(projectRuns([run])).toEqual([{ role: "user", content: "Go." }]);
  });

  it("replays a corrected run's final answer only, never the runtime correction message or the corrected claim", () => {
    const run = ledger()
      .user("Check item 1.")
      .answer(1, "I have checked it.")
      .user(`${CORRECTION_MESSAGE}\nMissing evidence: a lookup.`, "runtime_correction")
      .call(2, "c1", "lookup", { i: 1 })
      .result(2, "c1", "lookup", "ok", { value: "item" })
      .receipt("c1", "lookup", "ok")
      .answer(3, "Item 1 is 'item'.")
      .terminal("completed", "receipts_satisfied")
      .build();
    const messages = projectRuns([run]);
    const text = allText(messages);
    expect(text).not.toContain(CORRECTION_MESSAGE);
    expect(text).not.toContain("I have checked it.");
    expect(messages.filter((message) => message.role === "user")).toEqual([{ role: "user", content: "Check item 1." }]);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: "Item 1 is 'item'.", toolCalls: [] });
  });

  it("projects several runs in the order given", () => {
    const first = ledger("r1").user("one").answer(1, "1").terminal("completed", "answered").build();
    const second = ledger("r2").user("two").answer(1, "2").terminal("completed", "answered").build();
    expect(projectRuns([first, second]).map((message) => message.content)).toEqual(["one", "1", "two", "2"]);
  });
});

describe("projectRuns in summary mode", () => {
  const toolRun = () =>
    ledger()
      .user("Ship it.")
      .commentary(1, "Shipping now.", 3)
      .call(1, "c1", "write_file", { path: "a.txt" })
      .call(1, "c2", "shell", { cmd: "make" })
      .call(1, "c3", "send_message", { to: "ops" })
      .result(1, "c1", "write_file", "ok", "written")
      .result(1, "c2", "shell", "ok", "built")
      .result(1, "c3", "send_message", "ok", "sent")
      .receipt("c1", "write_file", "ok", { sha256_after: "d1g3st", output_bytes: 7 })
      .receipt("c2", "shell", "ok", { exit_code: 0 })
      .receipt("c3", "send_message", "ok", { message_id: "m-42" })
      .answer(2, "Shipped.")
      .terminal("completed", "receipts_satisfied")
      .build();

  it("emits one factual receipts message per run with call id, tool, status and evidence", () => {
    const messages = projectRuns([toolRun()], () => "summary");
    const receipts = messages.filter((message) => message.content.startsWith("Verified execution receipts"));
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.role).toBe("user");
    const lines = receipts[0]!.content.split("\n").slice(1);
    expect(lines).toEqual([
      '- call_id: c1, tool: write_file, status ok; sha256_after=d1g3st; output: "written"',
      '- call_id: c2, tool: shell, status ok; exit_code=0; output: "built"',
      '- call_id: c3, tool: send_message, status ok; message_id=m-42; output: "sent"',
    ]);
  });

  it("keeps what an ok call returned, so turn 2 still knows the tracking number turn 1 looked up", () => {
    const first = ledger("run_1")
      .user("Where is my parcel?")
      .call(1, "c1", "track_parcel", { order: "A-17" })
      .result(1, "c1", "track_parcel", "ok", { carrier: "DHL", tracking: "JJD0099887766" })
      .receipt("c1", "track_parcel", "ok", { output_sha256: "e".repeat(64) })
      .answer(2, "It is on its way.")
      .terminal("completed", "receipts_satisfied")
      .build();
    const second = ledger("run_2").user("What was the tracking number again?").build();
    const messages = projectRuns([first, second], () => "summary");
    expect(allText(messages)).toContain("JJD0099887766");
    expect(messages[1]!.content).toContain(
      `- call_id: c1, tool: track_parcel, status ok; output_sha256=${"e".repeat(64)}; output: ${JSON.stringify(JSON.stringify({ carrier: "DHL", tracking: "JJD0099887766" }))}`,
    );
  });

  it("keeps an ok call's output redacted, on one line and cut to SUMMARY_OUTPUT_CHARS", () => {
    const long = `token ghp_${"a".repeat(36)}\n${"x".repeat(5_000)}`;
    const run = ledger()
      .user("Read it.")
      .call(1, "c1", "read_file")
      .result(1, "c1", "read_file", "ok", long)
      .receipt("c1", "read_file", "ok")
      .terminal("completed", "answered")
      .build();
    const line = projectRuns([run], () => "summary")[1]!.content.split("\n")[1]!;
    const output = JSON.parse(line.slice(line.indexOf("output: ") + "output: ".length)) as string;
    expect(output.startsWith("token [REDACTED] xxx")).toBe(true);
    expect(output).toHaveLength(SUMMARY_OUTPUT_CHARS);
    expect(output.endsWith("…")).toBe(true);
  });

  it("keeps the summary a size-capped result row holds in place of its output", () => {
    const run = ledger().user("Read it.").call(1, "c1", "read_file").receipt("c1", "read_file", "ok").build();
    const capped = {
      step: 1,
      callId: "c1",
      toolName: "read_file",
      status: "ok",
      truncated: true,
      summary: '{"output":"JJD00',
    };
    const withRow = {
      ...run,
      events: [...run.events, { ...run.events[0]!, sequence: 3, type: "tool_result" as const, payload: capped }],
    };
    expect(projectRuns([withRow], () => "summary")[1]!.content).toContain(
      `output: "[truncated] {\\"output\\":\\"JJD00"`,
    );
  });

  it("leaves out the output of a call whose receipt is not ok", () => {
    const run = ledger()
      .user("Deploy.")
      .call(1, "c1", "deploy")
      .result(1, "c1", "deploy", "ok", "SHOULD-NOT-APPEAR")
      .receipt("c1", "deploy", "error", {}, "tool_error")
      .terminal("failed", "receipt_missing")
      .build();
    expect(allText(projectRuns([run], () => "summary"))).not.toContain("SHOULD-NOT-APPEAR");
  });

  it("contains no tool protocol messages", () => {
    const messages = projectRuns([toolRun()], () => "summary");
    expect(messages.some((message) => message.role === "tool")).toBe(false);
    expect(messages.every((message) => message.role !== "assistant" || message.toolCalls.length === 0)).toBe(true);
  });

  it("keeps the user's message and the final answer around the receipts, without the commentary", () => {
    const messages = projectRuns([toolRun()], () => "summary");
    expect(messages.map((message) => message.role)).toEqual(["user", "user", "assistant"]);
    expect(messages[0]!.content).toBe("Ship it.");
    expect(messages[2]!.content).toBe("Shipped.");
    expect(allText(messages)).not.toContain("Shipping now.");
  });

  it("lists a call without a receipt as missing, never as ok", () => {
    const run = ledger().user("Go.").call(1, "c1", "deploy").terminal("failed", "ledger_write_failed").build();
    const messages = projectRuns([run], () => "summary");
    expect(messages[1]!.content).toContain("- call_id: c1, tool: deploy, status missing");
    expect(messages[1]!.content).not.toContain("status ok");
  });

  it("states an interrupted call's cancelled receipt", () => {
    const run = ledger()
      .user("Go.")
      .call(1, "c1", "deploy")
      .receipt("c1", "deploy", "cancelled", {}, "interrupted")
      .terminal("failed", "interrupted")
      .build();
    expect(projectRuns([run], () => "summary")[1]!.content).toContain(
      "- call_id: c1, tool: deploy, status cancelled (interrupted)",
    );
  });

  it("adds no receipts message for a run without tool calls", () => {
    const run = ledger().user("Hi").answer(1, "Hello.").terminal("completed", "answered").build();
    expect(projectRuns([run], () => "summary")).toEqual([
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello.", toolCalls: [], provenance: "ledger" },
    ]);
  });

  it("leaves out the runtime correction message", () => {
    const run = ledger()
      .user("Check.")
      .answer(1, "Checked.")
      .user(CORRECTION_MESSAGE, "runtime_correction")
      .answer(2, "Checked.")
      .terminal("unverified", "receipt_missing")
      .build();
    expect(allText(projectRuns([run], () => "summary"))).not.toContain(CORRECTION_MESSAGE);
  });

  it("chooses the mode per run", () => {
    const first = toolRun();
    const second = ledger("run_2")
      .user("Again.")
      .call(1, "d1", "shell")
      .result(1, "d1", "shell", "ok", "fine")
      .receipt("d1", "shell", "ok")
      .answer(2, "Fine.")
      .terminal("completed", "answered")
      .build();
    const messages = projectRuns([first, second], (run) => (run.runId === "run_1" ? "summary" : "protocol"));
    expect(toolMessages(messages).map((message) => message.callId)).toEqual(["d1"]);
    expect(messages.filter((message) => message.content.startsWith("Verified execution receipts"))).toHaveLength(1);
  });
});

describe("receiptFacts", () => {
  it("leaves out output_bytes but keeps the output digest", () => {
    const run = ledger()
      .user("x")
      .call(1, "c1", "t")
      .receipt("c1", "t", "ok", { output_sha256: "abc", output_bytes: 12 })
      .build();
    expect(receiptFacts(run.receipts[0])).toBe("status ok; output_sha256=abc");
  });
});

describe("projectLegacyTurns", () => {
  const turn = (role: MemoryTurn["role"], content: string): MemoryTurn => ({
    sessionId: "s",
    role,
    content,
    source: "chat",
    metadata: {},
    createdAt: AT,
  });

  it("turns visible turns into user messages and legacy_unverified assistant messages, in order", () => {
    expect(
      projectLegacyTurns([turn("user", "Hi"), turn("assistant", "I sent the mail."), turn("user", "Thanks")]),
    ).toEqual([
      { role: "user", content: "Hi" },
      { role: "assistant", content: "I sent the mail.", toolCalls: [], provenance: "legacy_unverified" },
      { role: "user", content: "Thanks" },
    ]);
  });

  it("drops visible system turns", () => {
    expect(projectLegacyTurns([turn("system", "You are a bot."), turn("user", "Hi")])).toEqual([
      { role: "user", content: "Hi" },
    ]);
  });
});

describe("distinctCallIdsAcrossRuns", () => {
  const pair = (id: string): ContextMessage[] => [
    { role: "assistant", content: "", toolCalls: [{ id, name: "lookup", arguments: {} }] },
    { role: "tool", callId: id, toolName: "lookup", content: "ok", isError: false },
  ];

  it("renames an older run's call and result when a newer run holds the same id", () => {
    const distinct = distinctCallIdsAcrossRuns();
    distinct(pair("call_0"));
    const older = distinct([...pair("call_0"), ...pair("call_0_2")]);
    expect([...callIdsOf(older)]).toEqual(["call_0_3", "call_0_2"]);
    expect(older[1]).toMatchObject({ role: "tool", callId: "call_0_3" });
  });

  it("returns a run without colliding ids as it is", () => {
    const distinct = distinctCallIdsAcrossRuns();
    distinct(pair("a"));
    const older = pair("b");
    expect(distinct(older)).toBe(older);
  });
});
