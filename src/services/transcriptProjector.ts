import type {
  ContextMessage,
  ExecutionReceipt,
  JsonValue,
  LedgerEvent,
  MemoryTurn,
  RunRecord,
  ToolCall,
} from "../domain/index.js";

/**
 * Ledger → provider-neutral ContextMessage[] for the next turn (seed §4 Phase 5, §10.2 Tier 1):
 * the model sees its tool calls followed by their results — facts — rather than its own
 * narration. Every call gets exactly one result: a recorded one, or a synthetic one that says
 * what is known (never a fake success); orphan results are dropped, duplicates de-duplicated.
 */

export interface ProjectedRun {
  readonly run: RunRecord;
  readonly events: ReadonlyArray<LedgerEvent>;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
}

/** `protocol`: replay tool calls and results; `summary`: a factual receipt summary per run. */
export type ReplayMode = "protocol" | "summary";

export type SyntheticResult = "interrupted" | "not_started" | "missing";

const SYNTHETIC_TEXT: Record<SyntheticResult, string> = {
  interrupted:
    "[interrupted] This call started but no result was recorded; its side effects may have happened. Verify the current state before repeating it.",
  not_started: "[not_started] This call never ran; nothing happened.",
  missing: "[missing] No result was recorded for this call; its outcome is unknown.",
};

interface CallRecord {
  readonly call: ToolCall;
  readonly step: number;
}

interface ResultRecord {
  readonly status: string;
  readonly output: JsonValue;
}

type Payload = Record<string, JsonValue>;
const payloadOf = (event: LedgerEvent): Payload =>
  event.payload && typeof event.payload === "object" && !Array.isArray(event.payload) ? (event.payload as Payload) : {};
const text = (value: JsonValue | undefined): string => (typeof value === "string" ? value : "");

function outputText(output: JsonValue): string {
  return typeof output === "string" ? output : JSON.stringify(output);
}

/** One line of receipt facts: status, reason and the evidence that identifies what happened. */
export function receiptFacts(receipt: ExecutionReceipt | undefined, status?: string): string {
  if (!receipt) return `status ${status ?? "unknown"}; no receipt`;
  const evidence = Object.entries(receipt.evidence)
    .filter(([key]) => key !== "output_bytes")
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
  return `status ${receipt.status}${receipt.reason ? ` (${receipt.reason})` : ""}${evidence ? `; ${evidence}` : ""}`;
}

function syntheticKind(receipt: ExecutionReceipt | undefined): SyntheticResult {
  if (!receipt) return "missing";
  if (receipt.status === "cancelled" && receipt.evidence.started === false) return "not_started";
  return "interrupted";
}

/** The final answer of a run, as the next turn should see it. */
function finalAssistant(run: RunRecord, events: ReadonlyArray<LedgerEvent>): ContextMessage | undefined {
  const terminal = events.find((event) => event.type === "terminal");
  const answers = events.filter((event) => event.type === "assistant_output" && payloadOf(event).role === "answer");
  const answer = text(answers.at(-1) && payloadOf(answers.at(-1)!).text);
  const state = terminal ? text(payloadOf(terminal).terminalState) : run.terminalState;
  const reason = terminal ? text(payloadOf(terminal).reason) : (run.failureCode ?? "");
  if (state === "completed")
    return answer ? { role: "assistant", content: answer, toolCalls: [], provenance: "ledger" } : undefined;
  if (state === "running") return undefined;
  // A run that did not complete is replayed with its terminal state attached, never as a done answer.
  const context = answer ? ` The model's last reply, unverified: ${answer}` : "";
  return {
    role: "assistant",
    content: `[run ended ${state}/${reason}: not completed]${context}`,
    toolCalls: [],
    provenance: "ledger",
  };
}

