import type {
  ContextMessage,
  ExecutionReceipt,
  JsonValue,
  LedgerEvent,
  MemoryTurn,
  RunRecord,
  ToolCall,
} from "../domain/index.js";
import { redact } from "../persistence/payloadHygiene.js";

/**
 * Ledger → provider-neutral ContextMessage[] for the next turn:
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

/** How much of an `ok` call's output a per-run receipt summary keeps. */
export const SUMMARY_OUTPUT_CHARS = 1_000;

/**
 * An `ok` call's output as a summary keeps it: redacted, on one line, cut to `max` characters and
 * quoted, so that what a tool returned (a tracking number, an id) outlives its tool messages.
 */
export function outputExcerpt(text: string, max: number): string {
  const flat = (redact(text) as string).replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`);
}

/** The output text a tool_result row holds: its `output`, or the summary a size-capped row kept instead. */
function recordedOutput(payload: Payload): JsonValue {
  if (payload.output !== undefined) return payload.output;
  return payload.truncated === true ? `[truncated] ${text(payload.summary)}` : null;
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
  return finalMessage(run, terminal && payloadOf(terminal), answers.at(-1) && payloadOf(answers.at(-1)!));
}

function finalMessage(
  run: RunRecord,
  terminal: Payload | undefined,
  lastAnswer: Payload | undefined,
): ContextMessage | undefined {
  const answer = text(lastAnswer?.text);
  const state = terminal ? text(terminal.terminalState) : run.terminalState;
  const reason = terminal ? text(terminal.reason) : (run.failureCode ?? "");
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

/** What one pass over a run's events finds, in the order the next turn replays it. */
interface RunScan {
  /** User inputs and tool steps, in ledger order (a step at its first recorded call). */
  readonly order: Array<{ readonly user: string } | { readonly step: number }>;
  readonly byStep: Map<number, CallRecord[]>;
  readonly results: Map<string, ResultRecord>;
  readonly commentary: Map<number, string>;
  terminal: Payload | undefined;
  lastAnswer: Payload | undefined;
}

/** One pass over the events: the projection of a run is on the history's hot path. */
function scanRun(events: ReadonlyArray<LedgerEvent>): RunScan {
  const scan: RunScan = {
    order: [],
    byStep: new Map(),
    results: new Map(),
    commentary: new Map(),
    terminal: undefined,
    lastAnswer: undefined,
  };
  const callIds = new Set<string>();
  for (const event of events) {
    const payload = payloadOf(event);
    switch (event.type) {
      case "user_input":
        if (payload.origin !== "runtime_correction") scan.order.push({ user: text(payload.text) });
        break;
      case "tool_call": {
        const callId = text(payload.callId);
        // A duplicated tool_call row must not replay its call (or its step) a second time.
        if (!callId || callIds.has(callId)) break;
        callIds.add(callId);
        const step = Number(payload.step ?? 0);
        const record = {
          call: { id: callId, name: text(payload.toolName) || "unknown", arguments: payload.arguments ?? {} },
          step,
        };
        const group = scan.byStep.get(step);
        if (group) group.push(record);
        else {
          scan.byStep.set(step, [record]);
          scan.order.push({ step });
        }
        break;
      }
      case "tool_result": {
        const callId = text(payload.callId);
        // Orphans (no call before them) are dropped; a second result for the same call is ignored.
        if (callIds.has(callId) && !scan.results.has(callId))
          scan.results.set(callId, { status: text(payload.status), output: payload.output ?? null });
        break;
      }
      case "assistant_output":
        if (payload.role === "commentary") scan.commentary.set(Number(payload.step), text(payload.text));
        else if (payload.role === "answer") scan.lastAnswer = payload;
        break;
      case "terminal":
        scan.terminal ??= payload;
        break;
    }
  }
  return scan;
}

function projectRunProtocol(
  { run, events, receipts }: ProjectedRun,
  pending: ReadonlySet<string> = new Set(),
): ContextMessage[] {
  const receiptByCall = new Map(receipts.map((receipt) => [receipt.callId, receipt]));
  const scan = scanRun(events);
  const messages: ContextMessage[] = [];
  for (const item of scan.order) {
    if ("user" in item) {
      messages.push({ role: "user", content: item.user });
      continue;
    }
    const group = scan.byStep.get(item.step)!;
    messages.push({
      role: "assistant",
      content: scan.commentary.get(item.step) ?? "",
      toolCalls: group.map((record) => record.call),
      provenance: "ledger",
    });
    for (const record of group) {
      const receipt = receiptByCall.get(record.call.id);
      const result = scan.results.get(record.call.id);
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
      } else if (!pending.has(record.call.id)) {
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
  const final = finalMessage(run, scan.terminal, scan.lastAnswer);
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
    const okOutputs = new Map<string, JsonValue>();
    for (const event of events) {
      const payload = payloadOf(event);
      const callId = text(payload.callId);
      if (event.type === "tool_result" && payload.status === "ok" && !okOutputs.has(callId))
        okOutputs.set(callId, recordedOutput(payload));
    }
    const lines = called.map((event) => {
      const payload = payloadOf(event);
      const callId = text(payload.callId);
      const receipt = receiptByCall.get(callId);
      const facts = receipt ? receiptFacts(receipt) : `status ${syntheticKind(undefined)}`;
      // Only a call both its receipt and its result call ok keeps its output: a fact, not a guess.
      const output =
        receipt?.status === "ok" && okOutputs.has(callId)
          ? `; output: ${outputExcerpt(outputText(okOutputs.get(callId)!), SUMMARY_OUTPUT_CHARS)}`
          : "";
      return `- call_id: ${callId}, tool: ${text(payload.toolName)}, ${facts}${output}`;
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
  /** Calls whose results are still to come (a resumed run re-running them): no synthetic result. */
  options: { readonly pending?: ReadonlySet<string> } = {},
): ContextMessage[] {
  return runs.flatMap((projected) =>
    modeFor(projected.run) === "protocol"
      ? projectRunProtocol(projected, options.pending)
      : projectRunSummary(projected),
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

/** The tool call ids a context's messages use (calls and results). */
export function callIdsOf(messages: ReadonlyArray<ContextMessage>): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls) ids.add(call.id);
    else if (message.role === "tool") ids.add(message.callId);
  }
  return ids;
}

/**
 * Keeps call ids distinct across the runs of one history. Providers that number their calls
 * (`call_0`, `call_1` … in every turn, as scripted and many local models do) repeat ids from run
 * to run, and a context may not hold two calls with one id — pairing repair would drop the later
 * pairs, and the model would lose those facts. Fed runs newest first (the order history is read
 * in), it renames the ids of an older run that a newer one already uses (`<id>_<n>`, the
 * runtime's own scheme), so a run's ids never depend on how far back the history is read.
 */
export function distinctCallIdsAcrossRuns(): (messagesOfOlderRun: ContextMessage[]) => ContextMessage[] {
  const newer = new Set<string>();
  // Where each id's suffix search resumes: the same id recurs in run after run.
  const nextSuffix = new Map<string, number>();
  return (messages) => {
    const own = callIdsOf(messages);
    const renamed = new Map<string, string>();
    const taken = (candidate: string) => newer.has(candidate) || own.has(candidate) || renamed.has(candidate);
    for (const id of own) {
      if (!newer.has(id)) continue;
      let n = nextSuffix.get(id) ?? 2;
      while (taken(`${id}_${n}`)) n += 1;
      nextSuffix.set(id, n + 1);
      renamed.set(id, `${id}_${n}`);
    }
    for (const id of own) newer.add(renamed.get(id) ?? id);
    if (renamed.size === 0) return messages;
    const rename = (id: string) => renamed.get(id) ?? id;
    return messages.map((message): ContextMessage => {
      if (message.role === "assistant" && message.toolCalls.some((call) => renamed.has(call.id))) {
        return { ...message, toolCalls: message.toolCalls.map((call) => ({ ...call, id: rename(call.id) })) };
      }
      if (message.role === "tool" && renamed.has(message.callId)) return { ...message, callId: rename(message.callId) };
      return message;
    });
  };
}
