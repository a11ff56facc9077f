import elkBundled from "elkjs/lib/elk.bundled.js";
import type { ELK, ELKConstructorArguments, ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api.js";
import type { AnyStateMachine } from "xstate";
import { type ChartEdge, type ChartGraph, type ChartNode, type ChartNodeKind, machineGraph } from "./graph.js";

/**
 * Positions for a machine's chart, computed by ELK's layered algorithm (elkjs, pure JS, no worker,
 * no browser): containers for compound and parallel states, one routed polyline per edge, a box
 * for each edge label. Text is set in a monospace font, so its width is a character count times a
 * fixed advance — the same numbers on every machine, which keeps the SVG byte-identical.
 */

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface LaidNode extends Box {
  readonly id: string;
  readonly key: string;
  readonly kind: ChartNodeKind;
  readonly depth: number;
  /** A container (compound or parallel state, or the machine itself). */
  readonly container: boolean;
  readonly parallelRegion: boolean;
}

export interface LaidEdge {
  readonly edge: ChartEdge;
  readonly points: ReadonlyArray<Point>;
  readonly label: Box;
}

/** The filled dot of a compound state's initial state and the arrow from it. */
export interface LaidInitial {
  readonly parent: string;
  readonly target: string;
  readonly dot: Point;
  readonly points: ReadonlyArray<Point>;
}

export interface ChartLayout {
  readonly graph: ChartGraph;
  readonly width: number;
  readonly height: number;
  readonly nodes: ReadonlyArray<LaidNode>;
  readonly edges: ReadonlyArray<LaidEdge>;
  readonly initials: ReadonlyArray<LaidInitial>;
}

/** 12px monospace: DejaVu Sans Mono / Menlo / Consolas advance 0.6em; 0.62em leaves a margin. */
export const STATE_FONT = { size: 12, advance: 7.44, line: 14 } as const;
export const LABEL_FONT = { size: 10, advance: 6.2, line: 12 } as const;
// The bundle is CommonJS (`module.exports = ELK`); its .d.ts says `export default`, which NodeNext
// reads as a `default` property. The bundled build lays out in-process, without a worker.
const ElkLayout = elkBundled as unknown as new (args?: ELKConstructorArguments) => ELK;

const HEADER = 26;
const PAD = 14;
const INITIAL_DOT = 10;

const textWidth = (text: string, font: { advance: number }) => [...text].length * font.advance;

/** Room at the label's right end for the count badge, reserved always so every chart shares one layout. */
export const BADGE_WIDTH = 30;

export const labelBox = (lines: ReadonlyArray<string>) => ({
  width: Math.ceil(Math.max(...lines.map((line) => textWidth(line, LABEL_FONT))) + 6 + BADGE_WIDTH + 2),
  height: lines.length * LABEL_FONT.line + 4,
});

function leafSize(node: ChartNode) {
  const extra = node.kind === "final" ? 8 : 0;
  return { width: Math.ceil(Math.max(72, textWidth(node.key, STATE_FONT) + 28) + extra), height: 32 + extra };
}

const initialId = (parent: string) => `initial:${parent}`;
const initialEdgeId = (parent: string) => `initial-edge:${parent}`;

function elkNode(node: ChartNode, initialEdges: ElkExtendedEdge[]): ElkNode {
  if (node.children.length === 0) return { id: node.id, ...leafSize(node) };
  const children = node.children.map((child) => elkNode(child, initialEdges));
  if (node.initial !== undefined) {
    children.unshift({ id: initialId(node.id), width: INITIAL_DOT, height: INITIAL_DOT });
    initialEdges.push({ id: initialEdgeId(node.id), sources: [initialId(node.id)], targets: [node.initial] });
  }
  const headerWidth = Math.ceil(textWidth(node.key, STATE_FONT) + 2 * PAD);
  return {
    id: node.id === "" ? "root" : node.id,
    layoutOptions: {
      "elk.padding": `[top=${HEADER + 8},left=${PAD},bottom=${PAD},right=${PAD}]`,
      "elk.nodeSize.constraints": "MINIMUM_SIZE",
      "elk.nodeSize.minimum": `(${headerWidth}, ${HEADER + 20})`,
    },
    children,
  };
}

const ROOT_OPTIONS = {
  "elk.algorithm": "layered",
  "elk.direction": "DOWN",
  "elk.hierarchyHandling": "INCLUDE_CHILDREN",
  "elk.json.edgeCoords": "ROOT",
  "elk.json.shapeCoords": "ROOT",
  "elk.edgeRouting": "ORTHOGONAL",
  "elk.edgeLabels.placement": "CENTER",
  "elk.spacing.nodeNode": "28",
  "elk.spacing.edgeEdge": "12",
  "elk.spacing.edgeNode": "16",
  "elk.spacing.edgeLabel": "4",
  "elk.layered.spacing.nodeNodeBetweenLayers": "36",
  "elk.layered.spacing.edgeNodeBetweenLayers": "14",
  "elk.layered.spacing.edgeEdgeBetweenLayers": "10",
  "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
  "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
  "elk.randomSeed": "1",
};

const round = (value: number) => Math.round(value * 10) / 10;

function sectionPoints(edge: ElkExtendedEdge): Point[] {
  return (edge.sections ?? []).flatMap((section) =>
    [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map((point) => ({
      x: round(point.x),
      y: round(point.y),
    })),
  );
}

export async function layoutGraph(graph: ChartGraph): Promise<ChartLayout> {
  const initialEdges: ElkExtendedEdge[] = [];
  const root = elkNode(graph.root, initialEdges);
  const edges: ElkExtendedEdge[] = graph.edges.map((edge) => ({
    id: edge.id,
    sources: [edge.from === "" ? "root" : edge.from],
    targets: [edge.to === "" ? "root" : edge.to],
    labels: [{ id: `label:${edge.id}`, text: edge.labels.join("\n"), ...labelBox(edge.labels) }],
  }));
  const laid = await new ElkLayout().layout({
    ...root,
    layoutOptions: { ...ROOT_OPTIONS, ...root.layoutOptions },
    edges: [...initialEdges, ...edges],
  });

  const nodes: LaidNode[] = [];
  const byId = new Map<string, ChartNode>();
  const index = (node: ChartNode) => {
    byId.set(node.id === "" ? "root" : node.id, node);
    node.children.forEach(index);
  };
  index(graph.root);
  const visit = (elk: ElkNode, depth: number, parent: ChartNode | undefined) => {
    const node = byId.get(elk.id);
    if (node) {
      nodes.push({
        id: node.id,
        key: node.key,
        kind: node.kind,
        depth,
        container: node.children.length > 0,
        parallelRegion: parent?.kind === "parallel",
        x: round(elk.x ?? 0),
        y: round(elk.y ?? 0),
        width: round(elk.width ?? 0),
        height: round(elk.height ?? 0),
      });
    }
    for (const child of elk.children ?? []) visit(child, depth + 1, node);
  };
  visit(laid, 0, undefined);

  const laidEdges = new Map((laid.edges ?? []).map((edge) => [edge.id, edge]));
  const initials: LaidInitial[] = initialEdges.map((initial) => {
    const parent = initial.id.slice("initial-edge:".length);
    const dotNode = findElk(laid, initialId(parent))!;
    return {
      parent,
      target: initial.targets[0]!,
      dot: { x: round((dotNode.x ?? 0) + INITIAL_DOT / 2), y: round((dotNode.y ?? 0) + INITIAL_DOT / 2) },
      points: sectionPoints(laidEdges.get(initial.id)!),
    };
  });
  return {
    graph,
    width: round(laid.width ?? 0),
    height: round(laid.height ?? 0),
    nodes,
    edges: graph.edges.map((edge) => {
      const elk = laidEdges.get(edge.id)!;
      const label = elk.labels?.[0];
      return {
        edge,
        points: sectionPoints(elk),
        label: {
          x: round(label?.x ?? 0),
          y: round(label?.y ?? 0),
          width: round(label?.width ?? 0),
          height: round(label?.height ?? 0),
        },
      };
    }),
    initials,
  };
}

function findElk(node: ElkNode, id: string): ElkNode | undefined {
  if (node.id === id) return node;
  for (const child of node.children ?? []) {
    const found = findElk(child, id);
    if (found) return found;
  }
  return undefined;
}

const cache = new WeakMap<AnyStateMachine, Promise<ChartLayout>>();

/** The layout of a machine, computed once per machine object and process. */
export function layoutMachine(machine: AnyStateMachine): Promise<ChartLayout> {
  let layout = cache.get(machine);
  if (!layout) {
    layout = layoutGraph(machineGraph(machine));
    cache.set(machine, layout);
  }
  return layout;
}
