import type {
  ExecutionReceipt,
  JsonValue,
  LedgerEvent,
  MemoryItem,
  MemoryVerificationStatus,
} from "../../domain/index.js";
import type { RunLedgerRecord } from "../../persistence/AgentRunStore.js";
import { addressesIn, type MemoryCandidate, userStatements } from "./extraction.js";

/** Rollout switch of the memory gate. */
export type MemoryGateMode = "off" | "observe" | "enforce";

export interface ConsolidationPlan {
  readonly create: ReadonlyArray<
    MemoryCandidate & { readonly status: MemoryVerificationStatus; readonly gate?: "would_block" }
  >;
  /** Pending items a successful receipt of this run confirmed. */
  readonly promote: ReadonlyArray<{ readonly id: string; readonly sourceRef: string; readonly toolName: string }>;
}

type Payload = Record<string, JsonValue>;
const payloadOf = (event: LedgerEvent): Payload =>
  event.payload && typeof event.payload === "object" && !Array.isArray(event.payload) ? (event.payload as Payload) : {};
const text = (value: JsonValue | undefined) => (typeof value === "string" ? value : "");
const clip = (value: string, max: number) => (value.length <= max ? value : `${value.slice(0, max - 1)}…`);

/** Why a read of this run cannot confirm what it shows. */
export type SelfWrittenReason = "written_by_this_run" | "command_ran_before_read";

/**
 * Reads (by call id) that cannot confirm what they show because this run may itself have put it
 * there: a `workspace_write` of this run changed the same path before the read (unless the read
 * found the content the path had before the run's first write of it), or a `run_command` ran
 * before the read (a command may write any file without naming it; its receipt cannot tell).
 */
function selfWrittenReads(ledger: RunLedgerRecord): Map<string, SelfWrittenReason> {
  const receipts = new Map(ledger.receipts.map((receipt) => [receipt.callId, receipt]));
  /** Path → its sha256 before the run's first write of it (`null`: it did not exist). */
  const before = new Map<string, string | null>();
  let commandRan = false;
  const reasons = new Map<string, SelfWrittenReason>();
  const results = ledger.events.filter((event) => event.type === "tool_result").sort((a, b) => a.sequence - b.sequence);
  for (const event of results) {
    const receipt = receipts.get(text(payloadOf(event).callId));
    if (!receipt) continue;
    const evidence = receipt.evidence as Record<string, JsonValue | undefined>;
    const path = text(evidence.path);
    if (receipt.toolName === "workspace_write" && path && typeof evidence.sha256_after === "string") {
      const old = typeof evidence.sha256_before === "string" ? evidence.sha256_before : null;
      if (old !== evidence.sha256_after && !before.has(path)) before.set(path, old);
    } else if (receipt.toolName === "run_command" && evidence.argv !== undefined) {
      commandRan = true;
    } else if (receipt.status === "ok" && AUTHORITATIVE_READ_TOOLS.has(receipt.toolName)) {
      if (path && before.has(path) && before.get(path) !== text(evidence.sha256)) {
        reasons.set(receipt.callId, "written_by_this_run");
      } else if (commandRan) reasons.set(receipt.callId, "command_ran_before_read");
    }
  }
  return reasons;
}

/**
 * Facts a successful receipt supports: a file that was read, a skill that was loaded. A read of
 * what this run may have written itself (see `selfWrittenReads`) is no authority: its fact is
 * not whitelisted and carries the reason as `pending_reason`.
 */
function receiptFacts(ledger: RunLedgerRecord, selfWritten: ReadonlyMap<string, SelfWrittenReason>): MemoryCandidate[] {
  const okReceipts = new Map<string, ExecutionReceipt>(
    ledger.receipts.filter((receipt) => receipt.status === "ok").map((receipt) => [receipt.callId, receipt]),
  );
  const facts: MemoryCandidate[] = [];
  for (const event of ledger.events) {
    if (event.type !== "tool_result") continue;
    const payload = payloadOf(event);
    const receipt = okReceipts.get(text(payload.callId));
    if (!receipt) continue;
    const output =
      payload.output && typeof payload.output === "object" && !Array.isArray(payload.output)
        ? (payload.output as Payload)
        : {};
    const sourceRef = `${ledger.run.runId}/${receipt.callId}`;
    const reason = selfWritten.get(receipt.callId);
    const pending: Record<string, string> = reason ? { pending_reason: reason } : {};
    const trust = { whitelisted: reason === undefined, pending };
    if (receipt.toolName === "workspace_read" && typeof output.content === "string" && output.truncated !== true) {
      facts.push({
        content: `${text(output.path)}: ${clip(output.content.trim(), 300)}`,
        kind: "workspace_fact",
        provenance: "receipt",
        sourceRef,
        evidence: {
          path: text(receipt.evidence.path as JsonValue),
          sha256: text(receipt.evidence.sha256 as JsonValue),
          ...trust.pending,
        },
        whitelisted: trust.whitelisted,
        confidence: 0.95,
      });
    }
    if (receipt.toolName === "skill_load" && typeof output.body === "string") {
      facts.push({
        content: `skill ${text(output.name)} (${text(receipt.evidence.path as JsonValue)}): ${clip(output.body.trim(), 200)}`,
        kind: "skill",
        provenance: "receipt",
        sourceRef,
        evidence: { sha256: text(receipt.evidence.sha256 as JsonValue), ...trust.pending },
        whitelisted: trust.whitelisted,
        confidence: 0.95,
      });
    }
  }
  return facts;
}

