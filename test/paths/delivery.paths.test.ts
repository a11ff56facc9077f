import { beforeAll, describe, expect, it } from "vitest";
import { type AnyMachineSnapshot, assign, type EventObject } from "xstate";
import type { DeliveryAttempt, DeliveryPolicy, OutgoingMessage } from "../../src/domain/delivery.js";
import {
  finalMessage,
  isProgressText,
  type Locale,
  type LoopEvent,
  type ReasonCode,
  type TerminalState,
  terminalTemplate,
} from "../../src/domain/index.js";
import {
  type DeliveryAttemptEvent,
  type DeliveryInput,
  deliveryMachine,
  POLICY_SHOWS,
  type SendMessageInput,
} from "../../src/machines/delivery.machine.js";
import {
  buildGraph,
  coverageOf,
  doneActor,
  emittedBy,
  endingPathCounts,
  errorActor,
  type Graph,
  type GraphOptions,
  graphEdges,
  graphNodes,
  invokeInput,
  keyOf,
  shortestTrail,
} from "./coverage.js";

/**
 * Model-based paths of the channel delivery machine, for every policy and locale.
 *
 * The run is modelled as the runtime emits: up to two progress LoopEvents (commentary, tool start,
 * tool result), then `final` (one variant per terminal state), then the matching `done`; after
 * `done` the run is over, and duplicates of every event are offered anyway (they must change
 * nothing). The `send` actor never runs during traversal: its results are the events
 * `xstate.done.actor.send` (the channel's message id) and `xstate.error.actor.send` (an error whose
 * message has a second line and a stack, which must never reach a user); a pending retry fires by
 * its delayed event. Two attempts per message keep the graph small and still take every branch.
 */

const RUN_ID = "run-delivery";
const TRACE_ID = "trace-delivery";
const MAX_PROGRESS = 2;
const ANSWER = "The answer is 42.";
const SEND_ERROR = Object.assign(new Error("HTTP 500 from https://hooks.example/x\n    at secretStackFrame (x.js:1)"), {
  stack: "Error: HTTP 500\n    at secretStackFrame (x.js:1)",
});

const POLICIES: ReadonlyArray<DeliveryPolicy> = ["final_only", "progress_updates", "silent_tool_status"];
const LOCALES: ReadonlyArray<Locale> = ["en", "zh"];
const STATES: ReadonlyArray<TerminalState> = ["completed", "unverified", "incomplete", "failed", "cancelled"];
const REASON: Record<TerminalState, ReasonCode> = {
  completed: "answered",
  unverified: "claim_without_receipt",
  incomplete: "max_steps_reached",
  failed: "provider_error",
  cancelled: "cancelled_by_user",
};

/** The run's `final` as the run machine emits it: its own (English) rendering, plus the raw answer when not completed. */
const finalEvent = (state: TerminalState): LoopEvent => ({
  type: "final",
  runId: RUN_ID,
  text: finalMessage({ terminalState: state, reason: REASON[state], modelText: ANSWER, traceId: TRACE_ID }),
  terminalState: state,
  ...(state === "completed" ? {} : { answer: ANSWER }),
});
const doneEvent = (state: TerminalState): LoopEvent => ({
  type: "done",
  runId: RUN_ID,
  traceId: TRACE_ID,
  terminalState: state,
  reason: REASON[state],
});
const PROGRESS_EVENTS: ReadonlyArray<LoopEvent> = [
  { type: "commentary", runId: RUN_ID, step: 1, text: "Let me look that up; it is done." },
  { type: "tool_started", runId: RUN_ID, step: 1, callId: "c1", toolName: "lookup" },
  { type: "tool_result", runId: RUN_ID, step: 1, callId: "c1", toolName: "lookup", status: "ok" },
];
const PROGRESS_TYPES = PROGRESS_EVENTS.map((event) => event.type);
const stateOfFinalText = new Map(STATES.map((state) => [(finalEvent(state) as { text: string }).text, state]));

