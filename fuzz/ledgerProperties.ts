/**
 * Property tests over ledger append sequences (fast-check): arbitrary sequences of createRun,
 * appendEvents, recordReceipt, finishRun, recoverInterrupted and connection restarts over a few run
 * ids, against the real SqlAgentRunStore on a real SQLite file, with injected statement
 * failures and crashes (the connection closed in the middle of a batch).
 *
 * After every operation a separate read-only connection reads the whole file and checks:
 * 1. the persisted ledger keeps its invariants (contiguous sequences from 1, at most one terminal
 *    event and it is the last, the run row's state is the terminal event's, tool_result after its
 *    tool_call, one receipt per call and never without its tool_call, no secret and no oversized
 *    payload stored);
 * 2. atomicity: a failed operation changes nothing at all; a successful one adds exactly its rows
 *    and never changes or deletes an existing row (the run row's closing columns aside);
 * 3. the store agrees with an in-memory model on accepting or refusing each operation, and on the
 *    refusal's reason (the model gives every reason that applies to the first refused row);
 * 4. at the end of each sequence: `PRAGMA integrity_check`, recovery closes every run the model
 *    says it can, and a second recovery finds nothing.
 *
 * The store runs over an SqlClient built here (`Client.make` over one better-sqlite3 connection,
 * as @effect/sql-sqlite-node builds its own) so that the k-th statement of an operation can fail
 * or close the connection before it runs.
 *
 * Anything the model does not expect is a violation. (The suite found four defects, fixed in the
 * store: an opening terminal event was accepted; an unknown run's events were refused with another
 * reason; a sequence below 1 was a storage failure; a failed BEGIN/COMMIT was a defect.)
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Reactivity from "@effect/experimental/Reactivity";
import { SqlClient, SqlError } from "@effect/sql";
import type { Connection } from "@effect/sql/SqlConnection";
import * as Statement from "@effect/sql/Statement";
import Sqlite from "better-sqlite3";
import { Cause, Effect, Exit, Logger, LogLevel, Option } from "effect";
import fc from "fast-check";
import type {
  CanonicalEventType,
  ExecutionReceipt,
  JsonValue,
  ReasonCode,
  TerminalState,
} from "../src/domain/index.js";
import { NONE_CONTRACT } from "../src/domain/index.js";
import type { AgentRunStoreShape, EventToAppend, RecoveredRun } from "../src/persistence/AgentRunStore.js";
import { LedgerError } from "../src/persistence/AgentRunStore.js";
import { Dialect } from "../src/persistence/engine/Dialect.js";
import { CONNECTION_PRAGMAS } from "../src/persistence/engine/sqlite/client.js";
import * as SqliteDialect from "../src/persistence/engine/sqlite/dialect.js";
import * as Ledger from "../src/persistence/ledger.js";
import * as SqlAgentRunStore from "../src/persistence/SqlAgentRunStore.js";
import type { FuzzReport } from "./report.js";

// --- The generated operations (symbolic: resolved against the model when they run) -------------

const RUN_IDS = ["r1", "r2", "r3", "r4", "r5"] as const;
/** A run id no operation ever creates. */
const GHOST = "ghost";
const CALL_POOL = ["c1", "c2", "c3"] as const;
const FINGERPRINT = "f".repeat(64);

// --- Payload contents ----------------------------------------------------------------------------

/** Secrets in the shapes the redactor knows, and the part of each that must never be stored. */
const SECRETS: ReadonlyArray<{ readonly text: string; readonly marker: string; readonly key?: string }> = [
  { text: "use sk-A1b2C3d4E5f6G7h8J9k0L1m2 for the call", marker: "A1b2C3d4E5f6G7h8J9k0L1m2" },
  { text: "export OPENAI_API_KEY=zq7supersecretvalue123 && run", marker: "zq7supersecretvalue123" },
  { text: "Authorization: Bearer abcdefghijklmnop1234", marker: "abcdefghijklmnop1234" },
  { text: "clone with ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", marker: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" },
  { text: "login password=hunter2-correct-horse", marker: "hunter2-correct-horse" },
  { text: "a secret under a key", marker: "vault-value-9f8e7d6c5b4a", key: "client_secret" },
];

/** How an event's sequence relates to the run's next free one. */
type SeqSpec =
  | { readonly k: "next" }
  | { readonly k: "gap"; readonly by: number }
  | { readonly k: "back"; readonly by: number }
  | { readonly k: "zero" };
/** Which call id an event or receipt names. */
type CallSpec =
  | { readonly k: "fresh" }
  | { readonly k: "open"; readonly pick: number }
  | { readonly k: "existing"; readonly pick: number }
  | { readonly k: "pool"; readonly id: string }
  | { readonly k: "empty" }
  | { readonly k: "missing" };
/** `hugeUnicode`: over the cap in multi-byte characters, quotes, backslashes and control characters. */
type Content = "plain" | "huge" | "hugeUnicode" | "secret" | "hugeSecret";
type EventKind = "user_input" | "assistant_output" | "provider_anomaly" | "tool_call" | "tool_result" | "terminal";

interface EventSpec {
  readonly type: EventKind;
  readonly seq: SeqSpec;
  readonly call: CallSpec;
  readonly content: Content;
  readonly secret: number;
}

interface ReceiptSpec {
  /** "same": the operation's run; otherwise a run as `runIdArb` names one (another run, the ghost). */
  readonly run: string;
  readonly call: CallSpec;
  /** "default": `${runId}:${callId}`; otherwise a fixed id shared between receipts. */
  readonly id: "default" | "shared";
  readonly status: ExecutionReceipt["status"];
  readonly content: Content;
  readonly secret: number;
}

interface Fault {
  /** `error`: the statement fails (an I/O error); `crash`: the connection is closed before it runs. */
  readonly mode: "error" | "crash";
  /** The 1-based statement of the operation that fails (reads, BEGIN, SAVEPOINT and COMMIT count; ROLLBACK never fails). */
  readonly at: number;
}

type Op = { readonly fault: Fault | null } & (
  | { readonly kind: "createRun"; readonly run: string; readonly events: ReadonlyArray<EventSpec> }
  | {
      readonly kind: "appendEvents";
      readonly run: string;
      readonly events: ReadonlyArray<EventSpec>;
      readonly receipts: ReadonlyArray<ReceiptSpec>;
    }
  | { readonly kind: "recordReceipt"; readonly run: string; readonly receipt: ReceiptSpec }
  | {
      readonly kind: "finishRun";
      readonly run: string;
      readonly seq: SeqSpec;
      readonly state: TerminalState | "running";
      readonly reason: ReasonCode;
      readonly events: ReadonlyArray<EventSpec>;
      readonly receipts: ReadonlyArray<ReceiptSpec>;
      readonly detail: Content | null;
      readonly secret: number;
    }
  | { readonly kind: "recoverInterrupted" }
  | { readonly kind: "restart" }
);

const seqArb: fc.Arbitrary<SeqSpec> = fc.oneof(
  { weight: 24, arbitrary: fc.constant({ k: "next" as const }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }).map((by) => ({ k: "gap" as const, by })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 }).map((by) => ({ k: "back" as const, by })) },
  { weight: 1, arbitrary: fc.constant({ k: "zero" as const }) },
);

const callArb: fc.Arbitrary<CallSpec> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ k: "fresh" as const }) },
  { weight: 10, arbitrary: fc.nat(7).map((pick) => ({ k: "open" as const, pick })) },
  { weight: 2, arbitrary: fc.nat(7).map((pick) => ({ k: "existing" as const, pick })) },
  { weight: 2, arbitrary: fc.constantFrom(...CALL_POOL).map((id) => ({ k: "pool" as const, id })) },
  { weight: 1, arbitrary: fc.constant({ k: "empty" as const }) },
  { weight: 1, arbitrary: fc.constant({ k: "missing" as const }) },
);

