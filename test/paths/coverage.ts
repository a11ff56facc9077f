/**
 * Shared helpers of the model-based path tests (issue B): building a machine's state graph over
 * its full event alphabet, enumerating every transition of the machine definition, computing
 * which of them the graph's edges take, and the run-machine model the replay test reuses.
 *
 * Invoked actors never run during traversal (@xstate/graph uses a mock actor scope whose action
 * executor does nothing): their results are modelled as `xstate.done.actor.<id>` /
 * `xstate.error.actor.<id>` events.
 */
import { type AdjacencyMap, adjacencyMapToArray, getAdjacencyMap, getShortestPaths, type StatePath } from "@xstate/graph";
import {
  __unsafe_getAllOwnEventDescriptors,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
  type EventObject,
  transition,
} from "xstate";
import {
  type CompletionContract,
  type ExecutionReceipt,
  type FinishReason,
  type LoopEvent,
  type PlannedCall,
  type ReceiptStatus,
  type ToolKind,
  type ToolSettlement,
} from "../../src/domain/index.js";
import type { SampleOutcome, ToolResultsOutput, Verdict } from "../../src/machines/protocol.js";
import type { RunInput } from "../../src/machines/run.machine.js";
import { canonicalJson, inputFingerprint, sha256 } from "../../src/services/tools/fingerprint.js";

// --- Graphs ------------------------------------------------------------------------------------

export type Graph = AdjacencyMap<AnyMachineSnapshot, EventObject>;
export type GraphEdge = { state: AnyMachineSnapshot; event: EventObject; nextState: AnyMachineSnapshot };

export interface GraphOptions {
  readonly input: unknown;
  /** Every event that may be sent in `snapshot`; must name each event type the active states handle. */
  readonly events: (snapshot: AnyMachineSnapshot) => ReadonlyArray<EventObject>;
  readonly serializeState?: (snapshot: AnyMachineSnapshot) => string;
}

/** Traversal options shared by getAdjacencyMap / getShortestPaths / getSimplePaths. */
export function traversalOptions(options: GraphOptions) {
  return {
    input: options.input,
    events: (snapshot: AnyMachineSnapshot) => {
      const events = options.events(snapshot);
      // @xstate/graph silently sends a bare `{ type }` for any handled event type the list lacks
      // (a done event without `output` …): refuse, so the alphabet really is complete.
      const offered = new Set(events.map((event) => event.type));
      const missing = __unsafe_getAllOwnEventDescriptors(snapshot).filter((type) => !offered.has(type));
      if (missing.length > 0) {
        throw new Error(`the event model offers nothing for ${missing.join(", ")} in ${JSON.stringify(snapshot.value)}`);
      }
      return events;
    },
    stopWhen: (snapshot: AnyMachineSnapshot) => snapshot.status !== "active",
    ...(options.serializeState ? { serializeState: options.serializeState } : {}),
  };
}

export function buildGraph(machine: AnyStateMachine, options: GraphOptions): Graph {
  return getAdjacencyMap(machine, traversalOptions(options)) as Graph;
}

export function graphEdges(graph: Graph): GraphEdge[] {
  return adjacencyMapToArray(graph);
}

export function graphNodes(graph: Graph): AnyMachineSnapshot[] {
  return Object.values(graph).map((value) => value.state);
}

export function shortestPaths(
  machine: AnyStateMachine,
  options: GraphOptions,
): Array<StatePath<AnyMachineSnapshot, EventObject>> {
  return getShortestPaths(machine, traversalOptions(options)) as Array<StatePath<AnyMachineSnapshot, EventObject>>;
}

/** The events of a path, in order (a path's steps pair each event with the state it was sent in). */
export const pathEvents = (path: StatePath<AnyMachineSnapshot, EventObject>): EventObject[] =>
  path.steps.map((step) => step.event);

/** The final state nodes a snapshot is in. */
export const finalNodes = (snapshot: AnyMachineSnapshot): string[] =>
  snapshot._nodes.filter((node: AnyStateNode) => node.type === "final").map((node: AnyStateNode) => node.id);

/** What the machine emits (via `emit`) when `event` is sent in `snapshot`, without executing anything. */
export function emittedBy(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject): EventObject[] {
  const [, actions] = transition(machine, snapshot, event);
  return actions
    .filter((action) => action.type === "xstate.emit")
    .map((action) => (action.params as { event: EventObject }).event);
}

/**
 * Counts complete paths (initial node → a node that is no longer active) without listing them.
 * The graphs are acyclic apart from self-loops (CANCEL after CANCEL, CALL_STARTED), which a simple
 * path never takes; a real cycle is reported, since it would make the count meaningless.
 */
