/**
 * Shared helpers of the model-based path tests (issue B): building a machine's state graph over
 * its full event alphabet, enumerating every transition of the machine definition, computing
 * which of them the graph's edges take, and the run-machine model the replay test reuses.
 *
 * Invoked actors never run during traversal (@xstate/graph uses a mock actor scope whose action
 * executor does nothing): their results are modelled as `xstate.done.actor.<id>` /
 * `xstate.error.actor.<id>` events.
 */
import {
  type AdjacencyMap,
  adjacencyMapToArray,
  getAdjacencyMap,
  getShortestPaths,
  getSimplePaths,
  type StatePath,
  serializeSnapshot,
} from "@xstate/graph";
import {
  __unsafe_getAllOwnEventDescriptors,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
  type EventObject,
  transition,
} from "xstate";
import {
  type CompletionContract,
  correctionText,
  type ExecutionReceipt,
  evidenceGap,
  type FinishReason,
  type JsonValue,
  type PlannedCall,
  type ProviderCapabilities,
  type ReceiptStatus,
  type ToolSettlement,
} from "../../src/domain/index.js";
import type {
  FinishRunInput,
  FinishRunOutput,
  LedgerWriteInput,
  OpenRunInput,
  PendingEvent,
  SampleInput,
  SampleOutcome,
  ToolResultsInput,
  ToolResultsOutput,
  Verdict,
  VerifyInput,
} from "../../src/machines/protocol.js";
import type { RunInput } from "../../src/machines/run.machine.js";
import type { ToolBatchInput } from "../../src/machines/toolBatch.machine.js";
import { canonicalJson, inputFingerprint, sha256 } from "../../src/services/tools/fingerprint.js";

// --- Graphs ------------------------------------------------------------------------------------

export type Graph = AdjacencyMap<AnyMachineSnapshot, EventObject>;
export type GraphEdge = { state: AnyMachineSnapshot; event: EventObject; nextState: AnyMachineSnapshot };

export interface GraphOptions {
  readonly input: unknown;
  /** Every event that may be sent in `snapshot`; must name each event type the active states handle. */
  readonly events: (snapshot: AnyMachineSnapshot) => ReadonlyArray<EventObject>;
  readonly serializeState?: (snapshot: AnyMachineSnapshot) => string;
  /** Handled event types that cannot occur in `snapshot` (e.g. no call can report a start); say why. */
  readonly impossible?: (snapshot: AnyMachineSnapshot) => ReadonlyArray<string>;
}

/** Whether an event type is handled by a transition's descriptor (exact, `*`, or a `prefix.*` wildcard). */
export const matchesDescriptor = (descriptor: string, type: string): boolean =>
  descriptor === type || descriptor === "*" || (descriptor.endsWith(".*") && type.startsWith(descriptor.slice(0, -1)));

