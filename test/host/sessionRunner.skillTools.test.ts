import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionRunner, turnAllowedTools } from "../../src/host/sessionRunner.js";
import { parseSkillManifest } from "../../src/services/contracts.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { builtinTools } from "../../src/services/tools/builtin/index.js";
import {
  callStep,
  finish,
  ledgerViolations,
  receiptSummary,
  textStep,
  useRuntimeHarness,
} from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-skill-tools-");

const SKILL = `---
name: read-only-notes
description: Reads the notes, never changes them
tools: [workspace_read, skill_load]
---
# Notes
Read notes.md and answer from it.
`;

/** A temp workspace with notes.md and the read-only skill; returns its path and the parsed manifest. */
function workspaceWithSkill() {
  const workspace = harness.path("workspace");
  mkdirSync(join(workspace, "skills", "read-only-notes"), { recursive: true });
  writeFileSync(join(workspace, "notes.md"), "original\n");
  writeFileSync(join(workspace, "skills", "read-only-notes", "SKILL.md"), SKILL);
  return { workspace, skill: parseSkillManifest(SKILL, "read-only-notes") };
}

describe("a skill's manifest tools list while the skill is followed", () => {
  it("refuses a tool outside the list with a tool_not_allowed receipt, leaves the file unchanged, and the run goes on", async () => {
    const runtime = await harness.makeRuntime();
    const { workspace, skill } = workspaceWithSkill();
    const provider = scriptedProvider([
      callStep("c1", "workspace_write", { path: "notes.md", content: "overwritten\n" }),
      callStep("c2", "workspace_read", { path: "notes.md" }),
      textStep("The notes say: original"),
    ]);
    const handle = await new SessionRunner(runtime).startTurn({
      sessionId: "skill-tools",
      input: "What do the notes say?",
      provider,
      tools: [...builtinTools(workspace).values()],
      signals: { skill },
    });
    const { result, ...ledger } = await finish(runtime, handle);
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("original\n");
    expect(receiptSummary(ledger)).toEqual([
      { toolName: "workspace_write", status: "error", reason: "tool_not_allowed" },
      { toolName: "workspace_read", status: "ok" },
    ]);
    expect(result.terminalState).toBe("completed");
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it("offers the model only the skill's tools and skill_load", async () => {
    const { workspace, skill } = workspaceWithSkill();
    const tools = [...builtinTools(workspace).values()];
    expect(turnAllowedTools({ tools, signals: { skill } })).toEqual(["workspace_read", "skill_load"]);
    // skill_load stays allowed even when the list leaves it out; the caller's list still narrows.
    const narrow = { ...skill, tools: ["workspace_list"] };
    expect(turnAllowedTools({ tools, signals: { skill: narrow } })).toEqual(["workspace_list", "skill_load"]);
    expect(turnAllowedTools({ tools, allowedTools: ["workspace_list"], signals: { skill: narrow } })).toEqual([
      "workspace_list",
    ]);
    // Without the run's tools (the runtime's own), the names alone.
    expect(turnAllowedTools({ signals: { skill } })).toEqual(["workspace_read", "skill_load"]);
    // No skill, or a skill without a list: the caller's choice as it is.
    expect(turnAllowedTools({ tools, allowedTools: ["workspace_write"] })).toEqual(["workspace_write"]);
    expect(turnAllowedTools({ tools, signals: { skill: { ...skill, tools: undefined } } })).toBeUndefined();
  });
});
