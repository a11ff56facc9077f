import { describe, expect, it, vi } from "@effect/vitest";
import { Effect, Logger } from "effect";
import { afterEach } from "vitest";
import {
  type CapturedLog,
  capturingLogger,
  logMessage,
  redactingLogger,
} from "../../../src/services/observability/logging.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { callStep, fixture, lookupTool, textStep, useRuntimeHarness } from "../../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-logging-");

afterEach(() => {
  vi.restoreAllMocks();
});

/** A run through a runtime whose run logs go to a capturing logger. */
async function loggedRun(options: Partial<Parameters<Awaited<ReturnType<typeof harness.makeRuntime>>["startRun"]>[0]>) {
  const { logger, records } = capturingLogger();
  const runtime = await harness.makeRuntime({ logger });
  const result = await runtime.startRun({
    sessionId: "s-log",
    input: "Look up item 1.",
    provider: scriptedProvider([callStep("c1", "lookup", { i: 1 }), textStep("Item 1 is 'item'.")], { model: "m-log" }),
    tools: [lookupTool()],
    ...options,
  }).result;
  const named = (message: string) => records.filter((record) => logMessage(record) === message);
  return { result, records, named };
}

describe("run logs", () => {
  it("logs the run's provider, model, context sources and offered tool schema names when it starts", async () => {
    const { named } = await loggedRun({
      system: false,
      history: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello.", toolCalls: [] },
      ],
      tools: [lookupTool(), fixture({ name: "notes", kind: "observe", outcomes: [{ status: "ok" }] })],
      allowedTools: ["lookup"],
    });
    expect(named("run.started")).toHaveLength(1);
    expect(named("run.started")[0]!.annotations).toMatchObject({
      provider: "scripted",
      model: "m-log",
      contextSources: { historyMessages: 3, byRole: { system: 1, user: 1, assistant: 1 }, systemPrompt: true },
      toolsOffered: ["lookup"],
    });
  });

  it("logs each provider response's finish reason and parsed tool-call count", async () => {
    const { named } = await loggedRun({});
    expect(
      named("provider.response").map(({ annotations }) => ({
        step: annotations.step,
        finishReason: annotations.finishReason,
        parsedToolCalls: annotations.parsedToolCalls,
      })),
    ).toEqual([
      { step: 1, finishReason: "tool_calls", parsedToolCalls: 1 },
      { step: 2, finishReason: "stop", parsedToolCalls: 0 },
    ]);
  });

  it("logs each tool result's status", async () => {
    const { named } = await loggedRun({
      provider: scriptedProvider([callStep("c1", "lookup"), callStep("c2", "lookup", { i: 2 }), textStep("Done.")]),
      tools: [
        lookupTool({
          outcomes: [
            { status: "ok", output: "a" },
            { status: "error", output: "boom" },
          ],
        }),
      ],
    });
    expect(
      named("tool.result").map(({ annotations }) => [annotations.callId, annotations.toolName, annotations.status]),
    ).toEqual([
      ["c1", "lookup", "ok"],
      ["c2", "lookup", "error"],
    ]);
  });

  it("logs the final branch: terminal state, reason and the recorded verdict", async () => {
    const { named, result } = await loggedRun({ contract: { evidenceMode: "observe", requiredToolNames: ["lookup"] } });
    expect(named("run.ended")).toHaveLength(1);
    expect(named("run.ended")[0]!.annotations).toMatchObject({
      terminalState: result.terminalState,
      reason: "receipts_satisfied",
      steps: 2,
      toolCalls: 1,
      receipts: { ok: 1 },
      verification: { mode: "enforce", verdict: "completed", reason: "receipts_satisfied" },
    });
  });

  it("annotates every run log line with the run id and trace id", async () => {
    const { records, result } = await loggedRun({});
    expect(records.length).toBeGreaterThan(3);
    for (const record of records) {
      expect(record.annotations).toMatchObject({ runId: result.runId, traceId: result.traceId, sessionId: "s-log" });
    }
  });

  it("leaks no secret of a secret-laden run into the logs", async () => {
    const inputKey = "sk-live-INPUTSECRET0123456789abcd";
    const toolKey = "sk-proj-TOOLSECRET0123456789abcdef";
    const answerKey = "sk-ANSWERSECRET0123456789abcdef";
    const { records } = await loggedRun({
      input: `Use the key ${inputKey} to look up item 1.`,
      provider: scriptedProvider([
        callStep("c1", "lookup", { key: inputKey }),
        textStep(`I have sent the report with ${answerKey}.`),
        textStep(`I have sent the report with ${answerKey}.`),
      ]),
      tools: [lookupTool({ outcomes: [{ status: "error", output: { error: `bad token ${toolKey}` } }] })],
    });
    const text = JSON.stringify(records);
    expect(text).toContain("run.ended");
    // The claim sentence (with its key) reached the log through the verdict, redacted.
    expect(text).toContain("[REDACTED]");
    for (const secret of ["INPUTSECRET", "TOOLSECRET", "ANSWERSECRET"]) expect(text).not.toContain(secret);
  });

  it("writes one JSON object per line to stderr under logs: json", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    });
    const runtime = await harness.makeRuntime({ logs: "json" });
    const result = await runtime.startRun({
      sessionId: "s",
      input: "Hello.",
      provider: scriptedProvider([textStep("Hi.")]),
    }).result;
    const parsed = lines.map((line) => JSON.parse(line) as { message: unknown; annotations: Record<string, unknown> });
    const ended = parsed.find((entry) => JSON.stringify(entry.message).includes("run.ended"));
    expect(ended?.annotations).toMatchObject({ runId: result.runId, terminalState: "completed", reason: "answered" });
  });

  it("writes no run logs by default", async () => {
    const calls: string[] = [];
    for (const method of ["log", "info", "error", "warn", "debug"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        calls.push(args.map(String).join(" "));
      });
    }
    const runtime = await harness.makeRuntime();
    await runtime.startRun({ sessionId: "s", input: "Hello.", provider: scriptedProvider([textStep("Hi.")]) }).result;
    expect(calls.filter((line) => /run\.(started|ended)|provider\.response/.test(line))).toEqual([]);
  });
});

describe("redactingLogger", () => {
  const logThrough = (effect: Effect.Effect<void>): Effect.Effect<CapturedLog[]> =>
    Effect.suspend(() => {
      const { logger, records } = capturingLogger();
      return effect.pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, redactingLogger(logger))),
        Effect.as(records),
      );
    });

  it.effect("redacts a secret inside the message text", () =>
    Effect.gen(function* () {
      const [record] = yield* logThrough(Effect.logInfo("calling with Bearer abcdefghijklmnop1234"));
      expect(logMessage(record!)).toBe("calling with Bearer [REDACTED]");
    }),
  );

  it.effect("redacts annotation values under secret-named keys and secrets inside nested values", () =>
    Effect.gen(function* () {
      const [record] = yield* logThrough(
        Effect.logInfo("call").pipe(
          Effect.annotateLogs({ apiKey: "plain-looking", detail: { note: "token=hunter2hunter2" } }),
        ),
      );
      expect(record!.annotations).toEqual({ apiKey: "[REDACTED]", detail: { note: "token=[REDACTED]" } });
    }),
  );
});