const contentArb: fc.Arbitrary<Content> = fc.oneof(
  { weight: 12, arbitrary: fc.constant("plain" as const) },
  { weight: 1, arbitrary: fc.constant("huge" as const) },
  { weight: 2, arbitrary: fc.constant("secret" as const) },
  { weight: 1, arbitrary: fc.constant("hugeSecret" as const) },
  { weight: 1, arbitrary: fc.constant("hugeUnicode" as const) },
);

const eventArb = (terminalWeight: number): fc.Arbitrary<EventSpec> =>
  fc.record({
    type: fc.oneof(
      { weight: 3, arbitrary: fc.constant("user_input" as const) },
      { weight: 2, arbitrary: fc.constant("assistant_output" as const) },
      { weight: 1, arbitrary: fc.constant("provider_anomaly" as const) },
      { weight: 5, arbitrary: fc.constant("tool_call" as const) },
      { weight: 5, arbitrary: fc.constant("tool_result" as const) },
      { weight: terminalWeight, arbitrary: fc.constant("terminal" as const) },
    ),
    seq: seqArb,
    call: callArb,
    content: contentArb,
    secret: fc.nat(SECRETS.length - 1),
  });

/** A run: mostly `live:<n>` (an open run of the model, when there is one), else a fixed id or the ghost. */
const runIdArb = fc.oneof(
  { weight: 10, arbitrary: fc.nat(5).map((n) => `live:${n}`) },
  { weight: 3, arbitrary: fc.constantFrom(...RUN_IDS) },
  { weight: 1, arbitrary: fc.constant(GHOST) },
);

const receiptArb: fc.Arbitrary<ReceiptSpec> = fc.record({
  run: fc.oneof({ weight: 12, arbitrary: fc.constant("same") }, { weight: 1, arbitrary: runIdArb }),
  call: callArb,
  id: fc.oneof(
    { weight: 12, arbitrary: fc.constant("default" as const) },
    { weight: 1, arbitrary: fc.constant("shared" as const) },
  ),
  status: fc.constantFrom("ok", "error", "cancelled", "timed_out"),
  content: contentArb,
  secret: fc.nat(SECRETS.length - 1),
});

const TERMINAL_STATES: ReadonlyArray<TerminalState> = ["completed", "unverified", "incomplete", "failed", "cancelled"];
const REASONS: ReadonlyArray<ReasonCode> = [
  "answered",
  "receipt_missing",
  "provider_error",
  "cancelled_by_user",
  "doom_loop",
];

const createArb = (fault: fc.Arbitrary<Fault | null>, openingTerminal: boolean): fc.Arbitrary<Op> =>
  fc.record({
    kind: fc.constant("createRun" as const),
    run: fc.constantFrom(...RUN_IDS),
    events: fc.array(eventArb(openingTerminal ? 1 : 0), { maxLength: 3 }),
    fault,
  });

const faultArb = (faults: boolean): fc.Arbitrary<Fault | null> =>
  faults
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.record({
            mode: fc.constantFrom("error" as const, "crash" as const),
            at: fc.integer({ min: 1, max: 6 }),
          }),
        },
      )
    : fc.constant(null);

/** A sequence: a createRun first (so that most operations meet a run), then any operations. */
const sequenceArb = (faults: boolean, openingTerminal: boolean): fc.Arbitrary<Op[]> =>
  fc
    .tuple(
      createArb(faultArb(faults), openingTerminal),
      fc.array(opArb(faults, openingTerminal), { maxLength: 40, size: "medium" }),
    )
    .map(([first, rest]) => [first, ...rest]);

const opArb = (faults: boolean, openingTerminal: boolean): fc.Arbitrary<Op> => {
  const fault: fc.Arbitrary<Fault | null> = faultArb(faults);
  return fc.oneof(
    { weight: 3, arbitrary: createArb(fault, openingTerminal) },
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant("appendEvents" as const),
        run: runIdArb,
        events: fc.array(eventArb(1), { maxLength: 4 }),
        receipts: fc.array(receiptArb, { maxLength: 2 }),
        fault,
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant("recordReceipt" as const), run: runIdArb, receipt: receiptArb, fault }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("finishRun" as const),
        run: runIdArb,
        seq: seqArb,
        state: fc.oneof(
          { weight: 20, arbitrary: fc.constantFrom(...TERMINAL_STATES) },
          { weight: 1, arbitrary: fc.constant("running" as const) },
        ),
        reason: fc.constantFrom(...REASONS),
        events: fc.array(eventArb(0), { maxLength: 2 }),
        receipts: fc.array(receiptArb, { maxLength: 2 }),
        detail: fc.option(contentArb, { freq: 2 }),
        secret: fc.nat(SECRETS.length - 1),
        fault,
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("recoverInterrupted" as const), fault }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("restart" as const), fault: fc.constant(null) }) },
  );
};

/** The payload cap the store runs with: small, so that huge payloads stay cheap. */
const CAP_BYTES = 4096;

function contentText(content: Content, secret: number, salt: number): string {
  const s = SECRETS[secret % SECRETS.length]!;
  switch (content) {
    case "plain":
      return `text ${salt}`;
    case "huge":
      return `${"x".repeat(CAP_BYTES * 2)} ${salt}`;
    case "hugeUnicode":
      return `${salt} ${'ü😀"\\\u0001€'.repeat(CAP_BYTES / 4)}`;
    case "secret":
      return s.key ? `text ${salt}` : s.text;
    case "hugeSecret":
      return `${s.key ? "" : s.text} ${"y".repeat(CAP_BYTES * 2)} ${s.key ? "" : s.text}`;
  }
}

/** A JSON object with the content, and the secret under its key where the secret is one. */
function contentObject(field: string, content: Content, secret: number, salt: number): Record<string, JsonValue> {
  const s = SECRETS[secret % SECRETS.length]!;
  const keyed = (content === "secret" || content === "hugeSecret") && s.key ? { [s.key]: s.marker } : {};
  return { [field]: contentText(content, secret, salt), ...keyed };
}

// --- The model -------------------------------------------------------------------------------------

interface ModelEvent {
  readonly sequence: number;
  readonly type: EventKind;
  /** The call id as `json_extract($.callId)` reads it (undefined: no such key). */
  readonly callId: string | undefined;
  readonly terminalState?: string;
}

interface ModelRun {
  readonly events: ModelEvent[];
  state: string;
  readonly receiptCalls: Set<string>;
  failureCode: string | null;
}

interface Model {
  readonly runs: Map<string, ModelRun>;
  readonly receiptIds: Set<string>;
}

const cloneModel = (model: Model): Model => ({
  runs: new Map(
    [...model.runs].map(([id, run]) => [
      id,
      {
        events: [...run.events],
        state: run.state,
        receiptCalls: new Set(run.receiptCalls),
        failureCode: run.failureCode,
      },
    ]),
  ),
  receiptIds: new Set(model.receiptIds),
});

export interface Added {
  readonly events: Array<{ runId: string; sequence: number; type: string }>;
  readonly receipts: Array<{ receiptId: string; runId: string; callId: string }>;
  readonly created: string[];
  readonly closed: Array<{ runId: string; state: string; reason: string }>;
}

export const noneAdded = (): Added => ({ events: [], receipts: [], created: [], closed: [] });