export function countEndingPaths(graph: Graph, serialize: (snapshot: AnyMachineSnapshot) => string): number {
  const keys = Object.keys(graph);
  const memo = new Map<string, number>();
  const visiting = new Set<string>();
  const count = (key: string): number => {
    const known = memo.get(key);
    if (known !== undefined) return known;
    if (visiting.has(key)) throw new Error(`the graph has a cycle through ${key}`);
    const value = graph[key as keyof Graph]!;
    if (value.state.status !== "active") {
      memo.set(key, 1);
      return 1;
    }
    visiting.add(key);
    let total = 0;
    for (const next of Object.values(value.transitions)) {
      const nextKey = serialize(next.state);
      if (nextKey !== key) total += count(nextKey);
    }
    visiting.delete(key);
    memo.set(key, total);
    return total;
  };
  return keys.length === 0 ? 0 : count(keys[0]!);
}

// --- Transition enumeration and coverage -----------------------------------------------------------

export interface TransitionInfo {
  /** `${source.id}|${eventType}|${index within that event's list}` */
  readonly id: string;
  readonly definition: AnyTransitionDefinition;
}

export function stateNodesOf(machine: AnyStateMachine): AnyStateNode[] {
  const nodes: AnyStateNode[] = [];
  const walk = (node: AnyStateNode) => {
    nodes.push(node);
    for (const child of Object.values(node.states) as AnyStateNode[]) walk(child);
  };
  walk(machine.root);
  return nodes;
}

/**
 * Every transition of the machine definition: each node's `transitions` (event handlers, invoke
 * onDone/onError under `xstate.done.actor.<id>` / `xstate.error.actor.<id>`, delayed transitions
 * under their `xstate.after.…` type) plus its eventless `always` transitions.
 */
export function transitionsOf(machine: AnyStateMachine): TransitionInfo[] {
  const transitions: TransitionInfo[] = [];
  for (const node of stateNodesOf(machine)) {
    for (const [eventType, definitions] of node.transitions) {
      definitions.forEach((definition: AnyTransitionDefinition, index: number) => {
        transitions.push({ id: `${node.id}|${eventType}|${index}`, definition });
      });
    }
    (node.always ?? []).forEach((definition: AnyTransitionDefinition, index: number) => {
      transitions.push({ id: `${node.id}|(always)|${index}`, definition });
    });
  }
  return transitions;
}

export interface Coverage {
  readonly stateCount: number;
  readonly transitionCount: number;
  readonly nodeCount: number;
  readonly edgeCount: number;
  readonly uncoveredStates: ReadonlyArray<string>;
  readonly uncoveredTransitions: ReadonlyArray<string>;
}

/**
 * Which state nodes the graphs' snapshots are in, and which transition definitions their edges
 * take: `getTransitionData` answers the enabled definitions for (snapshot, event), mapped back to
 * the enumeration by identity.
 */
export function coverageOf(machine: AnyStateMachine, graphs: ReadonlyArray<Graph>): Coverage {
  const states = stateNodesOf(machine);
  const transitions = transitionsOf(machine);
  const idOf = new Map(transitions.map((info) => [info.definition, info.id] as const));
  const seenStates = new Set<string>();
  const seenTransitions = new Set<string>();
  let nodeCount = 0;
  let edgeCount = 0;
  for (const graph of graphs) {
    for (const snapshot of graphNodes(graph)) {
      nodeCount += 1;
      for (const node of snapshot._nodes as AnyStateNode[]) seenStates.add(node.id);
    }
    for (const edge of graphEdges(graph)) {
      edgeCount += 1;
      for (const definition of machine.getTransitionData(edge.state, edge.event as never)) {
        const id = idOf.get(definition);
        if (id === undefined) throw new Error(`an edge took a transition the enumeration does not know (${edge.event.type})`);
        seenTransitions.add(id);
      }
    }
  }
  return {
    stateCount: states.length,
    transitionCount: transitions.length,
    nodeCount,
    edgeCount,
    uncoveredStates: states.map((node) => node.id).filter((id) => !seenStates.has(id)),
    uncoveredTransitions: transitions.map((info) => info.id).filter((id) => !seenTransitions.has(id)),
  };
}

/** `done.actor` / `error.actor` events; cast because a machine's event type excludes them. */
export const doneActor = <E extends EventObject>(id: string, output: unknown): E =>
  ({ type: `xstate.done.actor.${id}`, output }) as unknown as E;
export const errorActor = <E extends EventObject>(id: string, error: unknown): E =>
  ({ type: `xstate.error.actor.${id}`, error }) as unknown as E;

// --- The run-machine model (shared by run.paths and replay.paths) ------------------------------------

export const TOOL = "lookup";
/** The planned timeout of every `lookup` call; the replay's fixture tool uses the same. */
export const TOOL_TIMEOUT_MS = 400;
export const FIXED_TIME = "2024-05-01T00:00:00.000Z";