interface DeliveryContextView extends DeliveryInput {
  readonly queue: ReadonlyArray<OutgoingMessage>;
  readonly attempt: number;
  readonly progressCount: number;
  readonly suppressed: number;
  readonly kept: { readonly text: string; readonly answer?: string } | null;
  readonly ended: boolean;
  readonly delivered: ReadonlyArray<{ readonly message: OutgoingMessage; readonly messageId: string }>;
  readonly failed: ReadonlyArray<{
    readonly message: OutgoingMessage;
    readonly error: string;
    readonly outcome: string;
  }>;
}
const contextOf = (snapshot: AnyMachineSnapshot) => snapshot.context as DeliveryContextView;
const isSending = (snapshot: AnyMachineSnapshot) => snapshot.matches({ active: "sending" });

const RETRY_EVENT = deliveryMachine.root.states.active!.states.retrying!.after[0]!.eventType;

interface Model {
  readonly name: string;
  readonly policy: DeliveryPolicy;
  readonly locale: Locale;
  readonly options: GraphOptions;
}

/** After `done` the run is over: a duplicate of each kind arrives (tool events share commentary's guarded transitions). */
const AFTER_DONE: ReadonlyArray<LoopEvent> = [PROGRESS_EVENTS[0]!, finalEvent("completed"), doneEvent("failed")];

/**
 * The event model: up to `maxProgress` progress events, then the `final` of one of `states`, then
 * its `done`; the send actor's result while sending; the retry while waiting.
 */
function deliveryEvents(states: ReadonlyArray<TerminalState>, maxProgress: number) {
  return (snapshot: AnyMachineSnapshot): EventObject[] => {
    const context = contextOf(snapshot);
    const events: EventObject[] = [];
    if (context.ended) events.push(...AFTER_DONE);
    else if (context.kept === null) {
      if (context.progressCount + context.suppressed < maxProgress) events.push(...PROGRESS_EVENTS);
      events.push(...states.map(finalEvent));
    } else {
      events.push(doneEvent(stateOfFinalText.get(context.kept.text)!));
    }
    if (isSending(snapshot)) {
      events.push(
        doneActor("send", { messageId: `m-${context.delivered.length + context.failed.length + 1}` }),
        errorActor("send", SEND_ERROR),
      );
    }
    if (snapshot.matches({ active: "retrying" })) events.push({ type: RETRY_EVENT });
    return events;
  };
}

/** Handled events the model does not offer, and why. */
function impossibleEvents(maxProgress: number) {
  return (snapshot: AnyMachineSnapshot): string[] => {
    const context = contextOf(snapshot);
    // After done, tool events take the same guarded (no-op) transitions as the commentary offered.
    if (context.ended) return ["tool_started", "tool_result"];
    // Between `final` and `done` the run emits nothing else (they are emitted together).
    if (context.kept !== null) return [...PROGRESS_TYPES, "final"];
    // The run emits `final` just before `done`; the model bounds the number of progress events.
    return context.progressCount + context.suppressed < maxProgress ? ["done"] : ["done", ...PROGRESS_TYPES];
  };
}

const inputOf = (policy: DeliveryPolicy, locale: Locale): DeliveryInput => ({
  runId: RUN_ID,
  traceId: TRACE_ID,
  channelId: "channel",
  policy,
  locale,
  maxAttempts: 2,
  retryDelayMs: 10,
});

const model = (
  kind: string,
  policy: DeliveryPolicy,
  locale: Locale,
  states: ReadonlyArray<TerminalState>,
  maxProgress: number,
): Model => ({
  name: `${kind} ${policy}/${locale}`,
  policy,
  locale,
  options: {
    input: inputOf(policy, locale),
    events: deliveryEvents(states, maxProgress),
    impossible: impossibleEvents(maxProgress),
  },
});

/**
 * Two families keep the graphs small: progress models (two progress events of any kind, two
 * terminal states) for every policy, and terminal models (every terminal state, no progress) for
 * every policy and locale. Progress never changes the final's text, and the state never changes
 * how progress is sent.
 */