/** Traversal options shared by getAdjacencyMap / getShortestPaths / getSimplePaths. */
export function traversalOptions(options: GraphOptions) {
  return {
    input: options.input,
    events: (snapshot: AnyMachineSnapshot) => {
      const events = options.events(snapshot);
      // The model must offer something for every event type the active states handle (else a
      // handler would go untested, or @xstate/graph's default would send a bare `{ type }`). Events
      // no active state handles change nothing and are not sent: they would only add self-loops.
      const handled = [...new Set<string>(__unsafe_getAllOwnEventDescriptors(snapshot))];
      const impossible = new Set(options.impossible?.(snapshot) ?? []);
      const missing = handled.filter(
        (descriptor) =>
          !impossible.has(descriptor) && !events.some((event) => matchesDescriptor(descriptor, event.type)),
      );
      if (missing.length > 0) {
        throw new Error(
          `the event model offers nothing for ${missing.join(", ")} in ${JSON.stringify(snapshot.value)}`,
        );
      }
      return events.filter((event) => handled.some((descriptor) => matchesDescriptor(descriptor, event.type)));
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

export function simplePaths(
  machine: AnyStateMachine,
  options: GraphOptions,
): Array<StatePath<AnyMachineSnapshot, EventObject>> {
  return getSimplePaths(machine, traversalOptions(options)) as Array<StatePath<AnyMachineSnapshot, EventObject>>;
}

/** The final state nodes a snapshot is in. */
export const finalNodes = (snapshot: AnyMachineSnapshot): string[] =>
  snapshot._nodes.filter((node: AnyStateNode) => node.type === "final").map((node: AnyStateNode) => node.id);

/** An action the machine would execute, with the context it would see. */
export interface ExecutedAction {
  readonly type: string;
  readonly params: unknown;
  readonly context: unknown;
}

/** The actions `event` makes the machine execute in `snapshot` (xstate's pure `transition`: nothing runs). */
export function actionsOf(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  event: EventObject,
): ExecutedAction[] {
  const [, actions] = transition(machine, snapshot, event);
  return (actions as ReadonlyArray<{ type: string; params?: unknown; info?: { context?: unknown } }>).map((action) => ({
    type: action.type,
    params: action.params,
    context: action.info?.context,
  }));
}

/** What the machine emits (via `emit`) when `event` is sent in `snapshot`. */
export function emittedBy(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject): EventObject[] {
  return actionsOf(machine, snapshot, event)
    .filter((action) => action.type === "xstate.emit")
    .map((action) => (action.params as { event: EventObject }).event);
}

type GraphValue = {
  state: AnyMachineSnapshot;
  transitions: Record<string, { event: EventObject; state: AnyMachineSnapshot }>;
};
const valuesOf = (graph: Graph) => graph as unknown as Record<string, GraphValue>;

/** The graph's node under `key`. */
export const nodeAt = (graph: Graph, key: string): GraphValue => valuesOf(graph)[key]!;

/** The same graph without the edges whose event `drop` selects. */
export function withoutEvents(graph: Graph, drop: (event: EventObject) => boolean): Graph {
  const kept: Record<string, GraphValue> = {};
  for (const [key, value] of Object.entries(valuesOf(graph))) {
    kept[key] = {
      state: value.state,
      transitions: Object.fromEntries(Object.entries(value.transitions).filter(([, next]) => !drop(next.event))),
    };
  }
  return kept as unknown as Graph;
}

/** The keys of the nodes reachable from the graph's initial node. */
export function reachableKeys(graph: Graph, key: (snapshot: AnyMachineSnapshot) => string): Set<string> {
  const reached = new Set<string>();
  const pending = [Object.keys(graph)[0]!];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (reached.has(node)) continue;
    reached.add(node);
    for (const next of Object.values(nodeAt(graph, node).transitions)) pending.push(key(next.state));
  }
  return reached;
}

export interface GraphPath {
  /** Each event with the snapshot it is sent in. */
  readonly steps: ReadonlyArray<{ readonly state: AnyMachineSnapshot; readonly event: EventObject }>;
  /** Where the path ends (no longer active). */
  readonly state: AnyMachineSnapshot;
}

/** Every complete path of the graph whose edges all pass `keep` (self-loops are never taken). */
export function completePaths(
  graph: Graph,
  key: (snapshot: AnyMachineSnapshot) => string,
  keep: (state: AnyMachineSnapshot, event: EventObject) => boolean,
): GraphPath[] {
  const paths: GraphPath[] = [];
  const walk = (node: string, steps: GraphPath["steps"]) => {
    const value = nodeAt(graph, node);
    if (value.state.status !== "active") {
      paths.push({ steps, state: value.state });
      return;
    }
    for (const next of Object.values(value.transitions)) {
      const nextKey = key(next.state);
      if (nextKey === node || !keep(value.state, next.event)) continue;
      walk(nextKey, [...steps, { state: value.state, event: next.event }]);
    }
  };
  walk(Object.keys(graph)[0]!, []);
  return paths;
}

/** The key a graph gives a snapshot (the traversal's serializer). */
export const keyOf = (options: GraphOptions) => (snapshot: AnyMachineSnapshot) =>
  (options.serializeState ?? serializeSnapshot)(snapshot);

/**
 * For every node, how many complete paths (to a node that is no longer active) start there,
 * without listing them. The graphs are acyclic apart from self-loops (a second CANCEL, a
 * CALL_STARTED report), which a simple path never takes; a real cycle is reported, since it
 * would make the count meaningless. A node with count 0 is stuck: it can never end.
 */
export function endingPathCounts(graph: Graph, key: (snapshot: AnyMachineSnapshot) => string): Map<string, number> {
  const memo = new Map<string, number>();
  const visiting = new Set<string>();
  const count = (node: string): number => {
    const known = memo.get(node);
    if (known !== undefined) return known;
    if (visiting.has(node)) throw new Error(`the graph has a cycle through ${node}`);
    const value = nodeAt(graph, node);
    visiting.add(node);
    let total = value.state.status === "active" ? 0 : 1;
    for (const next of Object.values(value.transitions)) {
      const nextKey = key(next.state);
      if (nextKey !== node) total += count(nextKey);
    }
    visiting.delete(node);
    memo.set(node, total);
    return total;
  };
  for (const node of Object.keys(graph)) count(node);
  return memo;
}

/**
 * The graph's node keys in a topological order (every node after all nodes with an edge into it),
 * self-loops ignored; a real cycle is reported (see `endingPathCounts`).
 */
export function topologicalKeys(graph: Graph, key: (snapshot: AnyMachineSnapshot) => string): string[] {
  const order: string[] = [];
  const done = new Set<string>();
  const visiting = new Set<string>();
  const visit = (node: string) => {
    if (done.has(node)) return;
    if (visiting.has(node)) throw new Error(`the graph has a cycle through ${node}`);
    visiting.add(node);
    for (const next of Object.values(nodeAt(graph, node).transitions)) {
      const nextKey = key(next.state);
      if (nextKey !== node) visit(nextKey);
    }
    visiting.delete(node);
    done.add(node);
    order.push(node);
  };
  for (const node of Object.keys(graph)) visit(node);
  return order.reverse();
}

/**
 * The events of a shortest path from the graph's initial node to an edge `hit` selects (the
 * selected edge's event last), or undefined when there is none: a short, reproducible example.
 */
export function shortestTrail(
  graph: Graph,
  key: (snapshot: AnyMachineSnapshot) => string,
  hit: (state: AnyMachineSnapshot, event: EventObject, next: AnyMachineSnapshot) => boolean,
): EventObject[] | undefined {
  const root = Object.keys(graph)[0]!;
  const via = new Map<string, { from: string; event: EventObject } | null>([[root, null]]);
  const trail = (node: string, last: EventObject[]) => {
    const events = [...last];
    for (let step = via.get(node); step; step = via.get(step.from)) events.unshift(step.event);
    return events;
  };
  const queue = [root];
  for (let index = 0; index < queue.length; index++) {
    const node = queue[index]!;
    const value = nodeAt(graph, node);
    for (const next of Object.values(value.transitions)) {
      if (hit(value.state, next.event, next.state)) return trail(node, [next.event]);
      const nextKey = key(next.state);
      if (!via.has(nextKey)) {
        via.set(nextKey, { from: node, event: next.event });
        queue.push(nextKey);
      }
    }
  }
  return undefined;
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
        if (id === undefined)
          throw new Error(`an edge took a transition the enumeration does not know (${edge.event.type})`);
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
/**
 * The planned timeout of every `lookup` call; the replay's fixture tool uses the same (long enough
 * that an instant fixture outcome never races it).
 */
export const TOOL_TIMEOUT_MS = 1_500;
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

/** A named, representative provider outcome; `outcome(step)` builds it for the step being sampled. */
export interface SampleChoice {
  readonly name: string;
  readonly outcome: (step: number) => SampleOutcome;
}

/** A response as the adapter reports it: no adapter anomalies, not streamed (the scripted provider's defaults). */
const respond = (text: string, finishReason: FinishReason, calls: PlannedCall[] = []): SampleOutcome => ({
  type: "response",
  text,
  finishReason,
  calls,
  malformed: [],
  anomalies: [],
  streamed: false,
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

export const toolOutput = (status: ReceiptStatus, planned: PlannedCall): JsonValue =>
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
          reason:
            status === "error" ? ("tool_error" as const) : status === "timed_out" ? "timed_out" : "cancelled_by_user",
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
  firstSequence: number,
  settlements: ReadonlyArray<ToolSettlement>,
): ToolResultsOutput {
  const receipts = settlements.map((settlement) => receiptOf(runId, settlement));
  return {
    lastSequence: firstSequence + settlements.length - 1,
    receipts,
    resultHashes: receipts.map((receipt) => receipt.evidence.output_sha256 as string),
  };
}

export const RUN_ID = "run-model";

/** A provider that supports tool calling and every tool choice mode. */
export const FULL_CAPABILITIES: ProviderCapabilities = {
  toolCalling: true,
  toolChoice: ["auto", "required", "none", "specific"],
};

export function runInput(contract: CompletionContract, overrides: Partial<Omit<RunInput, "contract">> = {}): RunInput {
  return {
    runId: RUN_ID,
    traceId: "trace-model",
    sessionId: "session-model",
    input: "What is the answer?",
    contract,
    toolKinds: { [TOOL]: "observe" },
    maxSteps: 3,
    doomLoopThreshold: 2,
    maxProtocolRepairs: 1,
    toolConcurrency: 2,
    locale: "en",
    capabilities: FULL_CAPABILITIES,
    // The runtime's default.
    receiptVerification: "enforce",
    ...overrides,
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

/**
 * What an answer without receipts misses under the observe contract, as evidenceGap words it, so
 * the modelled verdicts are the very ones verifyAnswer gives such an answer (the replay relies on it).
 */
const MISSING = evidenceGap(OBSERVE_LOOKUP, [], { [TOOL]: "observe" }).missing;

/** The verifier's possible verdicts; `correct` carries the runtime-owned correction message. */
export const VERDICTS: ReadonlyArray<Verdict> = [
  { verdict: "completed", reason: "receipts_satisfied", missing: [] },
  { verdict: "unverified", reason: "receipt_missing", missing: MISSING },
  { verdict: "correct", reason: "receipt_missing", missing: MISSING, correction: correctionText(MISSING) },
];

/** The input an invoked promise actor of `snapshot` was started with (its snapshot carries it). */
export function invokeInput<T>(snapshot: AnyMachineSnapshot, id: string): T | undefined {
  const child = (snapshot.children as Record<string, AnyActorRef | undefined>)[id];
  return (child?.getSnapshot() as { input?: T } | undefined)?.input;
}

/** The context of an invoked machine actor of `snapshot`. */
export function invokedContext<T>(snapshot: AnyMachineSnapshot, id: string): T | undefined {
  const child = (snapshot.children as Record<string, AnyActorRef | undefined>)[id];
  return (child?.getSnapshot() as { context?: T } | undefined)?.context;
}

export const LEDGER_DOWN = "ledger write refused";
export const ACTOR_CRASH = "actor crashed";

/** Where a step's settlement statuses come from: how the batch could end, given the cancel flags. */
export function batchStatuses(startedCancelled: boolean, cancelledLater: boolean): ReceiptStatus[] {
  if (startedCancelled) return ["cancelled"];
  // Cancelled while running: a call may still have finished before the CANCEL reached it.
  if (cancelledLater) return ["ok", "cancelled"];
  return ["ok", "error", "timed_out"];
}

/**
 * The invoke ids under which the run machine invokes its `appendLedger` actor: the protocol repair's
 * rows, the step's tool calls (write-ahead), the correction turn's rows (issue D). run.paths checks
 * this list against the machine definition.
 */
export const APPEND_LEDGER_IDS = ["recordRepair", "recordCalls", "recordCorrection"] as const;

/** The invoked actors of `snapshot` that append rows to the ledger. */
export function appendLedgerIds(snapshot: AnyMachineSnapshot): string[] {
  return APPEND_LEDGER_IDS.filter((id) => invokeInput<LedgerWriteInput>(snapshot, id) !== undefined);
}

/**
 * The receipts finishRun writes while closing, as runActors.ts writes them: a `cancelled` receipt
 * for each unsettled call (`cancelled_by_user` when the user cancelled, else `interrupted`).
 * After a ledger failure runActors' fallback writes receipts only for calls whose tool_call row is
 * durable and that have none — in the machine's input that is every unsettled call already
 * (`unsettled` is empty unless the calls were recorded, and excludes calls with a receipt).
 */
export function closingReceiptsOf(finish: FinishRunInput): ExecutionReceipt[] {
  return finish.unsettled.map((planned) =>
    receiptOf(finish.runId, {
      ...settlementOf(planned, "cancelled"),
      reason: finish.terminal.reason === "cancelled_by_user" ? "cancelled_by_user" : "interrupted",
      output: { error: "the run ended before this call reported" },
      startedAt: null,
      finishedAt: null,
    }),
  );
}

/**
 * The run machine's full event alphabet, as a function of the snapshot. Every actor output is
 * computed from the input the machine gave that actor — as the runtime's actors compute it
 * (runActors.ts) — so outputs stay consistent: sequences advance by the rows written, the batch
 * settles exactly the calls it was given, tool results mirror the settlements.
 */
export function runEvents(snapshot: AnyMachineSnapshot): EventObject[] {
  const context = snapshot.context as { step: number; cancelRequested: boolean };
  const events: EventObject[] = [{ type: "CANCEL" }];
  if (invokeInput<OpenRunInput>(snapshot, "openRun")) {
    events.push(doneActor("openRun", { lastSequence: 1 }), errorActor("openRun", LEDGER_DOWN));
  }
  if (invokeInput<SampleInput>(snapshot, "sampleModel")) {
    for (const choice of SAMPLE_CHOICES) events.push(doneActor("sampleModel", choice.outcome(context.step)));
    events.push(errorActor("sampleModel", ACTOR_CRASH));
  }
  for (const id of appendLedgerIds(snapshot)) {
    const write = invokeInput<LedgerWriteInput>(snapshot, id);
    if (write) {
      events.push(
        doneActor(id, { lastSequence: write.firstSequence + write.events.length - 1 }),
        errorActor(id, LEDGER_DOWN),
      );
    }
  }
  const batch = invokedContext<ToolBatchInput>(snapshot, "toolBatch");
  if (batch) {
    batch.calls.forEach((planned, index) => {
      const started = { type: "CALL_STARTED", index, callId: planned.call.id, toolName: planned.call.name };
      events.push(started);
    });
    for (const status of batchStatuses(batch.cancelled, context.cancelRequested)) {
      events.push(
        doneActor(
          "toolBatch",
          batch.calls.map((planned) => settlementOf(planned, status)),
        ),
      );
    }
    events.push(errorActor("toolBatch", ACTOR_CRASH));
  }
  const results = invokeInput<ToolResultsInput>(snapshot, "recordToolResults");
  if (results) {
    events.push(
      doneActor("recordToolResults", toolResultsOf(results.runId, results.firstSequence, results.settlements)),
      errorActor("recordToolResults", LEDGER_DOWN),
    );
  }
  if (invokeInput<VerifyInput>(snapshot, "verifyAnswer")) {
    for (const verdict of VERDICTS) events.push(doneActor("verifyAnswer", verdict));
    events.push(errorActor("verifyAnswer", ACTOR_CRASH));
  }
  const finish = invokeInput<FinishRunInput>(snapshot, "finishRun");
  if (finish) {
    events.push(
      doneActor("finishRun", {
        lastSequence: finish.firstSequence + finish.events.length + finish.unsettled.length,
        receipts: closingReceiptsOf(finish),
      } satisfies FinishRunOutput),
      errorActor("finishRun", LEDGER_DOWN),
    );
  }
  return events;
}

/** A short label of a run-model event, for test names and failure messages. */
export const describeEvent = (event: EventObject): string => {
  const { type, ...rest } = event as EventObject & { output?: unknown; error?: unknown };
  const short = type.replace("xstate.done.actor.", "done:").replace("xstate.error.actor.", "error:");
  const output = rest.output as
    | { type?: string; finishReason?: string; calls?: unknown[]; verdict?: string }
    | undefined;
  if (type.endsWith(".sampleModel") && output) {
    return output.type === "failure"
      ? `${short}(failure)`
      : `${short}(${output.finishReason}${output.calls?.length ? `,${output.calls.length} call` : ""})`;
  }
  if (type.endsWith(".toolBatch") && Array.isArray(output)) {
    return `${short}(${output.map((s: { status: string }) => s.status).join(",")})`;
  }
  if (type.endsWith(".verifyAnswer") && output) return `${short}(${output.verdict})`;
  return short;
};

export const isActorError = (event: EventObject) => event.type.startsWith("xstate.error.actor.");

// --- A model of the ledger's rules (the SQLite triggers of 0002_run_ledger.ts) ---------------------

export interface LedgerRow {
  readonly sequence: number;
  readonly type: string;
  readonly payload: unknown;
}

const callIdOf = (row: LedgerRow) => (row.payload as { callId?: string }).callId;

/**
 * Why the ledger would refuse appending `rows` (+ receipts for `receiptCallIds`) to `existing`, or
 * null. Mirrors the triggers: sequences continue without gaps, nothing after the terminal event,
 * one tool_call per call id, a tool_result only after its tool_call and only once, a receipt only
 * for a recorded call and only once.
 */
export function ledgerRefusal(
  existing: ReadonlyArray<LedgerRow>,
  existingReceipts: ReadonlyArray<string>,
  rows: ReadonlyArray<LedgerRow>,
  receiptCallIds: ReadonlyArray<string>,
): string | null {
  const all = [...existing];
  for (const row of rows) {
    const last = all[all.length - 1];
    if (row.sequence !== (last?.sequence ?? 0) + 1)
      return `sequence_gap (row ${row.sequence} after ${last?.sequence ?? 0})`;
    if (last?.type === "terminal") return "event_after_terminal";
    const id = callIdOf(row);
    const calls = all.filter((r) => r.type === "tool_call" && callIdOf(r) === id);
    if (row.type === "tool_call" && calls.length > 0) return `duplicate_tool_call (${id})`;
    if (row.type === "tool_result" && calls.length === 0) return `orphan_tool_result (${id})`;
    if (row.type === "tool_result" && all.some((r) => r.type === "tool_result" && callIdOf(r) === id)) {
      return `duplicate_tool_result (${id})`;
    }
    all.push(row);
  }
  const receipts = [...existingReceipts];
  for (const id of receiptCallIds) {
    if (receipts.includes(id)) return `duplicate_receipt (${id})`;
    if (!all.some((r) => r.type === "tool_call" && callIdOf(r) === id)) return `receipt_without_call (${id})`;
    receipts.push(id);
  }
  return null;
}

/** What is wrong with a closed run's ledger: one terminal event, last; 1..n; pairing; receipts. */
export function closedLedgerViolations(
  rows: ReadonlyArray<LedgerRow>,
  receiptCallIds: ReadonlyArray<string>,
): string[] {
  const violations: string[] = [];
  const terminals = rows.filter((row) => row.type === "terminal");
  if (terminals.length !== 1) violations.push(`${terminals.length} terminal events`);
  if (rows[rows.length - 1]?.type !== "terminal") violations.push("the last event is not the terminal event");
  rows.forEach((row, index) => {
    if (row.sequence !== index + 1) violations.push(`event ${index + 1} has sequence ${row.sequence}`);
  });
  rows.forEach((row, index) => {
    if (row.type !== "tool_result") return;
    const call = rows.findIndex((r) => r.type === "tool_call" && callIdOf(r) === callIdOf(row));
    if (call < 0 || call > index) violations.push(`tool_result ${callIdOf(row)} before its tool_call`);
  });
  for (const row of rows.filter((r) => r.type === "tool_call")) {
    const count = receiptCallIds.filter((id) => id === callIdOf(row)).length;
    if (count !== 1) violations.push(`tool_call ${callIdOf(row)} has ${count} receipts`);
  }
  return violations;
}

const withSequences = (events: ReadonlyArray<PendingEvent>, first: number): LedgerRow[] =>
  events.map((event, index) => ({ sequence: first + index, type: event.type, payload: event.payload }));

const resultRow = (sequence: number, callId: string): LedgerRow => ({
  sequence,
  type: "tool_result",
  payload: { callId },
});

export interface ModelLedger {
  readonly rows: ReadonlyArray<LedgerRow>;
  readonly receipts: ReadonlyArray<string>;
}

/** The rows (and receipt call ids) the actor `id` asks to write, from the input the machine gave it. */
function requestedWrite(snapshot: AnyMachineSnapshot, id: string): ModelLedger | undefined {
  switch (id) {
    case "openRun":
      return { rows: [{ sequence: 1, type: "user_input", payload: {} }], receipts: [] };
    case "recordToolResults": {
      const input = invokeInput<ToolResultsInput>(snapshot, id)!;
      return {
        rows: input.settlements.map((settlement, index) => resultRow(input.firstSequence + index, settlement.callId)),
        receipts: input.settlements.map((settlement) => settlement.callId),
      };
    }
    case "finishRun": {
      const input = invokeInput<FinishRunInput>(snapshot, id)!;
      const leading = withSequences(input.events, input.firstSequence);
      const unsettled = input.unsettled.map((planned, index) =>
        resultRow(input.firstSequence + leading.length + index, planned.call.id),
      );
      const terminal: LedgerRow = {
        sequence: input.firstSequence + leading.length + unsettled.length,
        type: "terminal",
        payload: input.terminal,
      };
      return {
        rows: [...leading, ...unsettled, terminal],
        receipts: input.unsettled.map((planned) => planned.call.id),
      };
    }
    default: {
      if (!appendLedgerIds(snapshot).includes(id)) return undefined;
      const input = invokeInput<LedgerWriteInput>(snapshot, id)!;
      return { rows: withSequences(input.events, input.firstSequence), receipts: [] };
    }
  }
}

/**
 * What the actor `id` writes when it succeeds, as runActors.ts writes it: the requested rows, or —
 * for a terminal write after a ledger failure that the ledger refuses — runActors' fallback
 * (receipts for the step's calls whose tool_call row is durable and that have none, then the
 * terminal event). `refused` names the ledger rule a write breaks; undefined: the actor writes nothing.
 */
export function ledgerWrite(
  snapshot: AnyMachineSnapshot,
  id: string,
  ledger: ModelLedger,
): { ledger: ModelLedger; refused?: undefined } | { refused: string } | undefined {
  const write = requestedWrite(snapshot, id);
  if (!write) return undefined;
  const append = (next: ModelLedger) => ({
    ledger: { rows: [...ledger.rows, ...next.rows], receipts: [...ledger.receipts, ...next.receipts] },
  });
  const refusal = ledgerRefusal(ledger.rows, ledger.receipts, write.rows, write.receipts);
  if (!refusal) return append(write);
  const input = id === "finishRun" ? invokeInput<FinishRunInput>(snapshot, id) : undefined;
  if (input?.terminal.reason !== "ledger_write_failed") return { refused: refusal };
  const called = new Set(ledger.rows.filter((row) => row.type === "tool_call").map(callIdOf));
  const fallback: ModelLedger = {
    rows: [
      { sequence: (ledger.rows[ledger.rows.length - 1]?.sequence ?? 0) + 1, type: "terminal", payload: input.terminal },
    ],
    receipts: input.unsettled
      .map((planned) => planned.call.id)
      .filter((callId) => called.has(callId) && !ledger.receipts.includes(callId)),
  };
  const fallbackRefusal = ledgerRefusal(ledger.rows, ledger.receipts, fallback.rows, fallback.receipts);
  return fallbackRefusal ? { refused: `${refusal}, then ${fallbackRefusal}` } : append(fallback);
}