export type CallVariant = "a" | "b";
const CALL_ARGS: Record<CallVariant, { q: string }> = { a: { q: "alpha" }, b: { q: "beta" } };
/** Text that comes with the call (commentary), so `acceptToolStep`'s commentary branch is exercised. */
const CALL_TEXT: Record<CallVariant, string> = { a: "", b: "Let me look that up." };

/** Call ids are per step, as the runtime's planner makes them unique per run. */
export const callId = (step: number, variant: CallVariant) => `call-${step}-${variant}`;

export function plannedCall(step: number, variant: CallVariant): PlannedCall {
  return {
    call: { id: callId(step, variant), name: TOOL, arguments: CALL_ARGS[variant] },
    disposition: "run",
    inputFingerprint: inputFingerprint(TOOL, CALL_ARGS[variant]),
    timeoutMs: TOOL_TIMEOUT_MS,
  };
}

export const callVariantOf = (planned: PlannedCall): CallVariant => (planned.call.id.endsWith("-a") ? "a" : "b");
export const callArgs = (variant: CallVariant) => CALL_ARGS[variant];
export const callText = (variant: CallVariant) => CALL_TEXT[variant];

/** A named, representative provider outcome; `outcome(step)` builds it for the step being sampled. */
export interface SampleChoice {
  readonly name: string;
  readonly outcome: (step: number) => SampleOutcome;
}

const respond = (text: string, finishReason: FinishReason, calls: PlannedCall[] = []): SampleOutcome => ({
  type: "response",
  text,
  finishReason,
  calls,
  malformed: [],
});

export const ANSWER_TEXT = "The answer is 42.";

export const SAMPLE_CHOICES: ReadonlyArray<SampleChoice> = [
  { name: "answer/stop", outcome: () => respond(ANSWER_TEXT, "stop") },
  { name: "answer/length", outcome: () => respond(ANSWER_TEXT, "length") },
  { name: "answer/content_filter", outcome: () => respond(ANSWER_TEXT, "content_filter") },
  { name: "answer/error", outcome: () => respond(ANSWER_TEXT, "error") },
  { name: "empty/stop", outcome: () => respond("", "stop") },
  { name: "empty/length", outcome: () => respond("", "length") },
  { name: "empty/content_filter", outcome: () => respond("", "content_filter") },
  { name: "empty/error", outcome: () => respond("", "error") },
  { name: "tool_calls/no_calls", outcome: () => respond("", "tool_calls") },
  { name: "call/a", outcome: (step) => respond(CALL_TEXT.a, "tool_calls", [plannedCall(step, "a")]) },
  { name: "call/b", outcome: (step) => respond(CALL_TEXT.b, "tool_calls", [plannedCall(step, "b")]) },
  {
    name: "failure/provider_error",
    outcome: () => ({ type: "failure", reason: "provider_error", message: "provider returned 500" }),
  },
  {
    name: "failure/script_exhausted",
    outcome: () => ({ type: "failure", reason: "script_exhausted", message: "the script ran out" }),
  },
];

export const VERDICTS: ReadonlyArray<Verdict> = [
  { verdict: "completed", reason: "receipts_satisfied", missing: [] },
  { verdict: "unverified", reason: "receipt_missing", missing: ["x"] },
];

export const toolOutput = (status: ReceiptStatus, planned: PlannedCall) =>
  status === "ok" ? { found: planned.call.arguments } : { error: `${status} ${planned.call.id}` };

export function settlementOf(planned: PlannedCall, status: ReceiptStatus): ToolSettlement {
  return {
    callId: planned.call.id,
    toolName: planned.call.name,
    inputFingerprint: planned.inputFingerprint,
    status,
    ...(status === "ok"
      ? {}
      : {
          reason: status === "error" ? ("tool_error" as const) : status === "timed_out" ? "timed_out" : "cancelled_by_user",
        }),
    output: toolOutput(status, planned),
    evidence: {},
    startedAt: FIXED_TIME,
    finishedAt: FIXED_TIME,
  };
}

/** A real ExecutionReceipt for a settlement, stamped as the runtime's recordToolResults does. */
export function receiptOf(runId: string, settlement: ToolSettlement): ExecutionReceipt {
  const outputJson = canonicalJson(settlement.output);
  return {
    receiptId: `${runId}:${settlement.callId}`,
    runId,
    callId: settlement.callId,
    toolName: settlement.toolName,
    status: settlement.status,
    ...(settlement.reason ? { reason: settlement.reason } : {}),
    startedAt: settlement.startedAt ?? FIXED_TIME,
    finishedAt: settlement.finishedAt ?? FIXED_TIME,
    inputFingerprint: settlement.inputFingerprint,
    evidence: { ...settlement.evidence, output_sha256: sha256(outputJson), output_bytes: outputJson.length },
    verificationStatus: settlement.status === "ok" ? "verified" : "unverified",
  };
}

