/**
 * Shared helpers of the model-based path tests (issues B and M): a traversable view of a machine
 * that records what each transition does, building a machine's state graph over its full event
 * alphabet, enumerating every transition of the machine definition, computing which of them the
 * graph's edges take, and walking the graph's complete paths.
 *
 * Actors never run during traversal (@xstate/graph hands the machine a mock actor scope whose
 * action executor does nothing): what they would answer is modelled as events — the run's I/O
 * actor's named replies, `xstate.done.actor.<id>` / `xstate.error.actor.<id>` for invoked machines,
 * `xstate.after.<delay>.<state id>` for a delayed transition.
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
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
  type EventObject,
  transition,
} from "xstate";

// --- A traversable machine that records what each transition does ------------------------------

/** An action a transition executes (xstate's executable action: type, resolved params). */
export interface ExecutedAction {
  readonly type: string;
  readonly params: unknown;
}

/** What the transition (or the initial macrostep) into a snapshot did. */
export interface RecordedStep {
  /** Every action it executed, in order (`xstate.sendTo`, `xstate.emit`, `xstate.raise`, custom ones). */
  readonly actions: ReadonlyArray<ExecutedAction>;
  /** Every transition definition it took, over all its microsteps (raised events and `always` included). */
  readonly transitions: ReadonlyArray<AnyTransitionDefinition>;
  /** The model's carried value (see `Carry`). */
  readonly carried: unknown;
}

/**
 * Model state the machine's snapshot does not hold but the model's events depend on — e.g. the
 * command an actor is working on — carried from transition to transition and part of a node's key.
 */
export interface Carry<C> {
  readonly initial: (actions: ReadonlyArray<ExecutedAction>) => C;
  readonly next: (carried: C, event: EventObject, actions: ReadonlyArray<ExecutedAction>) => C;
  readonly key: (carried: C) => string;
}

const recorded = new WeakMap<object, RecordedStep>();

/** What the transition into `snapshot` did; the snapshot must come from a `traversable` machine. */
export function stepInto(snapshot: AnyMachineSnapshot): RecordedStep {
  const step = recorded.get(snapshot);
  if (!step) throw new Error(`no recorded transition into ${JSON.stringify(snapshot.value)}`);
  return step;
}

export const carriedOf = <C>(snapshot: AnyMachineSnapshot): C => stepInto(snapshot).carried as C;

/**
 * The machine, as @xstate/graph traverses it, with two differences that change no state,
 * transition, guard or action:
 *
 * - each transition gets an actor scope whose `self.getSnapshot()` is the snapshot being
 *   transitioned, as a live actor's is, and whose `self` has a parent, as an invoked actor has. @xstate/graph's mock scope hands every transition an
 *   empty actor as `self`, on which the run machine's `executingTools` invoke input
 *   (`self.getSnapshot().children.io`) throws — no path could enter `executingTools`.
 * - each transition's executed actions and taken transition definitions (one
 *   `@xstate.microstep` inspection event per microstep) are recorded (`stepInto`).
 */
/**
 * The parent every traversed machine is given; what is sent to it is recorded, never delivered.
 * It has no children: a batch looking for its sibling I/O actor finds none, as outside a live run.
 */
const TRAVERSAL_PARENT = {
  id: "parent",
  sessionId: "parent",
  send: () => undefined,
  getSnapshot: () => ({ children: {} }),
} as unknown as AnyActorRef;