const MODELS: ReadonlyArray<Model> = [
  ...POLICIES.map((policy) => model("progress", policy, "en", ["completed", "unverified"], MAX_PROGRESS)),
  model("progress", "progress_updates", "zh", ["completed", "failed"], MAX_PROGRESS),
  ...POLICIES.flatMap((policy) => LOCALES.map((locale) => model("terminal", policy, locale, STATES, 0))),
];

const graphs = new Map<string, Graph>();
const graphOf = (model: Model) => graphs.get(model.name)!;
beforeAll(() => {
  for (const model of MODELS) graphs.set(model.name, buildGraph(deliveryMachine, model.options));
});

const describeEvent = (event: EventObject) =>
  event.type.startsWith("xstate.")
    ? event.type.replace(/^xstate\.(done|error)\.actor\./, "$1:").replace(/^xstate\.after\..*/, "retry")
    : event.type === "final" || event.type === "done"
      ? `${event.type}(${(event as unknown as { terminalState: string }).terminalState})`
      : event.type;
const trailText = (events: ReadonlyArray<EventObject> | undefined) => (events ?? []).map(describeEvent).join(" → ");

/** A shortest way to `snapshot`, for the first few failures only (each is a search of the graph). */
const trailTo = (graph: Graph, key: (snapshot: AnyMachineSnapshot) => string, snapshot: AnyMachineSnapshot) => {
  const target = key(snapshot);
  return shortestTrail(graph, key, (_, __, next) => key(next) === target);
};

/** The text a channel must show for a run that ended in `state`, in `locale`. */
const expectedFinal = (state: TerminalState, locale: Locale) =>
  finalMessage({ terminalState: state, reason: REASON[state], modelText: ANSWER, traceId: TRACE_ID, locale });

const recordsOf = (snapshot: AnyMachineSnapshot, event: EventObject): DeliveryAttempt[] =>
  (emittedBy(deliveryMachine, snapshot, event) as unknown as DeliveryAttemptEvent[])
    .filter((emitted) => emitted.type === "delivery_attempt")
    .map((emitted) => emitted.record);

describe("delivery machine: coverage", () => {
  it("takes every state node and every transition of the delivery machine on some edge", () => {
    const all = MODELS.map(graphOf);
    const coverage = coverageOf(deliveryMachine, all);
    let paths = 0;
    for (const model of MODELS) {
      const graph = graphOf(model);
      paths += endingPathCounts(graph, keyOf(model.options)).get(Object.keys(graph)[0]!) ?? 0;
    }
    console.log(
      `delivery: ${coverage.stateCount} states, ${coverage.transitionCount} transitions, ` +
        `${coverage.nodeCount} graph nodes, ${coverage.edgeCount} edges, ${paths} complete paths ` +
        `(${MODELS.length} models)`,
    );
    expect({ states: coverage.uncoveredStates, transitions: coverage.uncoveredTransitions }).toEqual({
      states: [],
      transitions: [],
    });
  });

  it.each(MODELS.map((model) => [model.name, model] as const))(
    "leaves no state stuck (%s): every reachable state can still end",
    (_, model) => {
      const key = keyOf(model.options);
      const graph = graphOf(model);
      const counts = endingPathCounts(graph, key);
      const stuck = graphNodes(graph)
        .filter((snapshot) => snapshot.status === "active" && counts.get(key(snapshot)) === 0)
        .map((snapshot) => JSON.stringify(snapshot.value));
      expect(stuck).toEqual([]);
    },
  );
});

