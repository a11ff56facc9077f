import type { AnyStateMachine, AnyStateNode } from "xstate";

/**
 * A machine as a drawable graph: its state nodes as a tree (ids are dotted key paths, the ids the
 * report and `RunPath` use: `active.work.sampling`) and one edge per (source, target) pair. Several
 * transitions between the same two states (`FINISHED [outcomeFailed]` and `LEDGER_FAILED` from
 * `finalizing` to `failed`) share one edge with one label line each, so `from->to` names an edge
 * uniquely. Targetless transitions change no state and draw nothing.
 */

export type ChartNodeKind = "atomic" | "compound" | "parallel" | "final" | "history";

export interface ChartNode {
  readonly id: string;
  readonly key: string;
  readonly kind: ChartNodeKind;
  /** The child entered first (compound states and the root); parallel states enter every child. */
  readonly initial?: string;
  readonly children: ReadonlyArray<ChartNode>;
}

export interface ChartEdge {
  /** `from->to`, unique in the graph. */
  readonly id: string;
  readonly from: string;
  readonly to: string;
  /** One line per transition: `EVENT [guard]`, in the order the machine lists them. */
  readonly labels: ReadonlyArray<string>;
}

export interface ChartGraph {
  readonly machineId: string;
  readonly root: ChartNode;
  readonly edges: ReadonlyArray<ChartEdge>;
}

export const edgeId = (from: string, to: string) => `${from}->${to}`;

const nodeId = (node: AnyStateNode) => node.path.join(".");

function kindOf(node: AnyStateNode): ChartNodeKind {
  if (node.type === "final") return "final";
  if (node.type === "history") return "history";
  if (node.type === "parallel") return "parallel";
  if (node.type === "compound") return "compound";
  return "atomic";
}

function chartNode(node: AnyStateNode): ChartNode {
  const children = (Object.values(node.states) as AnyStateNode[]).map(chartNode);
  const initial = node.type === "compound" ? (node.initial?.target[0] as AnyStateNode | undefined) : undefined;
  return {
    id: nodeId(node),
    key: node.path.length === 0 ? node.machine.id : node.key,
    kind: kindOf(node),
    ...(initial ? { initial: nodeId(initial) } : {}),
    children,
  };
}

interface TransitionLike {
  readonly eventType: string;
  readonly delay?: string | number;
  readonly guard?: unknown;
  readonly target?: ReadonlyArray<AnyStateNode>;
}

/** The event as a person reads it: `done: toolBatch` for `xstate.done.actor.toolBatch`. */
export function eventLabel(transition: { readonly eventType: string; readonly delay?: string | number }): string {
  if (transition.delay !== undefined) return `after ${transition.delay}`;
  const type = transition.eventType;
  if (type === "") return "always";
  const prefixes: ReadonlyArray<readonly [string, string]> = [
    ["xstate.done.actor.", "done: "],
    ["xstate.error.actor.", "error: "],
    ["xstate.snapshot.", "snapshot: "],
    ["xstate.done.state.", "done: "],
  ];
  for (const [prefix, short] of prefixes) {
    if (type.startsWith(prefix)) return `${short}${type.slice(prefix.length)}`;
  }
  return type;
}

/** A guard's name from setup(), as the exports and the pictures print it. */
export function guardName(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === "string") return guard;
  if (typeof guard === "object" && typeof (guard as { type?: unknown }).type === "string") {
    return (guard as { type: string }).type;
  }
  if (typeof guard === "function") return guard.name || "inline guard";
  return "guard";
}

function collectEdges(node: AnyStateNode, edges: Map<string, { from: string; to: string; labels: string[] }>) {
  const transitions = [...node.transitions.values()].flat() as unknown as TransitionLike[];
  const always = (node.always ?? []) as unknown as TransitionLike[];
  for (const transition of [...transitions, ...always]) {
    const guard = guardName(transition.guard);
    const text = guard ? `${eventLabel(transition)} [${guard}]` : eventLabel(transition);
    for (const target of transition.target ?? []) {
      const id = edgeId(nodeId(node), nodeId(target));
      const edge = edges.get(id) ?? { from: nodeId(node), to: nodeId(target), labels: [] };
      if (!edge.labels.includes(text)) edge.labels.push(text);
      edges.set(id, edge);
    }
  }
  for (const child of Object.values(node.states) as AnyStateNode[]) collectEdges(child, edges);
}

export function machineGraph(machine: AnyStateMachine): ChartGraph {
  const edges = new Map<string, { from: string; to: string; labels: string[] }>();
  collectEdges(machine.root, edges);
  return {
    machineId: machine.id,
    root: chartNode(machine.root),
    edges: [...edges.entries()].map(([id, edge]) => ({ id, ...edge })),
  };
}

/** Every node of the tree below (and without) the root, parents before children. */
export function chartNodes(root: ChartNode): ChartNode[] {
  return root.children.flatMap((child) => [child, ...chartNodes(child)]);
}

/** `a.b` is an ancestor of `a.b.c`; every id is its own ancestor-or-self; the root ("") is everyone's. */
export const isAncestorOrSelf = (ancestor: string, id: string) =>
  ancestor === "" || ancestor === id || id.startsWith(`${ancestor}.`);