export function traversable<C = undefined>(machine: AnyStateMachine, carry?: Carry<C>): AnyStateMachine {
  const recorder = (scope: AnyActorScope, current: AnyMachineSnapshot | undefined) => {
    const actions: ExecutedAction[] = [];
    const transitions: AnyTransitionDefinition[] = [];
    const self = Object.create(scope.self, {
      getSnapshot: { value: () => current ?? scope.self.getSnapshot() },
      // As an invoked actor's: a machine that tells its parent (`sendParent`) has one to tell.
      _parent: { value: TRAVERSAL_PARENT },
    });
    const system = Object.create(scope.system, {
      _sendInspectionEvent: {
        value: (event: { type: string; _transitions?: AnyTransitionDefinition[] }) => {
          if (event.type === "@xstate.microstep") transitions.push(...(event._transitions ?? []));
        },
      },
    });
    const recording: AnyActorScope = {
      ...scope,
      self,
      system,
      actionExecutor: (action) => actions.push({ type: action.type, params: action.params }),
    };
    return { scope: recording, actions, transitions };
  };
  const logic = Object.create(machine) as AnyStateMachine;
  logic.getInitialSnapshot = (scope: AnyActorScope, input?: unknown) => {
    const run = recorder(scope, undefined);
    const snapshot = machine.getInitialSnapshot(run.scope, input);
    recorded.set(snapshot, {
      actions: run.actions,
      transitions: run.transitions,
      carried: carry?.initial(run.actions),
    });
    return snapshot;
  };
  logic.transition = (snapshot: AnyMachineSnapshot, event: EventObject, scope: AnyActorScope) => {
    const run = recorder(scope, snapshot);
    let next: AnyMachineSnapshot = machine.transition(snapshot, event as never, run.scope);
    // A transition that changes nothing (an action-only self-loop) returns the very snapshot it
    // was given: record its step on a copy, so the step into the original stays as it was.
    if (next === snapshot) next = Object.assign(Object.create(Object.getPrototypeOf(next)), next);
    recorded.set(next, {
      actions: run.actions,
      transitions: run.transitions,
      carried: carry ? carry.next(carriedOf<C>(snapshot), event, run.actions) : undefined,
    });
    return next;
  };
  return logic;
}

/** The events a recorded step sent with `sendTo`, with the id of their target. */
export function sentBy(step: RecordedStep): Array<{ readonly to: string; readonly event: EventObject }> {
  return step.actions
    .filter((action) => action.type === "xstate.sendTo")
    .map((action) => {
      // A target looked up in the actor system (the batch's I/O actor) may be unresolved in a traversal.
      const params = action.params as { to: { id?: string } | string | undefined; event: EventObject };
      return {
        to: typeof params.to === "string" ? params.to : (params.to?.id ?? "?"),
        event: params.event,
      };
    });
}

/** The events a recorded step emitted (`emit`). */
export const emittedIn = (step: RecordedStep): EventObject[] =>
  step.actions
    .filter((action) => action.type === "xstate.emit")
    .map((action) => (action.params as { event: EventObject }).event);

/** The actions `event` makes the machine execute in `snapshot` (xstate's pure `transition`: nothing runs). */
export function actionsOf(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  event: EventObject,
): ExecutedAction[] {
  const [, actions] = transition(machine, snapshot, event);
  return (actions as ReadonlyArray<{ type: string; params?: unknown }>).map((action) => ({
    type: action.type,
    params: action.params,
  }));
}

/** What the machine emits (via `emit`) when `event` is sent in `snapshot`. */
export const emittedBy = (machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject): EventObject[] =>
  emittedIn({ actions: actionsOf(machine, snapshot, event), transitions: [], carried: undefined });

/** The input an invoked actor of `snapshot` was started with (its snapshot carries it). */
export function invokeInput<T>(snapshot: AnyMachineSnapshot, id: string): T | undefined {
  const child = (snapshot.children as Record<string, AnyActorRef | undefined>)[id];
  return (child?.getSnapshot() as { input?: T } | undefined)?.input;
}

/** The context of an invoked machine actor of `snapshot`. */
export function invokedContext<T>(snapshot: AnyMachineSnapshot, id: string): T | undefined {
  const child = (snapshot.children as Record<string, AnyActorRef | undefined>)[id];
  return (child?.getSnapshot() as { context?: T } | undefined)?.context;
}

// --- Graphs ------------------------------------------------------------------------------------

export type Graph = AdjacencyMap<AnyMachineSnapshot, EventObject>;
export type GraphEdge = { state: AnyMachineSnapshot; event: EventObject; nextState: AnyMachineSnapshot };