function projectRunProtocol({ run, events, receipts }: ProjectedRun): ContextMessage[] {
  const receiptByCall = new Map(receipts.map((receipt) => [receipt.callId, receipt]));
  const messages: ContextMessage[] = [];
  const calls = new Map<string, CallRecord>();
  const results = new Map<string, ResultRecord>();
  for (const event of events) {
    const payload = payloadOf(event);
    if (event.type === "tool_call") {
      const callId = text(payload.callId);
      if (callId && !calls.has(callId)) {
        calls.set(callId, {
          call: { id: callId, name: text(payload.toolName) || "unknown", arguments: payload.arguments ?? {} },
          step: Number(payload.step ?? 0),
        });
      }
    } else if (event.type === "tool_result") {
      const callId = text(payload.callId);
      // Orphans (no call) are dropped; a second result for the same call is ignored.
      if (calls.has(callId) && !results.has(callId)) {
        results.set(callId, { status: text(payload.status), output: payload.output ?? null });
      }
    }
  }

  const byStep = new Map<number, CallRecord[]>();
  for (const record of calls.values()) byStep.set(record.step, [...(byStep.get(record.step) ?? []), record]);
  const commentary = new Map<number, string>();
  for (const event of events) {
    const payload = payloadOf(event);
    if (event.type === "assistant_output" && payload.role === "commentary")
      commentary.set(Number(payload.step), text(payload.text));
  }

  const emittedSteps = new Set<number>();
  for (const event of events) {
    const payload = payloadOf(event);
    if (event.type === "user_input" && payload.origin !== "runtime_correction") {
      messages.push({ role: "user", content: text(payload.text) });
    }
    if (event.type === "tool_call") {
      const step = Number(payload.step ?? 0);
      const group = byStep.get(step);
      // A duplicated tool_call row must not replay the step (and its call ids) a second time.
      if (!group || emittedSteps.has(step) || group[0]!.call.id !== text(payload.callId)) continue;
      emittedSteps.add(step);
      messages.push({
        role: "assistant",
        content: commentary.get(step) ?? "",
        toolCalls: group.map((record) => record.call),
        provenance: "ledger",
      });
      for (const record of group) {
        const receipt = receiptByCall.get(record.call.id);
        const result = results.get(record.call.id);
        if (result) {
          messages.push({
            role: "tool",
            callId: record.call.id,
            toolName: record.call.name,
            isError: result.status !== "ok",
            content:
              result.status === "ok" ? outputText(result.output) : `${result.status}: ${outputText(result.output)}`,
            facts: receiptFacts(receipt, result.status),
          });
        } else {
          const kind = syntheticKind(receipt);
          messages.push({
            role: "tool",
            callId: record.call.id,
            toolName: record.call.name,
            isError: true,
            content: SYNTHETIC_TEXT[kind],
            facts: receiptFacts(receipt, kind),
          });
        }
      }
    }
  }
  const final = finalAssistant(run, events);
  if (final) messages.push(final);
  return messages;
}

/** For providers that cannot (or should not) replay tool protocol: one factual message per run. */
function projectRunSummary({ run, events, receipts }: ProjectedRun): ContextMessage[] {
  const messages: ContextMessage[] = [];
  const user = events.find((event) => event.type === "user_input" && payloadOf(event).origin !== "runtime_correction");
  if (user) messages.push({ role: "user", content: text(payloadOf(user).text) });
  const called = events.filter((event) => event.type === "tool_call");
  if (called.length > 0) {
    const receiptByCall = new Map(receipts.map((receipt) => [receipt.callId, receipt]));
    const lines = called.map((event) => {
      const payload = payloadOf(event);
      const callId = text(payload.callId);
      const receipt = receiptByCall.get(callId);
      return `- call_id: ${callId}, tool: ${text(payload.toolName)}, ${receipt ? receiptFacts(receipt) : `status ${syntheticKind(undefined)}`}`;
    });
    messages.push({
      role: "user",
      content: `Verified execution receipts (recorded by the runtime for the turn above, not written by the user):\n${lines.join("\n")}`,
    });
  }
  const final = finalAssistant(run, events);
  if (final) messages.push(final);
  return messages;
}

export function projectRuns(
  runs: ReadonlyArray<ProjectedRun>,
  modeFor: (run: RunRecord) => ReplayMode = () => "protocol",
): ContextMessage[] {
  return runs.flatMap((projected) =>
    modeFor(projected.run) === "protocol" ? projectRunProtocol(projected) : projectRunSummary(projected),
  );
}

/** Visible turns of a session without a ledger: assistant text is marked legacy_unverified, never evidence. */
export function projectLegacyTurns(turns: ReadonlyArray<MemoryTurn>): ContextMessage[] {
  return turns.flatMap((turn): ContextMessage[] => {
    if (turn.role === "user") return [{ role: "user", content: turn.content }];
    if (turn.role === "assistant") {
      return [{ role: "assistant", content: turn.content, toolCalls: [], provenance: "legacy_unverified" }];
    }
    return [];
  });
}