/** The reasons the ledger may give for refusing this event row, or none when it must accept it. */
function eventRefusals(model: Model, runId: string, event: ModelEvent): string[] {
  const run = model.runs.get(runId);
  if (!run) return ["unknown_run"];
  const reasons: string[] = [];
  const length = run.events.length;
  if (run.state !== "running") reasons.push("run_not_running");
  if (event.sequence > length + 1) reasons.push("sequence_gap");
  if (event.sequence >= 1 && event.sequence <= length) reasons.push("duplicate_sequence");
  if (event.sequence < 1) reasons.push("invalid_payload");
  if (run.events.some((e) => e.type === "terminal") && event.sequence > length) reasons.push("event_after_terminal");
  if (event.type === "tool_call" || event.type === "tool_result") {
    if (!event.callId) reasons.push("missing_call_id");
    else {
      const called = run.events.some((e) => e.type === "tool_call" && e.callId === event.callId);
      const answered = run.events.some((e) => e.type === "tool_result" && e.callId === event.callId);
      if (event.type === "tool_call" && called) reasons.push("duplicate_tool_call");
      if (event.type === "tool_result" && !called) reasons.push("orphan_tool_result");
      if (event.type === "tool_result" && answered) reasons.push("duplicate_tool_result");
    }
  }
  return reasons;
}

function receiptRefusals(model: Model, receipt: ExecutionReceipt): string[] {
  const run = model.runs.get(receipt.runId);
  if (!run) return ["unknown_run"];
  const reasons: string[] = [];
  if (run.state !== "running") reasons.push("run_not_running");
  if (!run.events.some((e) => e.type === "tool_call" && e.callId === receipt.callId))
    reasons.push("receipt_without_call");
  if (run.receiptCalls.has(receipt.callId) || model.receiptIds.has(receipt.receiptId))
    reasons.push("duplicate_receipt");
  return reasons;
}

type Verdict =
  | { readonly ok: true; readonly model: Model; readonly added: Added }
  | {
      readonly ok: false;
      readonly reasons: string[];
      readonly row: string;
      /** For an event of an unknown run: the reasons it would get in an empty run. */
    };

const toModelEvent = (event: EventToAppend): ModelEvent => {
  const payload = event.payload as Record<string, JsonValue>;
  const callId = payload.callId;
  return {
    sequence: event.sequence,
    type: event.type,
    callId: typeof callId === "string" ? callId : undefined,
    ...(event.type === "terminal" ? { terminalState: String(payload.terminalState) } : {}),
  };
};

/** Applies events then receipts to a copy of the model, as one all-or-nothing batch. */
function applyRows(
  base: Model,
  runId: string,
  events: ReadonlyArray<EventToAppend>,
  receipts: ReadonlyArray<ExecutionReceipt>,
  added: Added,
): Verdict {
  const model = base;
  for (const event of events) {
    const row = toModelEvent(event);
    const reasons = eventRefusals(model, runId, row);
    if (reasons.length > 0) {
      return {
        ok: false,
        reasons,
        row: `event ${runId}#${event.sequence} ${event.type}`,
      };
    }
    model.runs.get(runId)!.events.push(row);
    added.events.push({ runId, sequence: event.sequence, type: event.type });
  }
  for (const receipt of receipts) {
    const reasons = receiptRefusals(model, receipt);
    if (reasons.length > 0) return { ok: false, reasons, row: `receipt ${receipt.receiptId}` };
    model.runs.get(receipt.runId)!.receiptCalls.add(receipt.callId);
    model.receiptIds.add(receipt.receiptId);
    added.receipts.push({ receiptId: receipt.receiptId, runId: receipt.runId, callId: receipt.callId });
  }
  return { ok: true, model, added };
}

/** What the ledger should do with one concrete call. */
type Concrete =
  | { readonly kind: "createRun"; readonly runId: string; readonly events: EventToAppend[] }
  | {
      readonly kind: "appendEvents";
      readonly runId: string;
      readonly events: EventToAppend[];
      readonly receipts: ExecutionReceipt[];
    }
  | { readonly kind: "recordReceipt"; readonly receipt: ExecutionReceipt }
  | {
      readonly kind: "finishRun";
      readonly runId: string;
      readonly sequence: number;
      readonly state: string;
      readonly reason: ReasonCode;
      readonly events: EventToAppend[];
      readonly receipts: ExecutionReceipt[];
      readonly detail: string | null;
    }
  | { readonly kind: "recoverInterrupted" }
  | { readonly kind: "restart" };

function decide(model: Model, op: Concrete): Verdict {
  const next = cloneModel(model);
  const added = noneAdded();
  switch (op.kind) {
    case "createRun": {
      // A terminal event is written only with the run row's closing (finishRun); an opening
      // terminal event would leave a `running` row behind a terminal event. The input is checked
      // before the database is asked.
      if (op.events.some((event) => event.type === "terminal")) {
        return { ok: false, reasons: ["invalid_payload"], row: `opening terminal event of ${op.runId}` };
      }
      if (next.runs.has(op.runId)) return { ok: false, reasons: ["duplicate_run"], row: `run ${op.runId}` };
      next.runs.set(op.runId, { events: [], state: "running", receiptCalls: new Set(), failureCode: null });
      added.created.push(op.runId);
      return applyRows(next, op.runId, op.events, [], added);
    }
    case "appendEvents":
      if (op.events.some((event) => event.type === "terminal")) {
        return { ok: false, reasons: ["invalid_payload"], row: `terminal event in appendEvents ${op.runId}` };
      }
      if (op.receipts.some((receipt) => receipt.runId !== op.runId)) {
        return { ok: false, reasons: ["invalid_payload"], row: `another run's receipt in appendEvents ${op.runId}` };
      }
      return applyRows(next, op.runId, op.events, op.receipts, added);
    case "recordReceipt":
      return applyRows(next, op.receipt.runId, [], [op.receipt], added);
    case "finishRun": {
      if (op.receipts.some((receipt) => receipt.runId !== op.runId)) {
        return { ok: false, reasons: ["invalid_payload"], row: `another run's receipt in finishRun ${op.runId}` };
      }
      const terminal: EventToAppend = {
        sequence: op.sequence,
        type: "terminal",
        payload: { terminalState: op.state, reason: op.reason, finalText: "", steps: 0, correctionTurns: 0 },
      };
      const verdict = applyRows(next, op.runId, [...op.events, terminal], op.receipts, added);
      if (!verdict.ok) return verdict;
      if (op.state === "running") return { ok: false, reasons: ["run_update_not_terminal"], row: `run ${op.runId}` };
      const run = next.runs.get(op.runId)!;
      run.state = op.state;
      run.failureCode = op.reason;
      added.closed.push({ runId: op.runId, state: op.state, reason: op.reason });
      return verdict;
    }
    case "recoverInterrupted":
    case "restart":
      return { ok: true, model: next, added };
  }
}

/** The closing batch recovery writes for an open run (SqlAgentRunStore.recoverRun). */
function recoveryOf(model: Model, runId: string, endedAt: string): { closure: Concrete; cancelled: string[] } {
  const run = model.runs.get(runId)!;
  const dangling = run.events.filter(
    (event) => event.type === "tool_call" && event.callId !== undefined && !run.receiptCalls.has(event.callId),
  );
  const receipts = dangling.map(
    (call): ExecutionReceipt => ({
      receiptId: `${runId}:${call.callId}`,
      runId,
      callId: call.callId!,
      toolName: "read_file",
      status: "cancelled",
      reason: "interrupted",
      startedAt: endedAt,
      finishedAt: endedAt,
      inputFingerprint: FINGERPRINT,
      evidence: {},
      verificationStatus: "unverified",
    }),
  );
  const last = run.events.reduce((max, event) => Math.max(max, event.sequence), 0);
  return {
    closure: {
      kind: "finishRun",
      runId,
      sequence: last + 1,
      state: "failed",
      reason: "interrupted",
      events: [],
      receipts,
      detail: null,
    },
    cancelled: dangling.map((call) => call.callId!),
  };
}