export function toolResultsOf(
  runId: string,
  sequence: number,
  settlements: ReadonlyArray<ToolSettlement>,
): ToolResultsOutput {
  const receipts = settlements.map((settlement) => receiptOf(runId, settlement));
  return {
    lastSequence: sequence + settlements.length,
    receipts,
    resultHashes: receipts.map((receipt) => receipt.evidence.output_sha256 as string),
  };
}

export const RUN_ID = "run-model";

export function runInput(
  contract: CompletionContract,
  toolKinds: Readonly<Record<string, ToolKind>> = { [TOOL]: "observe" },
): RunInput {
  return {
    runId: RUN_ID,
    traceId: "trace-model",
    sessionId: "session-model",
    input: "What is the answer?",
    contract,
    toolKinds,
    maxSteps: 3,
    doomLoopThreshold: 2,
    maxProtocolRepairs: 1,
    toolConcurrency: 2,
    locale: "en",
  };
}

export const OBSERVE_LOOKUP: CompletionContract = {
  evidenceMode: "observe",
  requiredToolNames: [TOOL],
  requiredReceiptKinds: [],
  allowUnverifiedAnswer: true,
  source: "caller",
};

export const NONE: CompletionContract = {
  evidenceMode: "none",
  requiredToolNames: [],
  requiredReceiptKinds: [],
  allowUnverifiedAnswer: true,
  source: "default",
};

/** The fields of the run machine's context the model reads. */
interface RunModelContext {
  readonly step: number;
  readonly sequence: number;
  readonly stepCalls: ReadonlyArray<PlannedCall>;
  readonly settlements: ReadonlyArray<ToolSettlement>;
  readonly cancelRequested: boolean;
  readonly closingEvents: ReadonlyArray<unknown>;
}

export const LEDGER_DOWN = "ledger write refused";
export const ACTOR_CRASH = "actor crashed";

/**
 * The run machine's full event alphabet, as a function of the snapshot so the actors' outputs stay
 * consistent with the context (tool results mirror the batch's settlements, sequences advance by
 * the rows written, the batch settles the calls of the current step).
 */
export function runEvents(snapshot: AnyMachineSnapshot): EventObject[] {
  const context = snapshot.context as RunModelContext;
  const events: EventObject[] = [{ type: "CANCEL" }];
  const seq = context.sequence;
  events.push(doneActor("openRun", { lastSequence: 1 }), errorActor("openRun", LEDGER_DOWN));
  for (const choice of SAMPLE_CHOICES) events.push(doneActor("sampleModel", choice.outcome(context.step)));
  events.push(errorActor("sampleModel", ACTOR_CRASH));
  events.push(
    doneActor("recordRepair", { lastSequence: seq + context.closingEvents.length }),
    errorActor("recordRepair", LEDGER_DOWN),
  );
  const commentary = context.stepCalls.some((planned) => callText(callVariantOf(planned)).length > 0) ? 1 : 0;
  events.push(
    doneActor("recordCalls", { lastSequence: seq + commentary + context.stepCalls.length }),
    errorActor("recordCalls", LEDGER_DOWN),
  );
  context.stepCalls.forEach((planned, index) => {
    events.push({ type: "CALL_STARTED", index, callId: planned.call.id, toolName: planned.call.name });
  });
  // One call per step in this model: it settles ok, error or timed_out; once the run was
  // cancelled it may still have finished (ok) or have been cancelled.
  const statuses: ReceiptStatus[] = context.cancelRequested ? ["ok", "cancelled"] : ["ok", "error", "timed_out"];
  for (const status of statuses) {
    events.push(
      doneActor(
        "toolBatch",
        context.stepCalls.map((planned) => settlementOf(planned, status)),
      ),
    );
  }
  events.push(errorActor("toolBatch", ACTOR_CRASH));
  events.push(
    doneActor("recordToolResults", toolResultsOf(RUN_ID, seq, context.settlements)),
    errorActor("recordToolResults", LEDGER_DOWN),
  );
  for (const verdict of VERDICTS) events.push(doneActor("verifyAnswer", verdict));
  events.push(errorActor("verifyAnswer", ACTOR_CRASH));
  events.push(doneActor("finishRun", { lastSequence: seq + context.closingEvents.length + 1 }));
  events.push(errorActor("finishRun", LEDGER_DOWN));
  return events;
}

export const isCrashOrLedgerError = (event: EventObject) => event.type.startsWith("xstate.error.actor.");

export type DoneEvent = Extract<LoopEvent, { type: "done" }>;
