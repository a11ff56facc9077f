import { runMachine } from "../../machines/run/machine.js";
import { highlightOf, overlayOf } from "../charts/highlight.js";
import { layoutMachine } from "../charts/layout.js";
import type { RunPath } from "../charts/runPath.js";
import { chartSvg } from "../charts/svg.js";

/**
 * The report's statecharts: the run machine laid out once, drawn once as a summary (all cases
 * overlaid) and once as a `<template>`; each case carries only its marks as JSON, and the inline
 * script below applies them to a copy of the template when the case is opened. One layout for 139
 * cases instead of 139 SVG copies.
 */

/** What the browser needs to mark one case's chart: the same marks svg.ts writes into an SVG. */
export interface CaseMarks {
  readonly visits: Readonly<Record<string, number>>;
  readonly edges: Readonly<Record<string, number>>;
  readonly terminal?: string;
  /** Ledger sequence numbers written in each state; the timeline rows carry `data-sequence`. */
  readonly events: Readonly<Record<string, ReadonlyArray<number>>>;
  /** False when the ledger could not be read at state entries (PostgreSQL): no event lists. */
  readonly eventsKnown: boolean;
  readonly unmatched: ReadonlyArray<string>;
}

export interface ReportCharts {
  readonly summarySvg: string;
  readonly templateSvg: string;
  /** Edges of the run machine that no case took, as `from->to` with their labels. */
  readonly untaken: ReadonlyArray<{ readonly id: string; readonly labels: ReadonlyArray<string> }>;
  readonly edgeCount: number;
  readonly marks: ReadonlyArray<CaseMarks | null>;
}

export async function reportCharts(paths: ReadonlyArray<RunPath | undefined>): Promise<ReportCharts> {
  const layout = await layoutMachine(runMachine);
  const known = paths.filter((path): path is RunPath => path !== undefined);
  const overlay = overlayOf(layout.graph, known);
  return {
    summarySvg: chartSvg(layout, { overlay: known, idPrefix: "summary-" }),
    templateSvg: chartSvg(layout, { idPrefix: "tpl-" }),
    untaken: layout.graph.edges
      .filter((edge) => (overlay.edges[edge.id] ?? 0) === 0)
      .map((edge) => ({ id: edge.id, labels: edge.labels })),
    edgeCount: layout.graph.edges.length,
    marks: paths.map((path) => {
      if (!path) return null;
      const marks = highlightOf(layout.graph, path);
      return {
        visits: marks.visits,
        edges: marks.edges,
        ...(marks.terminal !== undefined ? { terminal: marks.terminal } : {}),
        events: Object.fromEntries(
          Object.entries(path.eventsByState ?? {}).map(([state, events]) => [state, events.map((e) => e.sequence)]),
        ),
        eventsKnown: path.eventsByState !== undefined,
        unmatched: marks.unmatched.map((transition) => `${transition.from}->${transition.to}`),
      };
    }),
  };
}

/** JSON inside `<script type="application/json">`: nothing in it may close the element. */
export const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

/**
 * Draws a case's chart when its `<details>` opens, and lists the ledger events of a state on
 * hover (click pins it). Plain DOM, no network; the marks mirror svg.ts's attributes.
 */
export const CHART_SCRIPT = `(() => {
  const source = document.getElementById("case-marks");
  const template = document.getElementById("run-chart-template");
  if (!source || !template) return;
  const marks = JSON.parse(source.textContent);
  const UNKNOWN = "Which state wrote which ledger event is known only for runs on a SQLite ledger.";
  const HINT = "Hover over a state to list the ledger events written while the run was in it; click to pin.";
  function draw(details) {
    const index = details.dataset.case;
    const mark = marks[index];
    const holder = details.querySelector(".chart");
    if (!mark || !holder || holder.firstElementChild) return;
    const svg = template.content.firstElementChild.cloneNode(true);
    for (const element of [svg, ...svg.querySelectorAll("[id]")]) element.id = element.id.replace(/^tpl-/, "case-" + index + "-");
    svg.classList.add("run-path");
    for (const state of svg.querySelectorAll("g.state")) {
      const id = state.dataset.state;
      if (mark.visits[id] !== undefined) {
        state.dataset.visited = "true";
        state.dataset.visits = String(mark.visits[id]);
      }
      if (mark.events[id] && mark.events[id].length > 0) state.dataset.events = String(mark.events[id].length);
      if (mark.terminal === id) {
        state.classList.add("terminal");
        state.dataset.terminal = "true";
      }
    }
    for (const edge of svg.querySelectorAll("g.transition")) {
      const count = mark.edges[edge.dataset.edge];
      if (count === undefined) continue;
      edge.dataset.taken = "true";
      edge.dataset.count = String(count);
      edge.querySelector(".count text").textContent = "\\u00d7" + count;
    }
    holder.append(svg);
    const panel = details.querySelector(".state-events");
    if (!mark.eventsKnown) {
      panel.textContent = UNKNOWN;
      return;
    }
    let pinned;
    const show = (state) => {
      for (const element of svg.querySelectorAll("g.state.selected")) element.classList.remove("selected");
      for (const row of details.querySelectorAll(".timeline li.in-state")) row.classList.remove("in-state");
      panel.replaceChildren();
      if (!state) {
        panel.textContent = HINT;
        return;
      }
      state.classList.add("selected");
      const id = state.dataset.state;
      const sequences = mark.events[id] || [];
      const title = document.createElement("p");
      title.className = "state-events-title";
      title.dataset.testid = "state-events-title";
      title.textContent = id + ": " + sequences.length + (sequences.length === 1 ? " event" : " events") + (mark.visits[id] ? " (visited " + mark.visits[id] + "\\u00d7)" : " (not visited)");
      const list = document.createElement("ol");
      list.className = "state-event-list";
      for (const sequence of sequences) {
        const row = details.querySelector('.timeline li[data-sequence="' + sequence + '"]');
        if (!row) continue;
        row.classList.add("in-state");
        const item = row.cloneNode(true);
        item.classList.remove("in-state");
        list.append(item);
      }
      panel.append(title, list);
    };
    const stateOf = (target) => target.closest && target.closest("g.state:not(.container)");
    svg.addEventListener("mouseover", (event) => {
      const state = stateOf(event.target);
      if (state && !pinned) show(state);
    });
    svg.addEventListener("mouseleave", () => {
      if (!pinned) show(undefined);
    });
    svg.addEventListener("click", (event) => {
      const state = stateOf(event.target);
      pinned = state && state !== pinned ? state : undefined;
      show(pinned || state);
    });
    panel.textContent = HINT;
  }
  for (const details of document.querySelectorAll("details.case")) {
    details.addEventListener("toggle", () => {
      if (details.open) draw(details);
    });
    if (details.open) draw(details);
  }
})();`;