// --- Resolving the symbolic operations against the model ------------------------------------------

interface Resolver {
  salt: number;
}

function resolveSeq(spec: SeqSpec, cursor: number): number {
  switch (spec.k) {
    case "next":
      return cursor + 1;
    case "gap":
      return cursor + 1 + spec.by;
    case "back":
      return Math.max(1, cursor - spec.by);
    case "zero":
      return 0;
  }
}

/** Call ids of the run's tool_calls (committed and earlier in the batch), and those not answered. */
interface CallView {
  readonly called: string[];
  readonly open: string[];
}

function callsOf(model: Model, runId: string, batch: ReadonlyArray<EventToAppend>): CallView {
  const events = [...(model.runs.get(runId)?.events ?? []), ...batch.map(toModelEvent)];
  const called = events.filter((e) => e.type === "tool_call" && e.callId).map((e) => e.callId!);
  const answered = new Set(events.filter((e) => e.type === "tool_result" && e.callId).map((e) => e.callId!));
  return { called, open: called.filter((id) => !answered.has(id)) };
}

function resolveCall(spec: CallSpec, view: CallView, resolver: Resolver): string | undefined | "" {
  switch (spec.k) {
    case "fresh":
      resolver.salt += 1;
      return `call-${resolver.salt}`;
    case "open":
      if (view.open.length > 0) return view.open[spec.pick % view.open.length];
      return view.called.length > 0
        ? view.called[spec.pick % view.called.length]
        : CALL_POOL[spec.pick % CALL_POOL.length];
    case "existing":
      return view.called.length > 0
        ? view.called[spec.pick % view.called.length]
        : CALL_POOL[spec.pick % CALL_POOL.length];
    case "pool":
      return spec.id;
    case "empty":
      return "";
    case "missing":
      return undefined;
  }
}

function resolveEvents(
  model: Model,
  runId: string,
  specs: ReadonlyArray<EventSpec>,
  resolver: Resolver,
): EventToAppend[] {
  const out: EventToAppend[] = [];
  let cursor = model.runs.get(runId)?.events.length ?? 0;
  for (const spec of specs) {
    const sequence = resolveSeq(spec.seq, cursor);
    cursor = sequence;
    resolver.salt += 1;
    const salt = resolver.salt;
    const callOf = (view: CallView): Record<string, JsonValue> => {
      const id = resolveCall(spec.call, view, resolver);
      return id === undefined ? {} : { callId: id };
    };
    let payload: JsonValue;
    let type: CanonicalEventType = spec.type;
    switch (spec.type) {
      case "user_input":
        payload = contentObject("text", spec.content, spec.secret, salt);
        break;
      case "assistant_output":
        payload = { ...contentObject("text", spec.content, spec.secret, salt), finishReason: "stop" };
        break;
      case "provider_anomaly":
        payload = { code: "malformed", ...contentObject("detail", spec.content, spec.secret, salt) };
        break;
      case "tool_call": {
        // A fresh call unless the spec names one on purpose.
        const view = callsOf(model, runId, out);
        const call = spec.call.k === "open" ? { callId: resolveCall({ k: "fresh" }, view, resolver)! } : callOf(view);
        payload = {
          step: 1,
          ...call,
          toolName: "read_file",
          arguments: contentObject("path", spec.content, spec.secret, salt),
          inputFingerprint: FINGERPRINT,
        };
        break;
      }
      case "tool_result":
        payload = {
          step: 1,
          ...callOf(callsOf(model, runId, out)),
          toolName: "read_file",
          status: "ok",
          ...contentObject("output", spec.content, spec.secret, salt),
          outputHash: "b".repeat(64),
        };
        break;
      case "terminal":
        type = "terminal";
        payload = {
          terminalState: "completed",
          reason: "answered",
          finalText: contentText(spec.content, spec.secret, salt),
          steps: 1,
          correctionTurns: 0,
        };
        break;
    }
    out.push({ sequence, type, payload });
  }
  return out;
}

function resolveReceipts(
  model: Model,
  runId: string,
  batch: ReadonlyArray<EventToAppend>,
  specs: ReadonlyArray<ReceiptSpec>,
  resolver: Resolver,
): ExecutionReceipt[] {
  return specs.map((spec) => {
    const target = spec.run === "same" ? runId : resolveRun(model, spec.run);
    const view = callsOf(model, target, target === runId ? batch : []);
    // A receipt answers a call: "open" means a call that has no receipt yet.
    const withoutReceipt = view.called.filter((id) => !model.runs.get(target)?.receiptCalls.has(id));
    const callId =
      spec.call.k === "open" && withoutReceipt.length > 0
        ? withoutReceipt[spec.call.pick % withoutReceipt.length]!
        : (resolveCall(spec.call, view, resolver) ?? "");
    resolver.salt += 1;
    const ok = spec.status === "ok";
    return {
      receiptId: spec.id === "shared" ? "receipt-shared" : `${target}:${callId}`,
      runId: target,
      callId,
      toolName: "read_file",
      status: spec.status,
      ...(ok ? {} : { reason: "tool_error" as const }),
      startedAt: "2024-01-01T00:00:00.000Z",
      finishedAt: "2024-01-01T00:00:01.000Z",
      inputFingerprint: FINGERPRINT,
      evidence: contentObject("note", spec.content, spec.secret, resolver.salt),
      verificationStatus: ok ? "verified" : "unverified",
    };
  });
}

/** `live:<n>`: the n-th open run (else the n-th run, else a run id not created yet). */
function resolveRun(model: Model, spec: string): string {
  const live = /^live:(\d+)$/.exec(spec);
  if (!live) return spec;
  const n = Number(live[1]);
  const open = [...model.runs].filter(([, run]) => run.state === "running").map(([id]) => id);
  if (open.length > 0) return open[n % open.length]!;
  const known = [...model.runs.keys()];
  return known.length > 0 ? known[n % known.length]! : RUN_IDS[n % RUN_IDS.length]!;
}

function resolve(model: Model, generated: Op, resolver: Resolver): Concrete {
  const op = "run" in generated ? { ...generated, run: resolveRun(model, generated.run) } : generated;
  switch (op.kind) {
    case "createRun":
      return { kind: "createRun", runId: op.run, events: resolveEvents(model, op.run, op.events, resolver) };
    case "appendEvents": {
      const events = resolveEvents(model, op.run, op.events, resolver);
      return {
        kind: "appendEvents",
        runId: op.run,
        events,
        receipts: resolveReceipts(model, op.run, events, op.receipts, resolver),
      };
    }
    case "recordReceipt":
      return { kind: "recordReceipt", receipt: resolveReceipts(model, op.run, [], [op.receipt], resolver)[0]! };
    case "finishRun": {
      const events = resolveEvents(model, op.run, op.events, resolver);
      const cursor = events.at(-1)?.sequence ?? model.runs.get(op.run)?.events.length ?? 0;
      resolver.salt += 1;
      return {
        kind: "finishRun",
        runId: op.run,
        sequence: resolveSeq(op.seq, cursor),
        state: op.state,
        reason: op.reason,
        events,
        receipts: resolveReceipts(model, op.run, events, op.receipts, resolver),
        detail: op.detail === null ? null : contentText(op.detail, op.secret, resolver.salt),
      };
    }
    case "recoverInterrupted":
      return { kind: "recoverInterrupted" };
    case "restart":
      return { kind: "restart" };
  }
}

