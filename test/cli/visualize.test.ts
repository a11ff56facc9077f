import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyStateMachine, AnyStateNode } from "xstate";
import {
  droppedFromConfig,
  MACHINES,
  machineConfigJson,
  renderMachineExports,
  renderMachinePicture,
  writeVisualizations,
} from "../../src/cli/visualize.js";
import { machineGraph } from "../../src/host/charts/graph.js";
import { layoutGraph } from "../../src/host/charts/layout.js";
import { chartSvg } from "../../src/host/charts/svg.js";

const VISUALIZATIONS = new URL("../../visualizations/", import.meta.url);
const STALE = "is out of date with the machine: run `npm run visualize` and commit visualizations/";

type Kind = "guards" | "actions" | "actors" | "delays";
const KINDS: ReadonlyArray<Kind> = ["guards", "actions", "actors", "delays"];

/**
 * Implementations of setup() that the config cannot reference, by machine (an actor spawned from
 * inside an action never appears in the config). None today.
 */
const USED_OUTSIDE_CONFIG: Readonly<Record<string, Partial<Record<Kind, ReadonlyArray<string>>>>> = {
  // Spawned by `startCalls`, one per call that waits for approval: a spawn, not an invoke.
  toolBatch: { actors: ["approval"] },
  // Spawned by `startTools` for a tool step that needs a batch (a step's one call that may run
  // and needs no approval, the run executes itself): a spawn, not an invoke.
  run: { actors: ["toolBatch"] },
};

