import type { AnyStateMachine } from "xstate";
import { runMachine } from "../../machines/run/machine.js";
import { type ChartHighlight, type ChartOverlay, highlightOf, overlayOf } from "./highlight.js";
import {
  BADGE_WIDTH,
  type ChartLayout,
  LABEL_FONT,
  type LaidEdge,
  type LaidNode,
  layoutMachine,
  type Point,
  STATE_FONT,
} from "./layout.js";
import type { RunPath } from "./runPath.js";

/**
 * A machine's statechart as one standalone `<svg>` string, laid out offline (layout.ts) and
 * byte-identical for the same machine and options. With a `path`, the run's states and
 * transitions are marked; with an `overlay`, each edge is as thick as the share of runs that took it.
 *
 * Stable hooks for tests, the report and `agentloop serve` (keep them):
 * - `<svg class="agentloop-chart" data-machine="run">` (plus `run-path` with a path, `overlay` with one), element ids prefixed with `idPrefix`
 *   (default `<machine id>-`): `<prefix>state-<id with . as _>`, `<prefix>edge-<from>--<to>`.
 * - every state: `<g class="state <kind>" data-state="active.work.sampling" data-kind="atomic">`
 *   (kind: atomic | compound | parallel | final; `final` states have a second, inner border);
 *   with a path: `data-visited="true" data-visits="2"`, events written there as
 *   `data-events="3"`, and on the final state the run ended in `class="state final terminal"`
 *   with `data-terminal="true"`; with an overlay: `data-runs="12"`.
 * - every transition: `<g class="transition" data-edge="from->to" data-from="…" data-to="…">` with
 *   a `<path>`, an arrowhead, a label (`EVENT [guard]`, one line per transition on that edge) and
 *   a `<g class="count">` badge; with a path: `data-taken="true" data-count="3"` (badge `×3`);
 *   with an overlay: `data-runs="12"` (badge `12`) and a stroke width by share of runs.
 */