const describeConcrete = (op: Concrete): string => {
  const events = (list: ReadonlyArray<EventToAppend>) =>
    list
      .map((e) => {
        const callId = (e.payload as Record<string, JsonValue>).callId;
        return `${e.sequence}:${e.type}${typeof callId === "string" ? `(${JSON.stringify(callId)})` : ""}`;
      })
      .join(",");
  const receipts = (list: ReadonlyArray<ExecutionReceipt>) =>
    list.map((r) => `${r.receiptId}[${r.runId}/${JSON.stringify(r.callId)}]`).join(",");
  switch (op.kind) {
    case "createRun":
      return `createRun(${op.runId}, [${events(op.events)}])`;
    case "appendEvents":
      return `appendEvents(${op.runId}, [${events(op.events)}], [${receipts(op.receipts)}])`;
    case "recordReceipt":
      return `recordReceipt(${receipts([op.receipt])})`;
    case "finishRun":
      return `finishRun(${op.runId}, seq ${op.sequence}, ${op.state}, events [${events(op.events)}], receipts [${receipts(op.receipts)}])`;
    case "recoverInterrupted":
      return "recoverInterrupted()";
    case "restart":
      return "restart()";
  }
};

// --- The connection with injectable faults ---------------------------------------------------------

class InjectedFault extends Error {}

/** One better-sqlite3 connection behind an SqlClient, whose k-th statement can be made to fail. */
class FaultyDriver {
  readonly db: Sqlite.Database;
  private readonly cache = new Map<string, Sqlite.Statement>();
  private fault: Fault | null = null;
  private count = 0;
  fired: Fault | null = null;
  /** The statement the fault hit. */
  firedSql = "";
  statements = 0;

  constructor(file: string) {
    this.db = new Sqlite(file);
    this.db.pragma("journal_mode = WAL");
    for (const pragma of CONNECTION_PRAGMAS) this.db.exec(pragma);
  }

  arm(fault: Fault | null): void {
    this.fault = fault;
    this.count = 0;
    this.fired = null;
  }

  /** Counts the statement; fails it (closing the connection on a crash) when it is the armed one. */
  private gate(sql: string): SqlError.SqlError | undefined {
    this.statements += 1;
    // A ROLLBACK always runs: a failing rollback is not the fault under test.
    if (/^\s*ROLLBACK\b/i.test(sql) || !this.fault || this.fired) return undefined;
    this.count += 1;
    if (this.count !== this.fault.at) return undefined;
    this.fired = this.fault;
    this.firedSql = sql;
    if (this.fault.mode === "crash") this.db.close();
    // A COMMIT that fails on an I/O error: SQLite rolls the transaction back by itself.
    else if (/^\s*COMMIT\b/i.test(sql) && this.db.inTransaction) this.db.exec("ROLLBACK");
    return new SqlError.SqlError({
      cause: new InjectedFault(`injected ${this.fault.mode} at statement ${this.fault.at}: ${sql.slice(0, 40)}`),
      message: "Failed to execute statement",
    });
  }

  private run(
    sql: string,
    params: ReadonlyArray<unknown>,
    prepared: boolean,
  ): Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError> {
    return Effect.suspend(() => {
      const fault = this.gate(sql);
      if (fault) return Effect.fail(fault);
      try {
        let statement = prepared ? this.cache.get(sql) : undefined;
        if (!statement) {
          statement = this.db.prepare(sql);
          if (prepared) this.cache.set(sql, statement);
        }
        if (statement.reader) return Effect.succeed(statement.all(...params) as ReadonlyArray<unknown>);
        statement.run(...params);
        return Effect.succeed([]);
      } catch (cause) {
        return Effect.fail(new SqlError.SqlError({ cause, message: "Failed to execute statement" }));
      }
    });
  }