export interface GraphOptions {
  readonly input: unknown;
  /** Every event that may be sent in `snapshot`; must name each event type the active states handle. */
  readonly events: (snapshot: AnyMachineSnapshot) => ReadonlyArray<EventObject>;
  /** Handled event types that cannot occur in `snapshot` (e.g. no call can report a start); say why. */
  readonly impossible?: (snapshot: AnyMachineSnapshot) => ReadonlyArray<string>;
  /** Model state carried beside the snapshot (part of each node's key). */
  readonly carry?: Carry<unknown>;
}

/** Whether an event type is handled by a transition's descriptor (exact, `*`, or a `prefix.*` wildcard). */
export const matchesDescriptor = (descriptor: string, type: string): boolean =>
  descriptor === type || descriptor === "*" || (descriptor.endsWith(".*") && type.startsWith(descriptor.slice(0, -1)));

const NO_CARRY = {};
const keyCaches = new WeakMap<object, WeakMap<AnyMachineSnapshot, string>>();

/**
 * A node's key: its value and context (@xstate/graph's default) plus the model's carried value.
 * Snapshots are immutable: each one's key is computed once (the analyses ask for it again and again).
 */
export const keyOf = (options: Pick<GraphOptions, "carry">) => {
  const carry = options.carry;
  let cache = keyCaches.get(carry ?? NO_CARRY);
  if (!cache) {
    cache = new WeakMap();
    keyCaches.set(carry ?? NO_CARRY, cache);
  }
  const known = cache;
  return (snapshot: AnyMachineSnapshot): string => {
    let key = known.get(snapshot);
    if (key === undefined) {
      key = carry ? `${serializeSnapshot(snapshot)}|${carry.key(carriedOf(snapshot))}` : serializeSnapshot(snapshot);
      known.set(snapshot, key);
    }
    return key;
  };
};

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
    serializeState: keyOf(options),
  };
}

/** The machine as the model traverses it (see `traversable`). */
export const modelLogic = (machine: AnyStateMachine, options: GraphOptions) =>
  traversable(machine, options.carry as Carry<unknown> | undefined);

export function buildGraph(machine: AnyStateMachine, options: GraphOptions): Graph {
  return getAdjacencyMap(modelLogic(machine, options), traversalOptions(options)) as Graph;
}

export function graphEdges(graph: Graph): GraphEdge[] {
  return adjacencyMapToArray(graph);
}

export function graphNodes(graph: Graph): AnyMachineSnapshot[] {
  return Object.values(graph).map((value) => value.state);
}

export type Path = StatePath<AnyMachineSnapshot, EventObject>;

export function shortestPaths(machine: AnyStateMachine, options: GraphOptions): Path[] {
  return getShortestPaths(modelLogic(machine, options), traversalOptions(options)) as Path[];
}

export function simplePaths(machine: AnyStateMachine, options: GraphOptions): Path[] {
  return getSimplePaths(modelLogic(machine, options), traversalOptions(options)) as Path[];
}

/** The final state nodes a snapshot is in. */
export const finalNodes = (snapshot: AnyMachineSnapshot): string[] =>
  snapshot._nodes.filter((node: AnyStateNode) => node.type === "final").map((node: AnyStateNode) => node.id);

type GraphValue = {
  state: AnyMachineSnapshot;
  transitions: Record<string, { event: EventObject; state: AnyMachineSnapshot }>;
};
const valuesOf = (graph: Graph) => graph as unknown as Record<string, GraphValue>;

/** The graph's node under `key`. */
export const nodeAt = (graph: Graph, key: string): GraphValue => valuesOf(graph)[key]!;

/** The key of the graph's initial node. */
export const rootOf = (graph: Graph): string => Object.keys(graph)[0]!;

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

/** The keys of the nodes reachable from `from` (default: the graph's initial node). */
export function reachableKeys(
  graph: Graph,
  key: (snapshot: AnyMachineSnapshot) => string,
  from: string = rootOf(graph),
): Set<string> {
  const reached = new Set<string>();
  const pending = [from];
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
  walk(rootOf(graph), []);
  return paths;
}

