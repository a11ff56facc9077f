import { describe, expect, it } from "vitest";
import { createMachine } from "xstate";
import { runPathOf } from "../../../src/host/charts/runPath.js";
import { renderMachineSvg } from "../../../src/host/charts/svg.js";

const path = runPathOf(
  ["active.work.opening", "active.work.sampling", "active.work.verifying", "finalizing", "completed"],
  {
    taken: [
      { from: "active.work", to: "active.work.sampling" },
      { from: "active.work.sampling", to: "active.work.verifying" },
      { from: "active.work", to: "finalizing" },
      { from: "finalizing", to: "completed" },
    ],
    terminal: "completed",
    eventsByState: {
      finalizing: [
        { sequence: 2, type: "assistant_output", summary: "assistant" },
        { sequence: 3, type: "terminal", summary: "terminal completed/x" },
      ],
    },
  },
);

/** The opening tag of the element carrying `attribute`. */
const tagWith = (svg: string, attribute: string) => svg.match(new RegExp(`<g [^>]*${attribute}[^>]*>`))?.[0];

describe("renderMachineSvg", () => {
  it("is one standalone svg element", async () => {
    const svg = await renderMachineSvg("run");
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" id="run-chart" class="agentloop-chart"')).toBe(true);
    expect(svg.trim().endsWith("</svg>")).toBe(true);
    expect(svg).not.toMatch(/href=|<script|<image/);
  });

  it("marks the path's states, edges with their counts, the events per state and the terminal state", async () => {
    const svg = await renderMachineSvg("run", { path });
    expect(tagWith(svg, 'data-state="active.work.sampling"')).toContain('data-visited="true" data-visits="1"');
    expect(tagWith(svg, 'data-state="active.work.recordingCalls"')).not.toContain("data-visited");
    expect(tagWith(svg, 'data-state="completed"')).toMatch(/class="state final terminal".*data-terminal="true"/);
    expect(tagWith(svg, 'data-state="finalizing"')).toContain('data-events="2"');
    expect(tagWith(svg, 'data-edge="active.work->finalizing"')).toContain('data-taken="true" data-count="1"');
    expect(tagWith(svg, 'data-edge="active.work.sampling->active.work.recordingCalls"')).not.toContain("data-taken");
    expect(svg.match(/ data-taken="true" data-count=/g)).toHaveLength(4);
  });

  it("as an overlay, gives every edge its number of runs and a width by share of runs", async () => {
    const other = runPathOf(["active.work.sampling", "active.work.recordingCalls"]);
    const svg = await renderMachineSvg("run", { overlay: [path, other, path] });
    expect(svg).toContain('class="agentloop-chart overlay"');
    const edge = svg.match(
      /<g [^>]*data-edge="finalizing->completed"[^>]*><path d="[^"]*" style="stroke-width:([\d.]+)"/,
    );
    expect(edge?.[0]).toContain('data-runs="2"');
    const thin = svg.match(
      /<g [^>]*data-edge="active.work.sampling->active.work.recordingCalls"[^>]*><path d="[^"]*" style="stroke-width:([\d.]+)"/,
    );
    expect(Number(thin?.[1])).toBeLessThan(Number(edge?.[1]));
    expect(tagWith(svg, 'data-edge="active.work.sampling->active.work.recordingTurn"')).toContain('data-runs="0"');
  });

  it("is byte-identical for the same machine and path", async () => {
    expect(await renderMachineSvg("run", { path })).toBe(await renderMachineSvg("run", { path }));
  });

  it("prefixes element ids so that several charts can share a page", async () => {
    const svg = await renderMachineSvg("run", { idPrefix: "case-3-" });
    expect(svg).toContain('id="case-3-chart"');
    expect(svg).toContain('id="case-3-state-active_work_sampling"');
    expect(svg).toContain('id="case-3-edge-active_work--finalizing"');
    expect(svg).not.toContain('id="run-');
  });

  it("escapes state names and guards that are not XML-safe", async () => {
    const machine = createMachine({
      id: "odd<&>",
      initial: "a&b",
      states: { "a&b": { on: { 'GO"<': { target: "c>d", guard: "x<y" } } }, "c>d": { type: "final" } },
    });
    const svg = await renderMachineSvg(machine);
    expect(svg).toContain('data-state="a&amp;b"');
    expect(svg).toContain("GO&quot;&lt; [x&lt;y]");
    expect(svg).toContain(">c&gt;d</text>");
    expect(svg).toContain('id="odd___-state-a_b"');
  });
});