  connection(): Connection {
    const rows = <A>(effect: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
      effect as Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>;
    return {
      execute: (sql, params, transform) =>
        transform ? Effect.map(rows<object>(this.run(sql, params, true)), transform) : this.run(sql, params, true),
      executeRaw: (sql, params) => this.run(sql, params, true),
      executeValues: (sql, params) =>
        Effect.map(this.run(sql, params, false), (list) => list.map((row) => Object.values(row as object))),
      executeUnprepared: (sql, params, transform) =>
        transform
          ? Effect.map(rows<object>(this.run(sql, params ?? [], false)), transform)
          : this.run(sql, params ?? [], false),
      executeStream: () => {
        throw new Error("executeStream is not used by the ledger");
      },
    };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) => Logger.withMinimumLogLevel(effect, LogLevel.None);

function openStore(file: string, now: () => string): { driver: FaultyDriver; store: AgentRunStoreShape } {
  const driver = new FaultyDriver(file);
  const connection = driver.connection();
  const store = Effect.runSync(
    Effect.gen(function* () {
      const client = yield* SqlClient.make({
        acquirer: Effect.succeed(connection),
        transactionAcquirer: Effect.succeed(connection),
        compiler: Statement.makeCompilerSqlite(),
        spanAttributes: [],
      });
      return yield* SqlAgentRunStore.make({ payloadCapBytes: CAP_BYTES, now }).pipe(
        Effect.provideService(SqlClient.SqlClient, client),
        Effect.provideService(Dialect, SqliteDialect.make(client)),
      );
    }).pipe(Effect.provideServiceEffect(Reactivity.Reactivity, Reactivity.make)),
  );
  return { driver, store };
}

// --- Reading the file --------------------------------------------------------------------------------

export interface Snapshot {
  /** table → rowid → the row as JSON. */
  readonly tables: Map<string, Map<number, string>>;
  readonly runs: Array<Record<string, unknown>>;
  readonly events: Array<{ run_id: string; sequence: number; event_type: string; payload_json: string }>;
  readonly receipts: Array<{ receipt_id: string; run_id: string; call_id: string; evidence_json: string }>;
}

export function snapshot(reader: Sqlite.Database): Snapshot {
  const names = (
    reader.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>
  ).map((row) => row.name);
  const tables = new Map<string, Map<number, string>>();
  const all: Record<string, Array<Record<string, unknown>>> = {};
  for (const name of names) {
    const rows = reader.prepare(`SELECT rowid AS __rowid, * FROM "${name}" ORDER BY rowid`).all() as Array<
      Record<string, unknown>
    >;
    all[name] = rows;
    tables.set(name, new Map(rows.map((row) => [Number(row.__rowid), JSON.stringify(row)])));
  }
  return {
    tables,
    runs: all.agent_runs ?? [],
    events: (all.agent_run_events ?? []) as unknown as Snapshot["events"],
    receipts: (all.agent_execution_receipts ?? []) as unknown as Snapshot["receipts"],
  };
}

/** Property 1: the persisted ledger keeps its invariants. Returns the broken ones. */
export function invariantBreaks(snap: Snapshot): string[] {
  const broken: string[] = [];
  const byRun = new Map<string, Snapshot["events"]>();
  for (const event of snap.events) byRun.set(event.run_id, [...(byRun.get(event.run_id) ?? []), event]);
  const runIds = new Set(snap.runs.map((run) => String(run.run_id)));
  for (const runId of byRun.keys()) if (!runIds.has(runId)) broken.push(`events of unknown run ${runId}`);
  for (const run of snap.runs) {
    const runId = String(run.run_id);
    const events = [...(byRun.get(runId) ?? [])].sort((a, b) => a.sequence - b.sequence);
    events.forEach((event, index) => {
      if (event.sequence !== index + 1) broken.push(`${runId}: sequence ${event.sequence} at position ${index + 1}`);
    });
    const terminals = events.filter((event) => event.event_type === "terminal");
    if (terminals.length > 1) broken.push(`${runId}: ${terminals.length} terminal events`);
    const terminal = terminals[0];
    if (terminal && events.at(-1) !== terminal) broken.push(`${runId}: events after the terminal event`);
    const terminalState = terminal
      ? String((JSON.parse(terminal.payload_json) as { terminalState?: unknown }).terminalState)
      : "running";
    if (run.terminal_state !== terminalState) {
      broken.push(`${runId}: run row ${String(run.terminal_state)} but terminal event says ${terminalState}`);
    }
    if ((run.terminal_state === "running") !== (run.ended_at === null))
      broken.push(`${runId}: ended_at ${String(run.ended_at)} for ${String(run.terminal_state)}`);
    const called = new Set<string>();
    const answered = new Set<string>();
    for (const event of events) {
      if (event.event_type !== "tool_call" && event.event_type !== "tool_result") continue;
      const callId = (JSON.parse(event.payload_json) as { callId?: unknown }).callId;
      if (typeof callId !== "string" || callId === "") {
        broken.push(`${runId}#${event.sequence}: ${event.event_type} without a call id`);
        continue;
      }
      if (event.event_type === "tool_call") {
        if (called.has(callId)) broken.push(`${runId}: second tool_call ${callId}`);
        called.add(callId);
      } else {
        if (!called.has(callId)) broken.push(`${runId}#${event.sequence}: tool_result ${callId} before its tool_call`);
        if (answered.has(callId)) broken.push(`${runId}: second tool_result ${callId}`);
        answered.add(callId);
      }
    }
    const receiptCalls = new Set<string>();
    for (const receipt of snap.receipts.filter((r) => r.run_id === runId)) {
      if (receiptCalls.has(receipt.call_id)) broken.push(`${runId}: second receipt for ${receipt.call_id}`);
      receiptCalls.add(receipt.call_id);
      if (!called.has(receipt.call_id)) broken.push(`${runId}: receipt ${receipt.receipt_id} without its tool_call`);
    }
    const detail = run.failure_detail;
    if (typeof detail === "string" && Buffer.byteLength(detail) > CAP_BYTES)
      broken.push(`${runId}: failure_detail over the cap`);
  }
  for (const receipt of snap.receipts)
    if (!runIds.has(receipt.run_id)) broken.push(`receipt ${receipt.receipt_id} of unknown run`);
  for (const event of snap.events) {
    if (Buffer.byteLength(event.payload_json) > CAP_BYTES)
      broken.push(`${event.run_id}#${event.sequence}: payload over the cap`);
  }
  for (const receipt of snap.receipts) {
    if (Buffer.byteLength(receipt.evidence_json) > CAP_BYTES)
      broken.push(`receipt ${receipt.receipt_id}: evidence over the cap`);
  }
  for (const [table, rows] of snap.tables) {
    for (const row of rows.values()) {
      for (const secret of SECRETS) {
        if (row.includes(secret.marker)) broken.push(`${table}: a stored secret (${secret.marker.slice(0, 8)}…)`);
      }
    }
  }
  return broken;
}

const LEDGER_ROW_TABLES = ["agent_runs", "agent_run_events", "agent_execution_receipts"];

/**
 * Property 2: compared with `before`, `after` holds exactly the rows `added` describes, every old
 * row unchanged except the closing columns of the runs `added` closes.
 */
export function diffBreaks(before: Snapshot, after: Snapshot, added: Added): string[] {
  const broken: string[] = [];
  const closing = new Map(added.closed.map((close) => [close.runId, close]));
  for (const [table, rows] of before.tables) {
    const now = after.tables.get(table);
    if (!now) {
      broken.push(`table ${table} disappeared`);
      continue;
    }
    for (const [rowid, json] of rows) {
      const current = now.get(rowid);
      if (current === undefined) {
        broken.push(`${table} row ${rowid} deleted: ${json.slice(0, 120)}`);
        continue;
      }
      if (current === json) continue;
      if (table === "sqlite_sequence" && added.events.length > 0) continue;
      if (table === "agent_runs") {
        const old = JSON.parse(json) as Record<string, unknown>;
        const row = JSON.parse(current) as Record<string, unknown>;
        const close = closing.get(String(old.run_id));
        const same = (column: string) => old[column] === row[column];
        if (
          close &&
          old.terminal_state === "running" &&
          row.terminal_state === close.state &&
          row.failure_code === close.reason &&
          row.ended_at !== null &&
          [
            "run_id",
            "session_id",
            "workspace_id",
            "provider_id",
            "model",
            "api_family",
            "completion_contract_json",
            "trace_id",
            "started_at",
          ].every(same)
        ) {
          closing.delete(String(old.run_id));
          continue;
        }
      }
      broken.push(`${table} row ${rowid} changed: ${json.slice(0, 160)} → ${current.slice(0, 160)}`);
    }
  }
  for (const close of closing.values()) broken.push(`run ${close.runId} not closed as ${close.state}`);
  for (const [table, rows] of after.tables) {
    const old = before.tables.get(table) ?? new Map<number, string>();
    const fresh = [...rows.keys()].filter((rowid) => !old.has(rowid));
    if (fresh.length === 0) continue;
    if (table === "sqlite_sequence") continue;
    if (!LEDGER_ROW_TABLES.includes(table)) {
      broken.push(`${fresh.length} new rows in ${table}`);
      continue;
    }
    const newRows = fresh.map((rowid) => JSON.parse(rows.get(rowid)!) as Record<string, unknown>);
    const got =
      table === "agent_runs"
        ? newRows.map((row) => `${String(row.run_id)}:${String(row.terminal_state)}`)
        : table === "agent_run_events"
          ? newRows.map((row) => `${String(row.run_id)}#${String(row.sequence)}:${String(row.event_type)}`)
          : newRows.map((row) => `${String(row.receipt_id)}[${String(row.run_id)}/${String(row.call_id)}]`);
    const want =
      table === "agent_runs"
        ? added.created.map((runId) => `${runId}:running`)
        : table === "agent_run_events"
          ? added.events.map((e) => `${e.runId}#${e.sequence}:${e.type}`)
          : added.receipts.map((r) => `${r.receiptId}[${r.runId}/${r.callId}]`);
    if (JSON.stringify([...got].sort()) !== JSON.stringify([...want].sort())) {
      broken.push(`new ${table} rows ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    }
  }
  for (const table of LEDGER_ROW_TABLES) {
    const expected =
      table === "agent_runs"
        ? added.created.length
        : table === "agent_run_events"
          ? added.events.length
          : added.receipts.length;
    const old = before.tables.get(table)?.size ?? 0;
    const now = after.tables.get(table)?.size ?? 0;
    if (now - old !== expected) broken.push(`${table}: ${now - old} rows added, expected ${expected}`);
  }
  return broken;
}

// --- Running a sequence ---------------------------------------------------------------------------

interface Figures {
  sequences: number;
  operations: number;
  accepted: number;
  refused: number;
  injectedFaults: number;
  injectedCrashes: number;
  restarts: number;
  recovered: number;
  propertiesChecked: number;
  statements: number;
  readonly reasons: Record<string, number>;
}

class Violation extends Error {}

function fail(step: number, op: string, what: string): never {
  throw new Violation(`op ${step} ${op}: ${what}`);
}

type Outcome =
  | { readonly _tag: "ok"; readonly value: unknown }
  | { readonly _tag: "refused"; readonly error: LedgerError }
  | { readonly _tag: "defect"; readonly text: string };

function runEffect(effect: Effect.Effect<unknown, LedgerError>): Outcome {
  const exit = Effect.runSyncExit(quiet(effect));
  if (Exit.isSuccess(exit)) return { _tag: "ok", value: exit.value };
  const failure = Cause.failureOption(exit.cause);
  if (Option.isSome(failure) && failure.value instanceof LedgerError) return { _tag: "refused", error: failure.value };
  return { _tag: "defect", text: Cause.pretty(exit.cause).split("\n")[0] ?? "defect" };
}

function callStore(store: AgentRunStoreShape, op: Concrete): Outcome {
  switch (op.kind) {
    case "createRun":
      return runEffect(
        store.createRun(
          { runId: op.runId, sessionId: "session-1", traceId: `trace-${op.runId}`, contract: NONE_CONTRACT },
          op.events,
        ),
      );
    case "appendEvents":
      return runEffect(store.appendEvents(op.runId, op.events, op.receipts));
    case "recordReceipt":
      return runEffect(store.recordReceipt(op.receipt));
    case "finishRun":
      return runEffect(
        store.finishRun(op.runId, {
          sequence: op.sequence,
          terminal: {
            terminalState: op.state as TerminalState,
            reason: op.reason,
            finalText: "",
            steps: 0,
            correctionTurns: 0,
          },
          failureDetail: op.detail,
          events: op.events,
          receipts: op.receipts,
        }),
      );
    case "recoverInterrupted":
      return runEffect(store.recoverInterrupted());
    case "restart":
      return { _tag: "ok", value: undefined };
  }
}

/** Runs one generated sequence on a fresh copy of the migrated template; throws a Violation. */
function runSequence(template: string, dir: string, ops: ReadonlyArray<Op>, figures: Figures, index: number): void {
  const file = join(dir, `seq-${index}.db`);
  copyFileSync(template, file);
  let tick = 0;
  const now = () => new Date(Date.UTC(2024, 0, 1) + tick++ * 1000).toISOString();
  let { driver, store } = openStore(file, now);
  const reader = new Sqlite(file, { readonly: true, fileMustExist: true });
  figures.sequences += 1;
  const restart = () => {
    figures.statements += driver.statements;
    driver.close();
    ({ driver, store } = openStore(file, now));
    figures.restarts += 1;
  };
  try {
    let model: Model = { runs: new Map(), receiptIds: new Set() };
    const resolver: Resolver = { salt: 0 };
    let before = snapshot(reader);
    ops.forEach((op, step) => {
      const concrete = resolve(model, op, resolver);
      const label = describeConcrete(concrete);
      figures.operations += 1;
      driver.arm(op.fault);
      const outcome = callStore(store, concrete);
      const fired = driver.fired;
      driver.arm(null);
      if (fired) figures[fired.mode === "crash" ? "injectedCrashes" : "injectedFaults"] += 1;
      const after = snapshot(reader);
      const broken = invariantBreaks(after);
      figures.propertiesChecked += 1;
      if (broken.length > 0) fail(step, label, `ledger invariant broken: ${broken.join("; ")}`);

      if (concrete.kind === "recoverInterrupted") {
        model = checkRecovery(model, before, after, outcome, fired, step, label, figures);
      } else {
        const verdict = decide(model, concrete);
        figures.propertiesChecked += 2;
        if (outcome._tag === "defect" && !defectExplained(fired))
          fail(step, label, `defect instead of a LedgerError: ${outcome.text}`);
        if (outcome._tag === "ok") {
          figures.accepted += 1;
          if (fired) fail(step, label, `succeeded although its statement ${fired.at} failed`);
          if (!verdict.ok)
            fail(step, label, `accepted, but the model refuses it (${verdict.reasons.join("|")} at ${verdict.row})`);
          const diff = diffBreaks(before, after, verdict.added);
          if (diff.length > 0) fail(step, label, `accepted, but its rows are not exactly its own: ${diff.join("; ")}`);
          model = verdict.model;
        } else {
          if (outcome._tag === "refused") {
            figures.refused += 1;
            figures.reasons[outcome.error.reason] = (figures.reasons[outcome.error.reason] ?? 0) + 1;
          }
          const diff = diffBreaks(before, after, noneAdded());
          if (diff.length > 0)
            fail(step, label, `failed (${outcomeText(outcome)}), but changed the file: ${diff.join("; ")}`);
          if (!fired) {
            if (verdict.ok) fail(step, label, `refused (${outcomeText(outcome)}), but the model accepts it`);
            if (outcome._tag === "refused" && !verdict.reasons.includes(outcome.error.reason)) {
              fail(
                step,
                label,
                `refused as ${outcome.error.reason}, the model expects ${verdict.reasons.join("|")} at ${verdict.row}`,
              );
            }
          }
        }
      }
      if (concrete.kind === "restart" || fired?.mode === "crash") restart();
      before = after;
    });
    finalChecks(model, store, reader, before, figures, ops.length);
  } finally {
    figures.statements += driver.statements;
    reader.close();
    driver.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  }
}

const outcomeText = (outcome: Outcome) =>
  outcome._tag === "refused"
    ? `LedgerError ${outcome.error.reason}`
    : outcome._tag === "defect"
      ? `defect ${outcome.text}`
      : "ok";

/**
 * Whether a defect (instead of a LedgerError) is what the injected fault explains: only a crash
 * (the ROLLBACK after it fails on the closed connection, and @effect/sql turns a failed ROLLBACK
 * into a defect). A failed BEGIN, SAVEPOINT or COMMIT must reach the caller as a LedgerError.
 */
function defectExplained(fired: Fault | null): boolean {
  return fired?.mode === "crash";
}

/** recoverInterrupted: the runs it reports closed are exactly the model's, each closed as recovery writes it. */
function checkRecovery(
  model: Model,
  before: Snapshot,
  after: Snapshot,
  outcome: Outcome,
  fired: Fault | null,
  step: number,
  label: string,
  figures: Figures,
): Model {
  figures.propertiesChecked += 2;
  let recovered: ReadonlyArray<RecoveredRun>;
  let cancelledKnown = true;
  if (outcome._tag === "ok") recovered = outcome.value as ReadonlyArray<RecoveredRun>;
  else {
    if (!fired) fail(step, label, `failed: ${outcomeText(outcome)}`);
    if (outcome._tag === "defect" && !defectExplained(fired)) {
      fail(step, label, `defect instead of a LedgerError: ${outcome.text}`);
    }
    // Each run closes in its own transaction: the runs closed before the failure stay closed.
    const wasOpen = new Set(
      before.runs.filter((run) => run.terminal_state === "running").map((run) => String(run.run_id)),
    );
    recovered = after.runs
      .filter((run) => wasOpen.has(String(run.run_id)) && run.terminal_state !== "running")
      .map((run) => ({ runId: String(run.run_id), sessionId: String(run.session_id), cancelledCallIds: [] }));
    cancelledKnown = false;
  }
  figures.recovered += recovered.length;
  let next = model;
  const added = noneAdded();
  const expected: string[] = [];
  for (const [runId, run] of model.runs) {
    if (run.state !== "running") continue;
    const { closure } = recoveryOf(next, runId, "");
    if (decide(next, closure).ok) expected.push(runId);
  }
  for (const run of recovered) {
    if (!expected.includes(run.runId)) fail(step, label, `recovered ${run.runId}, which the model cannot close`);
    const { closure, cancelled } = recoveryOf(next, run.runId, "");
    if (cancelledKnown && JSON.stringify(cancelled) !== JSON.stringify(run.cancelledCallIds)) {
      fail(
        step,
        label,
        `${run.runId}: cancelled calls ${JSON.stringify(run.cancelledCallIds)}, expected ${JSON.stringify(cancelled)}`,
      );
    }
    const verdict = decide(next, closure);
    if (!verdict.ok) return fail(step, label, `${run.runId}: recovery not accepted by the model`);
    next = verdict.model;
    added.events.push(...verdict.added.events);
    added.receipts.push(...verdict.added.receipts);
    added.closed.push(...verdict.added.closed);
  }
  if (!fired && recovered.length !== expected.length) {
    fail(
      step,
      label,
      `recovered ${JSON.stringify(recovered.map((r) => r.runId))}, expected ${JSON.stringify(expected)}`,
    );
  }
  const diff = diffBreaks(before, after, added);
  if (diff.length > 0) fail(step, label, `rows are not exactly the recovery's: ${diff.join("; ")}`);
  return next;
}

/** Property 4: integrity, then recovery closes every run it can and a second one finds nothing. */
function finalChecks(
  model: Model,
  store: AgentRunStoreShape,
  reader: Sqlite.Database,
  before: Snapshot,
  figures: Figures,
  step: number,
): void {
  const label = "final recoverInterrupted()";
  const integrity = reader.pragma("integrity_check", { simple: true });
  if (integrity !== "ok") fail(step, "PRAGMA integrity_check", String(integrity));
  const foreign = reader.pragma("foreign_key_check") as unknown[];
  if (foreign.length > 0) fail(step, "PRAGMA foreign_key_check", JSON.stringify(foreign));
  figures.propertiesChecked += 2;
  const first = runEffect(store.recoverInterrupted());
  const after = snapshot(reader);
  const next = checkRecovery(model, before, after, first, null, step, label, figures);
  const stillOpen = after.runs.filter((run) => run.terminal_state === "running").map((run) => String(run.run_id));
  const modelOpen = [...next.runs].filter(([, run]) => run.state === "running").map(([runId]) => runId);
  if (JSON.stringify(stillOpen.sort()) !== JSON.stringify(modelOpen.sort())) {
    fail(step, label, `runs left open ${JSON.stringify(stillOpen)}, the model ${JSON.stringify(modelOpen)}`);
  }
  if (stillOpen.length > 0) fail(step, label, `runs left open after recovery: ${stillOpen.join(", ")}`);
  const second = runEffect(store.recoverInterrupted());
  figures.propertiesChecked += 2;
  if (second._tag !== "ok" || (second.value as ReadonlyArray<RecoveredRun>).length !== 0) {
    fail(
      step + 1,
      "second recoverInterrupted()",
      `recovered again: ${outcomeText(second)} ${JSON.stringify(second._tag === "ok" ? second.value : null)}`,
    );
  }
  const final = snapshot(reader);
  const broken = invariantBreaks(final);
  if (broken.length > 0) fail(step + 1, "after recovery", broken.join("; "));
  const unread = readBackBreaks(store, final);
  figures.propertiesChecked += 1;
  if (unread.length > 0) fail(step + 1, "reading the ledger back", unread.join("; "));
}

/** The store's reads (getRun, listRunEvents, listReceipts, loadRunLedgers) give back what the file holds. */
function readBackBreaks(store: AgentRunStoreShape, snap: Snapshot): string[] {
  const broken: string[] = [];
  const read = <A>(effect: Effect.Effect<A, LedgerError>): A => Effect.runSync(quiet(effect));
  const runs = read(store.listRuns());
  if (runs.length !== snap.runs.length) broken.push(`listRuns: ${runs.length} runs, the file ${snap.runs.length}`);
  const ledgers = read(store.loadRunLedgers(runs));
  for (const row of snap.runs) {
    const runId = String(row.run_id);
    const run = read(store.getRun(runId));
    if (run?.terminalState !== row.terminal_state)
      broken.push(`getRun ${runId}: ${run?.terminalState}, the file ${String(row.terminal_state)}`);
    const events = snap.events
      .filter((event) => event.run_id === runId)
      .sort((a, b) => a.sequence - b.sequence)
      .map((event) => `${event.sequence}:${event.event_type}:${event.payload_json}`);
    const listed = read(store.listRunEvents(runId)).map((e) => `${e.sequence}:${e.type}:${JSON.stringify(e.payload)}`);
    if (JSON.stringify(listed) !== JSON.stringify(events)) broken.push(`listRunEvents ${runId} differs from the file`);
    const receipts = snap.receipts
      .filter((receipt) => receipt.run_id === runId)
      .map((receipt) => receipt.receipt_id)
      .sort();
    const listedReceipts = read(store.listReceipts(runId)).map((receipt) => receipt.receiptId);
    if (JSON.stringify([...listedReceipts].sort()) !== JSON.stringify(receipts)) {
      broken.push(`listReceipts ${runId}: ${JSON.stringify(listedReceipts)}, the file ${JSON.stringify(receipts)}`);
    }
    const ledger = ledgers.find((entry) => entry.run.runId === runId);
    if (
      !ledger ||
      ledger.events.length !== events.length ||
      JSON.stringify(ledger.receipts.map((receipt) => receipt.receiptId).sort()) !== JSON.stringify(receipts)
    ) {
      broken.push(`loadRunLedgers ${runId} differs from the file`);
    }
  }
  return broken;
}

// --- The entry point ---------------------------------------------------------------------------------

export interface LedgerPropertiesOptions {
  /** Sequences per property (two properties: without and with injected faults). */
  readonly numRuns: number;
  readonly seed?: number;
  /** Where the SQLite files go (a fresh temp directory, removed afterwards, by default). */
  readonly dir?: string;
  /**
   * Generate terminal events among createRun's opening events (default true). `false` fuzzes past
   * the bug they find (createRun accepts an opening terminal event and leaves the run `running`).
   */
  readonly openingTerminal?: boolean;
}

export async function runLedgerProperties(options: LedgerPropertiesOptions): Promise<FuzzReport> {
  const started = Date.now();
  const dir = mkdtempSync(join(options.dir ?? tmpdir(), "agentloop-ledger-fuzz-"));
  const figures: Figures = {
    sequences: 0,
    operations: 0,
    accepted: 0,
    refused: 0,
    injectedFaults: 0,
    injectedCrashes: 0,
    restarts: 0,
    recovered: 0,
    propertiesChecked: 0,
    statements: 0,
    reasons: {},
  };
  const violations: string[] = [];
  try {
    const template = join(dir, "template.db");
    await Effect.runPromise(Ledger.migrate(template));
    let index = 0;
    const properties: ReadonlyArray<readonly [string, boolean]> = [
      ["sequences without faults", false],
      ["sequences with injected statement failures and crashes", true],
    ];
    for (const [name, faults] of properties) {
      const property = fc.property(sequenceArb(faults, options.openingTerminal ?? true), (ops) => {
        runSequence(template, dir, ops, figures, index++);
      });
      const result = fc.check(property, {
        numRuns: options.numRuns,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
      });
      if (result.failed) {
        const error =
          result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        violations.push(
          `${name}: ${error} (seed ${result.seed}, path "${result.counterexamplePath}", shrunk counterexample ${fc.stringify(result.counterexample)})`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const reasons = Object.fromEntries(
    Object.entries(figures.reasons)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([reason, count]) => [`refused.${reason}`, count]),
  );
  return {
    suite: "ledger properties",
    figures: {
      numRuns: options.numRuns,
      sequences: figures.sequences,
      operations: figures.operations,
      accepted: figures.accepted,
      refused: figures.refused,
      ...reasons,
      injectedFaults: figures.injectedFaults,
      injectedCrashes: figures.injectedCrashes,
      restarts: figures.restarts,
      recoveredRuns: figures.recovered,
      statements: figures.statements,
      propertiesChecked: figures.propertiesChecked,
      violations: violations.length,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    },
    violations,
  };
}