/** Every string inside a tool's output, unescaped (a JSON dump would turn a newline before a URL into `\n`). */
const strings = (value: JsonValue | undefined): string[] =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : value && typeof value === "object"
        ? Object.values(value).flatMap(strings)
        : [];

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Whether `haystack` shows `value` itself, not as part of a longer address: `https://x.io/api`
 * is not confirmed by `https://x.io/api-v2`, nor `example.com` by `notexample.com`.
 */
function showsValue(haystack: string, value: string): boolean {
  const after = value.includes("/") ? "[\\w\\-/]|\\.\\w" : "[\\w\\-]|\\.\\w";
  return new RegExp(`(?<![\\w.\\-])${escapeRegExp(value)}(?!${after})`).test(haystack);
}

/** Text of every successful tool result of the run: the authoritative reads that can confirm a pending item. */
/**
 * Tools that read an authoritative source. A command's stdout is not one: the model could echo
 * any value it likes and have it "confirmed".
 */
export const AUTHORITATIVE_READ_TOOLS: ReadonlySet<string> = new Set(["workspace_read", "skill_load"]);

function authoritativeOutputs(
  ledger: RunLedgerRecord,
  selfWritten: ReadonlyMap<string, SelfWrittenReason>,
): Array<{ callId: string; toolName: string; texts: string[] }> {
  const ok = new Set(
    ledger.receipts
      .filter(
        (receipt) =>
          receipt.status === "ok" && AUTHORITATIVE_READ_TOOLS.has(receipt.toolName) && !selfWritten.has(receipt.callId),
      )
      .map((receipt) => receipt.callId),
  );
  return ledger.events
    .filter((event) => event.type === "tool_result" && ok.has(text(payloadOf(event).callId)))
    .map((event) => {
      const payload = payloadOf(event);
      return { callId: text(payload.callId), toolName: text(payload.toolName), texts: strings(payload.output) };
    });
}

const confirmedBy = (outputs: ReturnType<typeof authoritativeOutputs>, value: string) =>
  outputs.find((output) => output.texts.some((haystack) => showsValue(haystack, value)));

/**
 * Plans what a finished run adds to memory. Reads the canonical transcript and
 * receipts — never the assistant's text alone. Whitelisted candidates become active (verified);
 * everything else (URLs, domains, paths, commands, model inferences) is a pending candidate under
 * `enforce`; a pending item is promoted when a successful receipt of this run shows the same value.
 */
export function planConsolidation(
  ledger: RunLedgerRecord,
  existing: ReadonlyArray<MemoryItem>,
  gate: MemoryGateMode = "enforce",
): ConsolidationPlan {
  const candidates: MemoryCandidate[] = [];
  for (const event of ledger.events) {
    const payload = payloadOf(event);
    const ref = `${ledger.run.runId}/seq-${event.sequence}`;
    if (event.type === "user_input" && payload.origin !== "runtime_correction") {
      candidates.push(
        ...userStatements(text(payload.text), ref),
        ...addressesIn(text(payload.text), "user_stated", ref),
      );
    }
    if (event.type === "assistant_output" && payload.role === "answer") {
      candidates.push(...addressesIn(text(payload.text), "model_inference", ref));
    }
  }
  const selfWritten = selfWrittenReads(ledger);
  candidates.push(...receiptFacts(ledger, selfWritten));

  const outputs = authoritativeOutputs(ledger, selfWritten);
  const known = new Set(
    existing
      .filter((item) => item.verificationStatus !== "rejected")
      .map((item) => `${item.kind}\u0000${item.content}`),
  );
  const seen = new Set<string>();
  const create: Array<ConsolidationPlan["create"][number]> = [];
  for (const candidate of candidates) {
    const key = `${candidate.kind}\u0000${candidate.content}`;
    if (known.has(key) || seen.has(key)) continue;
    seen.add(key);
    const confirming = candidate.whitelisted ? undefined : confirmedBy(outputs, candidate.content);
    if (candidate.whitelisted) create.push({ ...candidate, status: "verified" });
    else if (confirming) {
      // Backed by a successful read of the authoritative source in this very run.
      create.push({
        ...candidate,
        provenance: "receipt",
        sourceRef: `${ledger.run.runId}/${confirming.callId}`,
        evidence: { ...candidate.evidence, confirmed_by: confirming.toolName },
        confidence: 0.9,
        status: "verified",
      });
    } else if (gate === "enforce") create.push({ ...candidate, status: "pending" });
    // `off` keeps the old behaviour (active); `observe` does too but records what would have been blocked.
    else
      create.push({
        ...candidate,
        status: "verified",
        ...(gate === "observe" ? { gate: "would_block" as const } : {}),
      });
  }

  const promote = existing
    .filter((item) => item.verificationStatus === "pending")
    .flatMap((item) => {
      const confirming = confirmedBy(outputs, item.content);
      return confirming
        ? [{ id: item.id, sourceRef: `${ledger.run.runId}/${confirming.callId}`, toolName: confirming.toolName }]
        : [];
    });
  return { create, promote };
}
