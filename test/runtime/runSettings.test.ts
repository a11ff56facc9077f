import { describe, expect, it } from "vitest";
import { NONE_CONTRACT } from "../../src/domain/index.js";
import { agentOf, resolveRunSettings } from "../../src/runtime/runSettings.js";
import type { AgentRuntimeConfig } from "../../src/runtime/runtimeConfig.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";

const runtimeProvider = scriptedProvider([{ text: "runtime" }]);
const agentProvider = scriptedProvider([{ text: "agent" }]);
const lookup = fixtureTool({ name: "lookup", kind: "observe", outcomes: [{ status: "ok", output: "found" }] });
const send = fixtureTool({ name: "send", kind: "deliver", outcomes: [{ status: "ok", output: "sent" }] });

const config: AgentRuntimeConfig = {
  database: ":memory:",
  provider: runtimeProvider,
  tools: [send],
  maxSteps: 9,
  agents: {
    support: {
      provider: agentProvider,
      tools: [lookup],
      contract: { evidenceMode: "observe", requiredToolNames: ["lookup"] },
      system: "You answer support questions from the order system.",
      maxSteps: 5,
    },
  },
};

describe("named agents", () => {
  it("a run of a named agent takes the agent's provider, tools, contract and step limit", () => {
    const settings = resolveRunSettings(config, { agent: "support", sessionId: "s", input: "Where is my order?" });
    expect(settings.provider).toBe(agentProvider);
    expect([...settings.tools.keys()]).toEqual(["lookup"]);
    expect(settings.contract.evidenceMode).toBe("observe");
    expect(settings.contract.requiredToolNames).toEqual(["lookup"]);
    expect(settings.maxSteps).toBe(5);
    expect(settings.agentName).toBe("support");
  });

  it("the agent's system prompt comes before the run's own history", () => {
    const settings = resolveRunSettings(config, {
      agent: "support",
      sessionId: "s",
      input: "And now?",
      history: [{ role: "user", content: "Earlier question" }],
    });
    expect(settings.history).toEqual([
      { role: "system", content: "You answer support questions from the order system." },
      { role: "user", content: "Earlier question" },
    ]);
  });

  it("a run's own options win over its agent's", () => {
    const settings = resolveRunSettings(config, {
      agent: "support",
      sessionId: "s",
      input: "x",
      tools: [send],
      maxSteps: 2,
      contract: { evidenceMode: "none" },
    });
    expect([...settings.tools.keys()]).toEqual(["send"]);
    expect(settings.maxSteps).toBe(2);
    expect(settings.contract.evidenceMode).toBe("none");
  });

  it("a run without an agent keeps the runtime's defaults and records no agent", () => {
    const settings = resolveRunSettings(config, { sessionId: "s", input: "x" });
    expect(settings.provider).toBe(runtimeProvider);
    expect([...settings.tools.keys()]).toEqual(["send"]);
    expect(settings.contract).toEqual(NONE_CONTRACT);
    expect(settings.history).toEqual([]);
    expect(settings.agentName).toBeNull();
  });

  it("an agent name the runtime does not know is refused with the names it knows", () => {
    expect(() => agentOf(config, "billing")).toThrow('no agent named "billing" on this runtime (known: support)');
    expect(() => agentOf({ database: ":memory:" }, "billing")).toThrow("it has no agents");
  });

  it("a name inherited from Object.prototype is not an agent", () => {
    expect(() => agentOf(config, "toString")).toThrow('no agent named "toString"');
  });
});