describe("delivery machine: nothing sounds done before done", () => {
  it.each(MODELS.map((model) => [model.name, model] as const))(
    "sends only in-progress messages the policy allows before the run's done (%s)",
    (_, model) => {
      const graph = graphOf(model);
      const key = keyOf(model.options);
      const allowed = POLICY_SHOWS[model.policy];
      const wrong: string[] = [];
      for (const snapshot of graphNodes(graph)) {
        const context = contextOf(snapshot);
        if (context.ended) continue;
        const sent = [
          ...context.delivered.map((entry) => entry.message),
          ...context.failed.map((entry) => entry.message),
          ...(isSending(snapshot) ? [invokeInput<SendMessageInput>(snapshot, "send")!.message] : []),
          ...context.queue,
        ];
        for (const message of sent) {
          const fine =
            message.kind === "progress" &&
            allowed.has(message.source) &&
            isProgressText(message.text, model.locale) &&
            message.idempotencyKey === `${RUN_ID}:progress:${message.index}`;
          if (!fine) {
            const example = wrong.length < 3 ? trailTo(graph, key, snapshot) : undefined;
            wrong.push(`${trailText(example)}: ${message.kind} "${message.text}"`);
          }
        }
      }
      expect(wrong).toEqual([]);
    },
  );

  it("sends nothing at all before the run's done under final_only", () => {
    const wrong = MODELS.filter((model) => model.policy === "final_only").flatMap((model) =>
      graphNodes(graphOf(model))
        .filter(
          (snapshot) => !contextOf(snapshot).ended && (isSending(snapshot) || contextOf(snapshot).queue.length > 0),
        )
        .map((snapshot) => `${model.name}: ${JSON.stringify(snapshot.value)}`),
    );
    expect(wrong).toEqual([]);
  });

  it("counts every progress event it does not queue as suppressed, and only those", () => {
    const wrong: string[] = [];
    for (const model of MODELS) {
      for (const edge of graphEdges(graphOf(model))) {
        if (!PROGRESS_TYPES.includes(edge.event.type as never)) continue;
        const before = contextOf(edge.state);
        const after = contextOf(edge.nextState);
        const shows = !before.ended && POLICY_SHOWS[model.policy].has(edge.event.type as never);
        const queued = after.progressCount - before.progressCount;
        const suppressed = after.suppressed - before.suppressed;
        const expected = before.ended ? [0, 0] : shows ? [1, 0] : [0, 1];
        if (queued !== expected[0] || suppressed !== expected[1]) {
          wrong.push(`${model.name}: ${edge.event.type} queued ${queued}, suppressed ${suppressed}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("catches a machine that queues the final when the run's final event arrives instead of at done", () => {
    // The fault the policy exists for: the final's text goes out before the run is over.
    const eager = deliveryMachine.provide({
      actions: {
        keepFinal: assign(({ context }, params: { event: Extract<LoopEvent, { type: "final" }> }) => ({
          kept: { text: params.event.text },
          queue: [
            ...context.queue,
            {
              kind: "final" as const,
              runId: RUN_ID,
              channelId: "channel",
              idempotencyKey: `${RUN_ID}:final`,
              text: params.event.text,
              locale: "en" as const,
              terminalState: params.event.terminalState,
              reason: "answered" as const,
              traceId: TRACE_ID,
            },
          ],
        })),
      },
    });
    const options = MODELS[0]!.options;
    const graph = buildGraph(eager, options);
    const early = graphNodes(graph).filter(
      (snapshot) => !contextOf(snapshot).ended && contextOf(snapshot).queue.some((message) => message.kind === "final"),
    );
    expect(early.length).toBeGreaterThan(0);
  });
});

describe("delivery machine: exactly one final", () => {
  it("ends every path with exactly one final message: delivered once, or undeliverable and never sent", () => {
    const wrong: string[] = [];
    let ended = 0;
    for (const model of MODELS) {
      const graph = graphOf(model);
      const key = keyOf(model.options);
      for (const snapshot of graphNodes(graph).filter((node) => node.status !== "active")) {
        ended += 1;
        const output = snapshot.output as {
          delivered: Array<{ message: OutgoingMessage }>;
          failed: Array<{ message: OutgoingMessage; outcome: string }>;
          final: string;
        };
        const deliveredFinals = output.delivered.filter((entry) => entry.message.kind === "final");
        const failedFinals = output.failed.filter((entry) => entry.message.kind === "final");
        const fine =
          snapshot.status === "done" &&
          (output.final === "delivered"
            ? snapshot.value === "delivered" &&
              deliveredFinals.length === 1 &&
              output.delivered.at(-1)?.message.kind === "final" &&
              failedFinals.length === 0
            : snapshot.value === "undeliverable" &&
              deliveredFinals.length === 0 &&
              failedFinals.length === 1 &&
              failedFinals[0]!.outcome === "undeliverable");
        if (!fine) {
          const example = wrong.length < 3 ? trailTo(graph, key, snapshot) : undefined;
          wrong.push(`${model.name}: ${trailText(example)} ends ${JSON.stringify(snapshot.value)}`);
        }
      }
    }
    expect(ended).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("records a sent final only on the step that enters delivered, whatever arrives after done", () => {
    const wrong: string[] = [];
    for (const model of MODELS) {
      for (const edge of graphEdges(graphOf(model))) {
        const sentFinals = recordsOf(edge.state, edge.event).filter(
          (record) => record.kind === "final" && record.status === "sent",
        );
        const entersDelivered = edge.nextState.value === "delivered";
        if (sentFinals.length !== (entersDelivered ? 1 : 0)) {
          wrong.push(`${model.name}: ${describeEvent(edge.event)} in ${JSON.stringify(edge.state.value)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("records one attempt per send result, and gives a message up only after its last attempt", () => {
    const wrong: string[] = [];
    for (const model of MODELS) {
      for (const edge of graphEdges(graphOf(model))) {
        const records = recordsOf(edge.state, edge.event);
        const isResult =
          edge.event.type.startsWith("xstate.done.actor.") || edge.event.type.startsWith("xstate.error.actor.");
        if (records.length !== (isResult ? 1 : 0))
          wrong.push(`${describeEvent(edge.event)}: ${records.length} records`);
        for (const record of records) {
          const lastAttempt = record.attempt === inputOf(model.policy, model.locale).maxAttempts;
          const givingUp = record.status === "dropped" || edge.nextState.value === "undeliverable";
          if (givingUp !== (record.status !== "sent" && lastAttempt))
            wrong.push(`${record.status} at ${record.attempt}`);
          if (record.status === "dropped" && record.kind !== "progress") wrong.push("dropped a final");
          if (record.error !== null && /\n|secretStackFrame/.test(record.error))
            wrong.push(`error kept: ${record.error}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("delivery machine: honest final text", () => {
  it("renders every terminal state with its template in the channel's locale, with the answer as context and ref", () => {
    const seen = new Set<string>();
    const wrong: string[] = [];
    for (const model of MODELS) {
      for (const snapshot of graphNodes(graphOf(model)).filter((node) => node.status !== "active")) {
        const output = snapshot.output as {
          delivered: Array<{ message: OutgoingMessage }>;
          failed: Array<{ message: OutgoingMessage }>;
        };
        const final = [...output.delivered, ...output.failed].find((entry) => entry.message.kind === "final")!.message;
        if (final.kind !== "final") continue;
        const state = final.terminalState;
        seen.add(`${state}/${model.locale}`);
        const text = final.text;
        const other: Locale = model.locale === "en" ? "zh" : "en";
        const honest =
          text === expectedFinal(state, model.locale) &&
          (state === "completed"
            ? text === ANSWER
            : text.startsWith(terminalTemplate(state, model.locale)) &&
              !text.includes(terminalTemplate(state, other)) &&
              text.includes(ANSWER) &&
              text.endsWith(`ref: ${TRACE_ID}`)) &&
          !/HTTP 500|secretStackFrame/.test(text) &&
          final.idempotencyKey === `${RUN_ID}:final` &&
          final.locale === model.locale;
        if (!honest) wrong.push(`${model.name} ${state}: ${JSON.stringify(text)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect([...seen].sort()).toEqual(STATES.flatMap((state) => LOCALES.map((locale) => `${state}/${locale}`)).sort());
  });
});