function committed(file: string): string | undefined {
  try {
    return readFileSync(new URL(file, VISUALIZATIONS), "utf8");
  } catch {
    return undefined;
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const asList = (value: Json | undefined): Json[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Names of guards, actions, actors and delays that an exported config refers to. */
function referencedNames(config: JsonObject): Record<Kind, Set<string>> {
  const names: Record<Kind, Set<string>> = {
    guards: new Set(),
    actions: new Set(),
    actors: new Set(),
    delays: new Set(),
  };
  const actions = (value: Json | undefined) => {
    for (const action of asList(value)) {
      if (typeof action === "string") names.actions.add(action);
      else if (isObject(action) && typeof action.type === "string") names.actions.add(action.type);
    }
  };
  const transitions = (value: Json | undefined) => {
    for (const transition of asList(value)) {
      if (!isObject(transition)) continue; // a bare string is a target
      const guard = transition.guard;
      if (typeof guard === "string") names.guards.add(guard);
      else if (isObject(guard) && typeof guard.type === "string") names.guards.add(guard.type);
      actions(transition.actions);
    }
  };
  const stateNode = (node: JsonObject) => {
    actions(node.entry);
    actions(node.exit);
    if (isObject(node.on)) for (const value of Object.values(node.on)) transitions(value);
    if (isObject(node.after)) {
      for (const [delay, value] of Object.entries(node.after)) {
        if (Number.isNaN(Number(delay))) names.delays.add(delay);
        transitions(value);
      }
    }
    transitions(node.always);
    transitions(node.onDone);
    for (const invoke of asList(node.invoke)) {
      if (!isObject(invoke)) continue;
      if (typeof invoke.src === "string") names.actors.add(invoke.src);
      transitions(invoke.onDone);
      transitions(invoke.onError);
      transitions(invoke.onSnapshot);
    }
    if (isObject(node.states)) for (const child of Object.values(node.states)) if (isObject(child)) stateNode(child);
  };
  stateNode(config);
  return names;
}

function stateNodes(node: AnyStateNode): AnyStateNode[] {
  return (Object.values(node.states) as AnyStateNode[]).flatMap((child) => [child, ...stateNodes(child)]);
}

const sorted = (names: Iterable<string>) => [...names].sort();

describe.each(MACHINES.map(({ name, machine, source }) => ({ name, machine, source })))(
  "visualizations of $name",
  ({ name, machine, source }) => {
    const exports = renderMachineExports(machine, name, source);

    it.each([
      [`${name}.machine.ts`, exports.ts],
      [`${name}.json`, exports.json],
      [`${name}.mmd`, exports.mmd],
    ])("visualizations/%s is current", (file, expected) => {
      expect(committed(file), `visualizations/${file} ${STALE}`).toBe(expected);
    });

    it(`visualizations/${name}.svg is current`, async () => {
      expect(committed(`${name}.svg`), `visualizations/${name}.svg ${STALE}`).toBe(await renderMachinePicture(machine));
    });

    it("the SVG is byte-identical when the machine is laid out again from scratch", async () => {
      const first = chartSvg(await layoutGraph(machineGraph(machine)));
      const second = chartSvg(await layoutGraph(machineGraph(machine)));
      expect(second).toBe(first);
      expect(first).toBe(await renderMachinePicture(machine));
    });

    it("the SVG draws every state node once, and every transition target", async () => {
      const svg = await renderMachinePicture(machine);
      for (const node of stateNodes(machine.root)) {
        const id = node.path.join(".");
        const drawn = svg.match(new RegExp(`<g [^>]*data-state="${id.replace(/[.]/g, "\\.")}"[^>]*>`, "g")) ?? [];
        expect(drawn, `state "${id}" in ${name}.svg`).toHaveLength(1);
        expect(drawn[0]).toContain(`class="state ${node.type === "final" ? "final" : node.type}`);
      }
      for (const node of stateNodes(machine.root)) {
        for (const transition of [...node.transitions.values()].flat()) {
          for (const target of transition.target ?? []) {
            expect(svg, `${name}.svg edge to ${target.path.join(".")}`).toContain(
              `data-edge="${node.path.join(".")}->${target.path.join(".")}"`,
            );
          }
        }
      }
    });

    it("the .machine.ts export re-creates an equivalent machine", async () => {
      const module = (await import(new URL(`${name}.machine.ts`, VISUALIZATIONS).href)) as Record<string, unknown>;
      const recreated = module[`${name}Machine`] as AnyStateMachine | undefined;
      expect(recreated, `visualizations/${name}.machine.ts exports no ${name}Machine: ${STALE}`).toBeDefined();
      expect(recreated!.id).toBe(machine.id);
      expect(machineConfigJson(recreated!)).toBe(machineConfigJson(machine));
      // Same states, transitions, targets and guard names as the original.
      expect(renderMachineExports(recreated!, name, source).mmd).toBe(exports.mmd);
    });

    it("the JSON names every guard, action, actor and delay of setup(), and only those", () => {
      const referenced = referencedNames(JSON.parse(exports.json) as JsonObject);
      const implementations = machine.implementations as Record<Kind, Record<string, unknown>>;
      for (const kind of KINDS) {
        const implemented = Object.keys(implementations[kind] ?? {});
        const outside = USED_OUTSIDE_CONFIG[name]?.[kind] ?? [];
        for (const exempt of outside) {
          expect(implemented, `stale exemption: ${name} has no ${kind} "${exempt}"`).toContain(exempt);
          expect(referenced[kind].has(exempt), `${name}: "${exempt}" is in the config now, drop the exemption`).toBe(
            false,
          );
        }
        expect(sorted(referenced[kind]), `${kind} referenced in the ${name} config vs. defined in setup()`).toEqual(
          sorted(implemented.filter((key) => !outside.includes(key))),
        );
      }
    });

    it("only context, input, params and output are lost in the export (no inline lambdas)", () => {
      const unexpected = droppedFromConfig(machine).filter(
        (path) => !/^(context|output)$|\.(input|params)$/.test(path),
      );
      expect(unexpected, "name these in setup(), Stately Studio cannot show an inline function").toEqual([]);
    });

    it("the Mermaid diagram is a stateDiagram-v2 with one initial state and every state node", () => {
      const lines = exports.mmd.split("\n");
      expect(lines[0]).toBe("stateDiagram-v2");
      let depth = 0;
      let topLevelInitials = 0;
      for (const line of lines.slice(1)) {
        const text = line.trim();
        if (text === "}") depth -= 1;
        else if (depth === 0 && text.startsWith("[*] -->")) topLevelInitials += 1;
        if (text.endsWith("{")) depth += 1;
        expect(depth).toBeGreaterThanOrEqual(0);
      }
      expect(depth).toBe(0);
      expect(topLevelInitials).toBe(1);
      for (const node of stateNodes(machine.root)) {
        const key = node.key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        const declared = new RegExp(`(^|[\\s"])${key}($|[\\s":{])`, "m");
        expect(exports.mmd, `state "${node.path.join(".")}" is missing from ${name}.mmd`).toMatch(declared);
      }
    });
  },
);

describe("writeVisualizations", () => {
  it("writes the four files of every machine and returns their paths", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-visualize-"));
    try {
      const paths = await writeVisualizations(join(dir, "out"));
      expect(paths).toEqual(
        MACHINES.flatMap(({ name }) => [`${name}.machine.ts`, `${name}.json`, `${name}.mmd`, `${name}.svg`]).map(
          (file) => join(dir, "out", file),
        ),
      );
      for (const { name, machine, source } of MACHINES) {
        expect(readFileSync(join(dir, "out", `${name}.json`), "utf8")).toBe(
          renderMachineExports(machine, name, source).json,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