export interface ChartOptions {
  readonly path?: RunPath;
  readonly overlay?: ReadonlyArray<RunPath>;
  readonly idPrefix?: string;
}

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[char]!);
/** Attribute values are double-quoted; `>` stays literal so `data-edge="a->b"` reads as written. */
const escapeAttr = (text: string) =>
  text.replace(/[&<"]/g, (char) => ({ "&": "&amp;", "<": "&lt;", '"': "&quot;" })[char]!);

const safeId = (id: string) => (id === "" ? "root" : id.replace(/[^A-Za-z0-9_-]/g, "_"));

const num = (value: number) => {
  const rounded = Math.round(value * 10) / 10;
  return Object.is(rounded, -0) ? "0" : String(rounded);
};

/** Scoped by the root class, so many charts can share one HTML page. */
export const CHART_STYLE = `.agentloop-chart{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;max-width:100%;height:auto}
.agentloop-chart .state>rect{fill:#fff;stroke:#57606a;stroke-width:1.2}
.agentloop-chart .state>text{font-size:${STATE_FONT.size}px;fill:#1f2328;dominant-baseline:central;text-anchor:middle}
.agentloop-chart .state.container>rect{fill:#f6f8fa;stroke:#8c959f}
.agentloop-chart .state.container>text{font-weight:600;text-anchor:start}
.agentloop-chart .state.region>rect{fill:#fff;stroke-dasharray:5 3}
.agentloop-chart .state.root>rect{fill:#fff;stroke:#d0d7de}
.agentloop-chart .state.final>rect.inner{fill:none}
.agentloop-chart .initial{fill:#1f2328;stroke:#1f2328}
.agentloop-chart .transition>path{fill:none;stroke:#8c959f;stroke-width:1.2}
.agentloop-chart .transition>polygon{fill:#8c959f}
.agentloop-chart .transition .label rect{fill:#fff;opacity:.85}
.agentloop-chart .transition .label text{font-size:${LABEL_FONT.size}px;fill:#57606a}
.agentloop-chart .count{display:none}
.agentloop-chart .count rect{fill:#0969da}
.agentloop-chart .count text{font-size:10px;font-weight:700;fill:#fff;text-anchor:middle;dominant-baseline:central}
.agentloop-chart [data-visited="true"]:not(.container)>rect{fill:#ddf4ff;stroke:#0969da;stroke-width:2}
.agentloop-chart .container[data-visited="true"]>rect{stroke:#0969da}
.agentloop-chart .terminal>rect{fill:#0969da!important;stroke:#0a3069!important;stroke-width:3!important}
.agentloop-chart .terminal>rect.inner{fill:none!important;stroke:#fff!important;stroke-width:1.5!important}
.agentloop-chart .terminal>text{fill:#fff;font-weight:700}
.agentloop-chart [data-taken="true"]>path{stroke:#0969da;stroke-width:2.6}
.agentloop-chart [data-taken="true"]>polygon{fill:#0969da}
.agentloop-chart [data-taken="true"] .label text{fill:#0a3069;font-weight:700}
.agentloop-chart [data-count] .count,.agentloop-chart [data-runs]:not([data-runs="0"]) .count{display:inline}
.agentloop-chart.overlay .transition[data-runs]:not([data-runs="0"])>path{stroke:#0969da}
.agentloop-chart.overlay .transition[data-runs]:not([data-runs="0"])>polygon{fill:#0969da}
.agentloop-chart.overlay .transition[data-runs="0"]>path{stroke-dasharray:4 3;stroke:#afb8c1}
.agentloop-chart.overlay .state[data-runs]:not([data-runs="0"]):not(.container)>rect{fill:#ddf4ff;stroke:#0969da}
.agentloop-chart .state[data-events]:not(.container){cursor:pointer}
.agentloop-chart .state.selected>rect{stroke:#bf3989!important;stroke-width:3!important}`;

interface Marks {
  readonly highlight?: ChartHighlight;
  readonly overlay?: ChartOverlay;
}

function nodeSvg(node: LaidNode, prefix: string, marks: Marks): string {
  const classes = ["state", node.kind];
  if (node.depth === 0) classes.push("root");
  if (node.container) classes.push("container");
  if (node.parallelRegion) classes.push("region");
  const highlight = marks.highlight;
  const terminal = highlight?.terminal === node.id;
  if (terminal) classes.push("terminal");
  const attributes = [
    `id="${prefix}state-${safeId(node.id)}"`,
    `class="${classes.join(" ")}"`,
    `data-state="${escapeAttr(node.id)}"`,
    `data-kind="${node.kind}"`,
  ];
  const visits = highlight?.visits[node.id];
  if (visits !== undefined) attributes.push('data-visited="true"', `data-visits="${visits}"`);
  const events = highlight?.events[node.id];
  if (events !== undefined) attributes.push(`data-events="${events}"`);
  if (terminal) attributes.push('data-terminal="true"');
  if (marks.overlay) attributes.push(`data-runs="${marks.overlay.visits[node.id] ?? 0}"`);
  const radius = node.container ? 10 : node.kind === "final" ? 8 : 6;
  const shapes = [
    `<rect x="${num(node.x)}" y="${num(node.y)}" width="${num(node.width)}" height="${num(node.height)}" rx="${radius}"/>`,
  ];
  if (node.kind === "final") {
    shapes.push(
      `<rect class="inner" x="${num(node.x + 4)}" y="${num(node.y + 4)}" width="${num(node.width - 8)}" height="${num(node.height - 8)}" rx="5"/>`,
    );
  }
  const text = node.container
    ? `<text x="${num(node.x + 12)}" y="${num(node.y + 16)}">${escapeXml(node.key)}${node.kind === "parallel" ? " ∥" : ""}</text>`
    : `<text x="${num(node.x + node.width / 2)}" y="${num(node.y + node.height / 2)}">${escapeXml(node.key)}</text>`;
  return `<g ${attributes.join(" ")}>${shapes.join("")}${text}</g>`;
}

function arrowhead(points: ReadonlyArray<Point>): string {
  const end = points.at(-1);
  const before = points.at(-2);
  if (!end || !before) return "";
  const length = Math.hypot(end.x - before.x, end.y - before.y) || 1;
  const ux = (end.x - before.x) / length;
  const uy = (end.y - before.y) / length;
  const size = 7;
  const back = { x: end.x - ux * size, y: end.y - uy * size };
  const left = { x: back.x - uy * (size / 2), y: back.y + ux * (size / 2) };
  const right = { x: back.x + uy * (size / 2), y: back.y - ux * (size / 2) };
  return `<polygon points="${[end, left, right].map((p) => `${num(p.x)},${num(p.y)}`).join(" ")}"/>`;
}

const polyline = (points: ReadonlyArray<Point>) =>
  points.map((point, index) => `${index === 0 ? "M" : "L"}${num(point.x)} ${num(point.y)}`).join(" ");

function edgeSvg(laid: LaidEdge, prefix: string, marks: Marks): string {
  const { edge, label } = laid;
  const attributes = [
    `id="${prefix}edge-${safeId(edge.from)}--${safeId(edge.to)}"`,
    'class="transition"',
    `data-edge="${escapeAttr(edge.id)}"`,
    `data-from="${escapeAttr(edge.from)}"`,
    `data-to="${escapeAttr(edge.to)}"`,
  ];
  let badge = "";
  let strokeWidth: number | undefined;
  const count = marks.highlight?.edges[edge.id];
  if (count !== undefined) {
    attributes.push('data-taken="true"', `data-count="${count}"`);
    badge = `×${count}`;
  }
  if (marks.overlay) {
    const runs = marks.overlay.edges[edge.id] ?? 0;
    attributes.push(`data-runs="${runs}"`);
    if (runs > 0) {
      badge = String(runs);
      strokeWidth = 1.5 + 6.5 * (runs / Math.max(1, marks.overlay.runs));
    }
  }
  const lines = edge.labels
    .map(
      (line, index) =>
        `<text x="${num(label.x + 3)}" y="${num(label.y + 2 + LABEL_FONT.line * (index + 1) - 3)}">${escapeXml(line)}</text>`,
    )
    .join("");
  const badgeX = label.x + label.width - BADGE_WIDTH;
  const style = strokeWidth !== undefined ? ` style="stroke-width:${num(strokeWidth)}"` : "";
  return `<g ${attributes.join(" ")}><path d="${polyline(laid.points)}"${style}/>${arrowhead(laid.points)}<g class="label"><rect x="${num(label.x)}" y="${num(label.y)}" width="${num(label.width - BADGE_WIDTH - 2)}" height="${num(label.height)}"/>${lines}</g><g class="count"><rect x="${num(badgeX)}" y="${num(label.y + 1)}" width="${BADGE_WIDTH}" height="14" rx="7"/><text x="${num(badgeX + BADGE_WIDTH / 2)}" y="${num(label.y + 8)}">${badge}</text></g></g>`;
}

/** The SVG of a laid-out chart, with the marks of a path or an overlay. */
export function chartSvg(layout: ChartLayout, options: ChartOptions = {}): string {
  const prefix = escapeAttr(options.idPrefix ?? `${safeId(layout.graph.machineId)}-`);
  const marks: Marks = {
    ...(options.path ? { highlight: highlightOf(layout.graph, options.path) } : {}),
    ...(options.overlay ? { overlay: overlayOf(layout.graph, options.overlay) } : {}),
  };
  const margin = 2;
  const width = layout.width + 2 * margin;
  const height = layout.height + 2 * margin;
  const initials = layout.initials
    .map(
      (initial) =>
        `<g class="initial" data-initial="${escapeAttr(initial.parent)}"><circle cx="${num(initial.dot.x)}" cy="${num(initial.dot.y)}" r="5"/><path d="${polyline(initial.points)}" fill="none"/>${arrowhead(initial.points)}</g>`,
    )
    .join("\n");
  const classes = ["agentloop-chart", ...(options.overlay ? ["overlay"] : []), ...(options.path ? ["run-path"] : [])];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" id="${prefix}chart" class="${classes.join(" ")}" data-machine="${escapeAttr(layout.graph.machineId)}" viewBox="${-margin} ${-margin} ${num(width)} ${num(height)}" width="${num(width)}" height="${num(height)}" role="img" aria-label="${escapeXml(layout.graph.machineId)} statechart">`,
    `<style>${CHART_STYLE}</style>`,
    `<g class="states">`,
    ...layout.nodes.map((node) => nodeSvg(node, prefix, marks)),
    "</g>",
    `<g class="initials">${initials}</g>`,
    `<g class="transitions">`,
    ...layout.edges.map((edge) => edgeSvg(edge, prefix, marks)),
    "</g>",
    "</svg>",
    "",
  ].join("\n");
}

/** `renderMachineSvg("run")` is the run machine; any other machine is passed as itself. */
export async function renderMachineSvg(machine: AnyStateMachine | "run", options: ChartOptions = {}): Promise<string> {
  return chartSvg(await layoutMachine(machine === "run" ? runMachine : machine), options);
}
