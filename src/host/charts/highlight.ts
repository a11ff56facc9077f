import { type ChartGraph, chartNodes, edgeId, isAncestorOrSelf } from "./graph.js";
import type { RunPath, RunPathTransition } from "./runPath.js";

/**
 * What a chart marks for one run (or, as an overlay, for many): plain data, so the same marks can
 * be written into the SVG (svg.ts) or applied in a browser to a shared copy of it (the report).
 */
export interface ChartHighlight {
  /** Visits per state id; containers of a visited state count as visited. */
  readonly visits: Readonly<Record<string, number>>;
  /** Times taken, per drawn edge id (`from->to`). */
  readonly edges: Readonly<Record<string, number>>;
  readonly terminal?: string;
  /** Events written while in each state: the count shown on the chart. */
  readonly events: Readonly<Record<string, number>>;
  /** Path transitions no drawn edge carries (the machine changed, or a bare state list skipped one). */
  readonly unmatched: ReadonlyArray<RunPathTransition>;
}

/** How many runs visited each state and took each edge; `runs` is how many were overlaid. */
export interface ChartOverlay {
  readonly runs: number;
  readonly visits: Readonly<Record<string, number>>;
  readonly edges: Readonly<Record<string, number>>;
}

const depth = (id: string) => (id === "" ? 0 : id.split(".").length);

/**
 * The drawn edge a path transition is on: the edge with exactly its ids, else the one declared on
 * the nearest ancestor-or-self of `from` that targets the nearest ancestor-or-self of `to`.
 */
export function edgeFor(graph: ChartGraph, from: string, to: string): string | undefined {
  const exact = edgeId(from, to);
  if (graph.edges.some((edge) => edge.id === exact)) return exact;
  let best: { id: string; score: number } | undefined;
  for (const edge of graph.edges) {
    if (!isAncestorOrSelf(edge.from, from) || !isAncestorOrSelf(edge.to, to)) continue;
    const score = depth(edge.from) * 100 + depth(edge.to);
    if (!best || score > best.score) best = { id: edge.id, score };
  }
  return best?.id;
}

export function highlightOf(graph: ChartGraph, path: RunPath): ChartHighlight {
  const known = new Set(chartNodes(graph.root).map((node) => node.id));
  const visits: Record<string, number> = {};
  const visit = (state: string, times: number) => {
    if (!known.has(state)) return;
    const parts = state.split(".");
    for (let length = 1; length <= parts.length; length += 1) {
      const id = parts.slice(0, length).join(".");
      visits[id] = Math.max(visits[id] ?? 0, length === parts.length ? (visits[id] ?? 0) + times : 1);
    }
  };
  for (const state of path.states) visit(state, 1);
  const edges: Record<string, number> = {};
  const unmatched: RunPathTransition[] = [];
  for (const transition of path.transitions) {
    const id = edgeFor(graph, transition.from, transition.to);
    if (id === undefined) {
      unmatched.push(transition);
      continue;
    }
    edges[id] = (edges[id] ?? 0) + transition.count;
    // A state entered only in another region (`cancellation.requested`) is visited too.
    for (const state of [transition.from, transition.to]) if (!(state in visits)) visit(state, 1);
  }
  const events: Record<string, number> = {};
  for (const [state, list] of Object.entries(path.eventsByState ?? {}))
    if (list.length > 0) events[state] = list.length;
  return {
    visits,
    edges,
    ...(path.terminal !== undefined && known.has(path.terminal) ? { terminal: path.terminal } : {}),
    events,
    unmatched,
  };
}

export function overlayOf(graph: ChartGraph, paths: ReadonlyArray<RunPath>): ChartOverlay {
  const visits: Record<string, number> = {};
  const edges: Record<string, number> = {};
  for (const path of paths) {
    const one = highlightOf(graph, path);
    for (const id of Object.keys(one.visits)) visits[id] = (visits[id] ?? 0) + 1;
    for (const id of Object.keys(one.edges)) edges[id] = (edges[id] ?? 0) + 1;
  }
  return { runs: paths.length, visits, edges };
}
