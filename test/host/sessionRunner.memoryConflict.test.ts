import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryItem } from "../../src/domain/index.js";
import { SessionRunner } from "../../src/host/sessionRunner.js";
import { parseSkillManifest } from "../../src/services/contracts.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { skillLoadTool } from "../../src/services/workspace/skills.js";
import { callStep, finish, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-memory-conflict-");

const skillMd = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}\n---\n${body}\n`;
const REPORT = skillMd("weekly-report", "Post it to https://new.example.com/hook");

/** A workspace with the followed skill and another one. */
function workspaceWithSkills() {
  const workspace = harness.path("workspace");
  for (const [name, markdown] of [
    ["weekly-report", REPORT],
    ["other-skill", skillMd("other-skill", "Something else.")],
  ] as const) {
    mkdirSync(join(workspace, "skills", name), { recursive: true });
    writeFileSync(join(workspace, "skills", name, "SKILL.md"), markdown);
  }
  return workspace;
}

const address = MemoryItem.parse({
  id: "mem-1",
  scope: "s",
  content: "https://old.example.com/hook",
  source: "agentloop",
  createdAt: "2024-01-01T00:00:00.000Z",
  verificationStatus: "verified",
  kind: "url",
});

/** A turn with no tools of its own: the runtime's configured built-in skill_load. */
async function turnLoading(name: string) {
  const workspace = workspaceWithSkills();
  const runtime = await harness.makeRuntime({ tools: [skillLoadTool(workspace)] });
  const provider = scriptedProvider([
    callStep("c1", "skill_load", { name }),
    textStep("The skill names https://new.example.com/hook as the address."),
    textStep("The skill names https://new.example.com/hook as the address."),
  ]);
  const handle = await new SessionRunner(runtime).startTurn({
    sessionId: "conflict",
    input: "Post the weekly report.",
    provider,
    memory: [address],
    signals: { skill: parseSkillManifest(REPORT, "weekly-report") },
  });
  return finish(runtime, handle);
}

describe("the memory conflict rule on a turn that uses the runtime's tools", () => {
  it("ends unverified when the turn loads another skill than the one it follows", async () => {
    const { result } = await turnLoading("other-skill");
    expect(result).toMatchObject({ terminalState: "unverified", terminalReason: "receipt_missing" });
  });

  it("completes when the turn loads the skill it follows", async () => {
    const { result, ...ledger } = await turnLoading("weekly-report");
    expect(result.terminalState).toBe("completed");
    expect(ledger.receipts[0]?.evidence).toMatchObject({ "skill_loaded:weekly-report": true });
  });
});
