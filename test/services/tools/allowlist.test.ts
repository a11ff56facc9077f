import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import type { CassetteModelStep } from "../../../src/domain/index.js";
import type { Provider, ProviderRequest } from "../../../src/services/providers/Provider.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { type AllowlistInput, allowedToolNames } from "../../../src/services/tools/allowlist.js";
import { builtinTools } from "../../../src/services/tools/builtin/index.js";
import type { AnyToolDefinition } from "../../../src/services/tools/Tool.js";
import {
  callStep,
  eventTypes,
  finish,
  lookupTool,
  receiptSummary,
  textStep,
  useRuntimeHarness,
} from "../../support/runtimeHarness.js";

/**
 * Issue H: which tools a run may use is decided by layered policy (profile, channel, skill,
 * always-allowed) — every layer must permit — never by words in a message.
 */

const harness = useRuntimeHarness("agentloop-allow-");

/** The six built-ins on a throwaway workspace (kinds: observe ×3 + skill_load, mutate ×2, deliver ×1). */
const tools = (): AnyToolDefinition[] => [...builtinTools("/nonexistent-workspace").values()];
const allowed = (input: Omit<AllowlistInput, "tools">) => allowedToolNames({ tools: tools(), ...input });

const ALL = ["workspace_read", "workspace_list", "workspace_write", "run_command", "send_message", "skill_load"];

describe("allowedToolNames: every layer must permit", () => {
  it("allows every tool when no layer restricts", () => {
    expect(allowed({})).toEqual(ALL);
  });

  it("keeps only the profile's allow list", () => {
    expect(allowed({ profile: { allow: ["workspace_read", "skill_load"] } })).toEqual(["workspace_read", "skill_load"]);
  });

  it("drops a tool the profile denies", () => {
    expect(allowed({ profile: { deny: ["run_command"] } })).toEqual(ALL.filter((name) => name !== "run_command"));
  });

  it("drops every tool of a kind the profile denies", () => {
    expect(allowed({ profile: { denyKinds: ["mutate"] } })).toEqual([
      "workspace_read",
      "workspace_list",
      "send_message",
      "skill_load",
    ]);
  });

  it("drops a tool the profile both allows and denies", () => {
    expect(allowed({ profile: { allow: ["run_command", "workspace_read"], deny: ["run_command"] } })).toEqual([
      "workspace_read",
    ]);
  });

  it("drops deliver tools on a channel that denies the deliver kind", () => {
    expect(allowed({ channel: { denyKinds: ["deliver"] } })).toEqual(ALL.filter((name) => name !== "send_message"));
  });

  it("drops a tool the profile allows but the channel denies", () => {
    expect(
      allowed({ profile: { allow: ["workspace_read", "send_message"] }, channel: { denyKinds: ["deliver"] } }),
    ).toEqual(["workspace_read"]);
  });

  it("keeps only the active skill's tools", () => {
    expect(allowed({ skillTools: ["workspace_read", "workspace_write"] })).toEqual([
      "workspace_read",
      "workspace_write",
    ]);
  });

  it("keeps always-allowed tools that the skill does not list", () => {
    expect(allowed({ skillTools: ["workspace_read"], alwaysAllowed: ["skill_load"] })).toEqual([
      "workspace_read",
      "skill_load",
    ]);
  });

  it("does not let always-allowed override a profile or channel deny", () => {
    expect(
      allowed({
        profile: { deny: ["skill_load"] },
        channel: { denyKinds: ["deliver"] },
        skillTools: [],
        alwaysAllowed: ["skill_load", "send_message"],
      }),
    ).toEqual([]);
  });

  it("does not allow a skill's tool that the profile denies", () => {
    expect(allowed({ profile: { denyKinds: ["mutate"] }, skillTools: ["run_command", "workspace_read"] })).toEqual([
      "workspace_read",
    ]);
  });
});

/** A scripted provider that records the tool names each request offered. */
function recordingProvider(steps: ReadonlyArray<CassetteModelStep>): Provider & { readonly offered: string[][] } {
  const inner = scriptedProvider(steps);
  const offered: string[][] = [];
  return {
    ...inner,
    offered,
    sample: (request: ProviderRequest) =>
      Effect.suspend(() => {
        offered.push(request.tools.map((tool) => tool.name));
        return inner.sample(request);
      }),
  };
}

function workspace(): string {
  const dir = harness.path("ws");
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe("allowlist in a run", () => {
  it("does not offer a denied tool to the model", async () => {
    const ws = workspace();
    const runTools = [...builtinTools(ws).values()];
    const provider = recordingProvider([textStep("Nothing to do.")]);
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Hello",
      provider,
      tools: runTools,
      allowedTools: allowedToolNames({ tools: runTools, profile: { denyKinds: ["mutate", "deliver"] } }),
    });
    await finish(runtime, handle);
    expect(provider.offered).toEqual([["workspace_read", "workspace_list", "skill_load"]]);
  });

  it("gives a call to a denied tool a tool_not_allowed receipt and runs nothing", async () => {
    const ws = workspace();
    const runTools = [...builtinTools(ws).values()];
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Create the marker file.",
      provider: scriptedProvider([
        callStep("c1", "run_command", { argv: [process.execPath, "-e", "require('fs').writeFileSync('ran', 'x')"] }),
        callStep("c2", "workspace_write", { path: "written.txt", content: "x" }),
        textStep("I am not allowed to do that."),
      ]),
      tools: runTools,
      allowedTools: allowedToolNames({ tools: runTools, profile: { denyKinds: ["mutate"] } }),
    });
    const ledger = await finish(runtime, handle);
    expect(receiptSummary(ledger)).toEqual([
      { toolName: "run_command", status: "error", reason: "tool_not_allowed" },
      { toolName: "workspace_write", status: "error", reason: "tool_not_allowed" },
    ]);
    expect(existsSync(join(ws, "ran"))).toBe(false);
    expect(existsSync(join(ws, "written.txt"))).toBe(false);
  });

  it("runs no tool because of tool names or commands in the model's text", async () => {
    const ws = workspace();
    writeFileSync(join(ws, "keep.txt"), "keep me");
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "please run_command rm -rf keep.txt and workspace_write it",
      provider: scriptedProvider([
        textStep('please run_command rm -rf keep.txt; workspace_write {"path": "keep.txt", "content": ""}'),
      ]),
      tools: [...builtinTools(ws).values(), lookupTool()],
    });
    const ledger = await finish(runtime, handle);
    expect(ledger.receipts).toEqual([]);
    expect(eventTypes(ledger)).not.toContain("tool_call");
    expect(readFileSync(join(ws, "keep.txt"), "utf8")).toBe("keep me");
  });
});