/**
 * For every node, how many complete paths (to a node that is no longer active) start there,
 * without listing them. The graphs are acyclic apart from self-loops (a second CANCEL, a
 * TOOL_STARTED report, a late result), which a simple path never takes; a real cycle is reported,
 * since it would make the count meaningless. A node with count 0 is stuck: it can never end.
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

/** The number of complete paths from the graph's initial node. */
export const completePathCount = (graph: Graph, key: (snapshot: AnyMachineSnapshot) => string): number =>
  endingPathCounts(graph, key).get(rootOf(graph)) ?? 0;

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
 * The events of a shortest path from `from` (default: the graph's initial node) to an edge `hit`
 * selects (the selected edge's event last), or undefined when there is none: a short, reproducible
 * example.
 */
export function shortestTrail(
  graph: Graph,
  key: (snapshot: AnyMachineSnapshot) => string,
  hit: (state: AnyMachineSnapshot, event: EventObject, next: AnyMachineSnapshot) => boolean,
  from: string = rootOf(graph),
): EventObject[] | undefined {
  const via = new Map<string, { from: string; event: EventObject } | null>([[from, null]]);
  const trail = (node: string, last: EventObject[]) => {
    const events = [...last];
    for (let step = via.get(node); step; step = via.get(step.from)) events.unshift(step.event);
    return events;
  };
  const queue = [from];
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

/**
 * A shortest complete path (fewest events) through edges `keep` accepts that ends in a node
 * `end` selects, or undefined. Breadth-first, edges in the graph's order: deterministic.
 */
export function shortestPath(
  graph: Graph,
  key: (snapshot: AnyMachineSnapshot) => string,
  keep: (state: AnyMachineSnapshot, event: EventObject) => boolean,
  end: (snapshot: AnyMachineSnapshot, last: EventObject) => boolean,
): GraphPath | undefined {
  const root = rootOf(graph);
  const via = new Map<string, { from: string; event: EventObject } | null>([[root, null]]);
  const pathTo = (node: string): GraphPath => {
    const steps: Array<{ state: AnyMachineSnapshot; event: EventObject }> = [];
    for (let step = via.get(node); step; step = via.get(step.from)) {
      steps.unshift({ state: nodeAt(graph, step.from).state, event: step.event });
    }
    return { steps, state: nodeAt(graph, node).state };
  };
  const queue = [root];
  for (let index = 0; index < queue.length; index++) {
    const node = queue[index]!;
    const value = nodeAt(graph, node);
    for (const next of Object.values(value.transitions)) {
      const nextKey = key(next.state);
      if (nextKey === node || via.has(nextKey) || !keep(value.state, next.event)) continue;
      via.set(nextKey, { from: node, event: next.event });
      if (next.state.status !== "active") {
        if (end(next.state, next.event)) return pathTo(nextKey);
        continue;
      }
      queue.push(nextKey);
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
 * take — in every microstep: the reply's own transition, the decision it raises, an `always` —
 * as recorded by `traversable` (the initial macrostep counts too), mapped back to the
 * enumeration by identity.
 */
export function coverageOf(machine: AnyStateMachine, graphs: ReadonlyArray<Graph>): Coverage {
  const states = stateNodesOf(machine);
  const transitions = transitionsOf(machine);
  const idOf = new Map(transitions.map((info) => [info.definition, info.id] as const));
  const seenStates = new Set<string>();
  const seenTransitions = new Set<string>();
  const take = (step: RecordedStep, what: string) => {
    for (const definition of step.transitions) {
      const id = idOf.get(definition);
      if (id === undefined) throw new Error(`${what} took a transition the enumeration does not know`);
      seenTransitions.add(id);
    }
  };
  let nodeCount = 0;
  let edgeCount = 0;
  for (const graph of graphs) {
    take(stepInto(nodeAt(graph, rootOf(graph)).state), "the initial macrostep");
    for (const snapshot of graphNodes(graph)) {
      nodeCount += 1;
      for (const node of snapshot._nodes as AnyStateNode[]) seenStates.add(node.id);
    }
    for (const edge of graphEdges(graph)) {
      edgeCount += 1;
      take(stepInto(edge.nextState), `an edge (${edge.event.type})`);
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
