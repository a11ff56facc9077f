import { describe, expect, it } from "vitest";
import { NONE_CONTRACT } from "../../src/domain/index.js";
import { agentOf, resolveRunSettings } from "../../src/runtime/runSettings.js";
import type { AgentRuntimeConfig } from "../../src/runtime/runtimeConfig.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import { BASE_PROMPT, type SystemPrompt } from "../../src/services/workspace/prompt.js";

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
    expect(settings.history).toEqual([{ role: "system", content: BASE_PROMPT }]);
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

describe("the system prompt", () => {
  const systemOf = (options: { agent?: string; system?: SystemPrompt }) =>
    resolveRunSettings(config, { sessionId: "s", input: "hi", ...options }).history.filter(
      (message) => message.role === "system",
    );

  it("a run without a system prompt of its own or its agent's sends the base prompt", () => {
    expect(systemOf({})).toEqual([{ role: "system", content: BASE_PROMPT }]);
  });

  it("{ append } adds a section after the base prompt", () => {
    expect(systemOf({ system: { append: "Be brief." } })).toEqual([
      { role: "system", content: `${BASE_PROMPT}\n\nBe brief.` },
    ]);
  });

  it("a function rewrites the base prompt", () => {
    expect(systemOf({ system: (base) => `Intro.\n${base}` })).toEqual([
      { role: "system", content: `Intro.\n${BASE_PROMPT}` },
    ]);
  });

  it("a string replaces the base prompt and false sends none", () => {
    expect(systemOf({ system: "Only this." })).toEqual([{ role: "system", content: "Only this." }]);
    expect(systemOf({ system: false })).toEqual([]);
  });

  it("a run's { append } adds to its agent's prompt", () => {
    expect(systemOf({ agent: "support", system: { append: "The customer is on the phone." } })).toEqual([
      {
        role: "system",
        content: "You answer support questions from the order system.\n\nThe customer is on the phone.",
      },
    ]);
  });
});
