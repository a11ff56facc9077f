import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import {
  type CassetteModelStep,
  CompletionContract,
  type CompletionContractInput,
  type MemoryItem,
  type MemoryItemInput,
  MemoryItem as MemoryItemSchema,
  NONE_CONTRACT,
  SkillManifest,
} from "../../../src/domain/index.js";
import { SessionRunner, type TurnOptions } from "../../../src/host/sessionRunner.js";
import { MemoryItemStore } from "../../../src/persistence/MemoryItemStore.js";
import type { AgentRuntime } from "../../../src/runtime/AgentRuntime.js";
import { applyMemoryConflictRule, parseSkillManifest, skillLoadedKind } from "../../../src/services/contracts.js";
import type { MemoryGateMode } from "../../../src/services/memory/consolidator.js";
import { MemoryService } from "../../../src/services/memory/MemoryService.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { builtinTools } from "../../../src/services/tools/builtin/index.js";
import type { AnyToolDefinition } from "../../../src/services/tools/Tool.js";
import { callStep, fixture, textStep, useRuntimeHarness } from "../../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-memory-");
const SESSION = "mem-session";
const OBSERVE: CompletionContractInput = { evidenceMode: "observe" };
const SKILL_MD =
  "---\nname: weekly-report\ndescription: Where to post the weekly report\n---\nPost it to https://new.example.com/hook\n";

/** A temp workspace holding `files`. */
function workspace(files: Record<string, string>): string {
  const root = harness.path("workspace");
  mkdirSync(root, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const builtin = (root: string, name: "workspace_read" | "skill_load"): AnyToolDefinition =>
  builtinTools(root).get(name)!;

interface Turn extends Partial<Omit<TurnOptions, "provider" | "input">> {
  readonly steps: ReadonlyArray<CassetteModelStep>;
  readonly contract?: CompletionContractInput;
}

/** Runs one session turn to its end and returns the result. */
async function runTurn(runner: SessionRunner, input: string, turn: Turn) {
  const { steps, contract, ...options } = turn;
  const handle = await runner.startTurn({
    sessionId: SESSION,
    ...options,
    ...(contract ? { signals: { ...options.signals, explicit: contract } } : {}),
    input,
    provider: scriptedProvider(steps),
  });
  return handle.settled;
}

const consolidate = (runtime: AgentRuntime, runId: string, gate?: MemoryGateMode) =>
  runtime.run(Effect.flatMap(MemoryService, (service) => service.consolidateRun(runId, SESSION, gate)));
const allItems = (runtime: AgentRuntime) =>
  runtime.run(Effect.flatMap(MemoryItemStore, (items) => items.list({ scope: SESSION })));
const activeMemory = (runtime: AgentRuntime) =>
  runtime.run(Effect.flatMap(MemoryService, (service) => service.activeMemory(SESSION)));

/** Runs a turn and consolidates it; returns the run's result and the scope's items afterwards. */
async function turnAndConsolidate(runtime: AgentRuntime, input: string, turn: Turn, gate?: MemoryGateMode) {
  const result = await runTurn(new SessionRunner(runtime), input, turn);
  const consolidation = await consolidate(runtime, result.runId, gate);
  return { result, consolidation, items: await allItems(runtime) };
}

const byContent = (items: ReadonlyArray<MemoryItem>, text: string) => items.find((item) => item.content.includes(text));

describe("MemoryService.consolidateRun: what becomes memory", () => {
  it("stores a domain the model only named in its answer as a pending candidate", async () => {
    const runtime = await harness.makeRuntime();
    const { items } = await turnAndConsolidate(runtime, "Where is our status page?", {
      steps: [textStep("Our status page is status.example.com.")],
    });
    expect(items.map((item) => [item.content, item.kind, item.provenance, item.verificationStatus])).toEqual([
      ["status.example.com", "domain", "model_inference", "pending"],
    ]);
  });

  it("leaves a pending candidate out of the active memory", async () => {
    const runtime = await harness.makeRuntime();
    await turnAndConsolidate(runtime, "Where is our status page?", {
      steps: [textStep("Our status page is status.example.com.")],
    });
    expect(await activeMemory(runtime)).toEqual([]);
  });

  it("keeps a value the model wrote into a file and read back pending, with the reason, not verified", async () => {
    const runtime = await harness.makeRuntime();
    const root = workspace({});
    const tools = builtinTools(root);
    const { items } = await turnAndConsolidate(runtime, "Where do reports go?", {
      contract: OBSERVE,
      tools: [tools.get("workspace_write")!, tools.get("workspace_read")!],
      steps: [
        callStep("c1", "workspace_write", { path: "NOTES.md", content: "Hook: https://evil.example.com/hook\n" }),
        callStep("c2", "workspace_read", { path: "NOTES.md" }),
        textStep("Reports go to https://evil.example.com/hook"),
      ],
    });
    const rows = items.map((item) => [item.kind, item.verificationStatus, item.evidence.pending_reason]);
    expect(rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ["url", "pending", undefined],
      ["workspace_fact", "pending", "written_by_this_run"],
    ]);
    expect(await activeMemory(runtime)).toEqual([]);
  });

  it("stores what a successful workspace_read returned as a verified receipt fact with source <runId>/<callId>", async () => {
    const runtime = await harness.makeRuntime();
    const root = workspace({ "config.yaml": "debug: true\n" });
    const { result, items } = await turnAndConsolidate(runtime, "Is debug enabled?", {
      contract: OBSERVE,
      tools: [builtin(root, "workspace_read")],
      steps: [callStep("c1", "workspace_read", { path: "config.yaml" }), textStep("Yes, debug is enabled.")],
    });
    expect(byContent(items, "config.yaml: debug: true")).toMatchObject({
      kind: "workspace_fact",
      provenance: "receipt",
      verificationStatus: "verified",
      sourceRef: `${result.runId}/c1`,
    });
  });

  it("stores a successful skill_load as a verified skill fact with source <runId>/<callId>", async () => {
    const runtime = await harness.makeRuntime();
    const root = workspace({ "skills/weekly-report/SKILL.md": SKILL_MD });
    const { result, items } = await turnAndConsolidate(runtime, "How do we post the weekly report?", {
      contract: OBSERVE,
      tools: [builtin(root, "skill_load")],
      steps: [callStep("c1", "skill_load", { name: "weekly-report" }), textStep("The skill explains it.")],
    });
    expect(byContent(items, "skill weekly-report")).toMatchObject({
      kind: "skill",
      provenance: "receipt",
      verificationStatus: "verified",
      sourceRef: `${result.runId}/c1`,
    });
  });

  it("stores no fact from a workspace_read that failed", async () => {
    const runtime = await harness.makeRuntime();
    const root = workspace({});
    const { result, items } = await turnAndConsolidate(runtime, "Is debug enabled?", {
      tools: [builtin(root, "workspace_read")],
      steps: [callStep("c1", "workspace_read", { path: "config.yaml" }), textStep("I could not read it.")],
    });
    expect(result.receipts.map((receipt) => receipt.status)).toEqual(["error"]);
    expect(items).toEqual([]);
  });

  it("stores the user's stated preference as verified user_stated memory", async () => {
    const runtime = await harness.makeRuntime();
    const { items } = await turnAndConsolidate(
      runtime,
      "I prefer answers in British English. What colour is the sky?",
      {
        steps: [textStep("The sky is blue on a clear day.")],
      },
    );
    expect(items.map((item) => [item.content, item.provenance, item.verificationStatus])).toEqual([
      ["I prefer answers in British English.", "user_stated", "verified"],
    ]);
  });

  it("stores the user's decision in Chinese as verified user_decision memory", async () => {
    const runtime = await harness.makeRuntime();
    const { result, items } = await turnAndConsolidate(runtime, "我们决定采用每周五发布。", {
      steps: [textStep("好的。")],
    });
    expect(items.map((item) => [item.content, item.provenance, item.verificationStatus, item.sourceRef])).toEqual([
      ["我们决定采用每周五发布。", "user_decision", "verified", `${result.runId}/seq-1`],
    ]);
  });

  it("stores nothing for an ordinary question and a plain answer", async () => {
    const runtime = await harness.makeRuntime();
    const { items } = await turnAndConsolidate(runtime, "What colour is the sky?", {
      steps: [textStep("Blue on a clear day.")],
    });
    expect(items).toEqual([]);
  });

  it("adds nothing when the same run is consolidated twice", async () => {
    const runtime = await harness.makeRuntime();
    const { result } = await turnAndConsolidate(runtime, "Where are the docs?", {
      steps: [textStep("At https://docs.example.com/api")],
    });
    const again = await consolidate(runtime, result.runId);
    expect(again.created).toEqual([]);
    expect(await allItems(runtime)).toHaveLength(1);
  });

  it("consolidates nothing for a run it does not know", async () => {
    const runtime = await harness.makeRuntime();
    expect(await consolidate(runtime, "no-such-run")).toEqual({ created: [], promoted: [], wouldBlock: 0 });
  });
});

describe("MemoryService.consolidateRun: promoting a pending candidate", () => {
  const firstTurn = { steps: [textStep("The API docs are at https://docs.example.com/api")] };

  it("promotes a pending URL when a later run's successful read shows it", async () => {
    const runtime = await harness.makeRuntime();
    await turnAndConsolidate(runtime, "Where are the API docs?", firstTurn);
    const root = workspace({ "LINKS.md": "API docs: https://docs.example.com/api\n" });
    const { result, consolidation, items } = await turnAndConsolidate(runtime, "Check LINKS.md.", {
      contract: OBSERVE,
      tools: [builtin(root, "workspace_read")],
      steps: [callStep("c9", "workspace_read", { path: "LINKS.md" }), textStep("LINKS.md confirms it.")],
    });
    expect(consolidation.promoted.map((item) => item.content)).toEqual(["https://docs.example.com/api"]);
    expect(items.find((item) => item.kind === "url")).toMatchObject({
      verificationStatus: "verified",
      provenance: "receipt",
      sourceRef: `${result.runId}/c9`,
      evidence: { confirmed_by: "workspace_read" },
    });
  });

  it("keeps a pending URL pending when the later run reads a file that does not contain it", async () => {
    const runtime = await harness.makeRuntime();
    await turnAndConsolidate(runtime, "Where are the API docs?", firstTurn);
    const root = workspace({ "LINKS.md": "Nothing about docs here.\n" });
    const { items } = await turnAndConsolidate(runtime, "Check LINKS.md.", {
      contract: OBSERVE,
      tools: [builtin(root, "workspace_read")],
      steps: [callStep("c1", "workspace_read", { path: "LINKS.md" }), textStep("No docs link there.")],
    });
    expect(items.find((item) => item.kind === "url")?.verificationStatus).toBe("pending");
  });

  it("keeps a pending URL pending when only a failed call's output contains it", async () => {
    const runtime = await harness.makeRuntime();
    await turnAndConsolidate(runtime, "Where are the API docs?", firstTurn);
    const fetchDocs = fixture({
      name: "fetch_docs",
      outcomes: [{ status: "error", output: { error: "https://docs.example.com/api timed out" } }],
    });
    const { result, items } = await turnAndConsolidate(runtime, "Fetch the docs.", {
      tools: [fetchDocs],
      steps: [callStep("c1", "fetch_docs", {}), textStep("The fetch failed.")],
    });
    expect(result.receipts.map((receipt) => receipt.status)).toEqual(["error"]);
    expect(items.find((item) => item.kind === "url")?.verificationStatus).toBe("pending");
  });

  it("stores a URL confirmed by a successful read of the same run as verified directly", async () => {
    const runtime = await harness.makeRuntime();
    const root = workspace({ "LINKS.md": "API docs: https://docs.example.com/api\n" });
    const { result, items } = await turnAndConsolidate(runtime, "Where are the API docs?", {
      contract: OBSERVE,
      tools: [builtin(root, "workspace_read")],
      steps: [
        callStep("c1", "workspace_read", { path: "LINKS.md" }),
        textStep("They are at https://docs.example.com/api"),
      ],
    });
    expect(items.find((item) => item.kind === "url")).toMatchObject({
      content: "https://docs.example.com/api",
      verificationStatus: "verified",
      provenance: "receipt",
      sourceRef: `${result.runId}/c1`,
    });
  });
});

describe("MemoryService.consolidateRun: gate modes", () => {
  const turn = { steps: [textStep("Weekly reports go to https://old.example.com/hook")] };

  it("keeps an unconfirmed URL pending under enforce and reports nothing would block", async () => {
    const runtime = await harness.makeRuntime();
    const { consolidation, items } = await turnAndConsolidate(runtime, "Where do reports go?", turn, "enforce");
    expect(items.map((item) => item.verificationStatus)).toEqual(["pending"]);
    expect(consolidation.wouldBlock).toBe(0);
  });

  it("stores an unconfirmed URL as verified under off, without a gate mark", async () => {
    const runtime = await harness.makeRuntime();
    const { consolidation, items } = await turnAndConsolidate(runtime, "Where do reports go?", turn, "off");
    expect(items.map((item) => [item.verificationStatus, item.evidence.gate])).toEqual([["verified", undefined]]);
    expect(consolidation.wouldBlock).toBe(0);
  });

  it("stores an unconfirmed URL as verified under observe, marked would_block and counted", async () => {
    const runtime = await harness.makeRuntime();
    const { consolidation, items } = await turnAndConsolidate(runtime, "Where do reports go?", turn, "observe");
    expect(items.map((item) => [item.verificationStatus, item.evidence.gate])).toEqual([["verified", "would_block"]]);
    expect(consolidation.wouldBlock).toBe(1);
  });
});

describe("applyMemoryConflictRule", () => {
  const skill = SkillManifest.parse({ name: "weekly-report" });
  const memory = (overrides: Partial<MemoryItemInput>): MemoryItem =>
    MemoryItemSchema.parse({
      id: "mem-1",
      scope: "s",
      content: "https://old.example.com/hook",
      source: "agentloop",
      createdAt: "2024-01-01T00:00:00.000Z",
      verificationStatus: "verified",
      kind: "url",
      ...overrides,
    });
  const address = memory({});

  it("turns a none contract with an active skill and an address memory into observe requiring skill_load", () => {
    const contract = applyMemoryConflictRule(NONE_CONTRACT, { skill, memory: [address] });
    expect([contract.evidenceMode, contract.requiredToolNames]).toEqual(["observe", ["skill_load"]]);
  });

  it("requires a skill_load receipt of that very skill, not of any skill", () => {
    const contract = applyMemoryConflictRule(NONE_CONTRACT, { skill, memory: [address] });
    expect(contract.requiredReceiptKinds).toEqual([skillLoadedKind("weekly-report")]);
    expect(skillLoadedKind("weekly-report")).toBe("skill_loaded:weekly-report");
  });

  it("still requires the skill's own load when the contract already requires some skill_load", () => {
    const contract = CompletionContract.parse({ evidenceMode: "observe", requiredToolNames: ["skill_load"] });
    const ruled = applyMemoryConflictRule(contract, { skill, memory: [address] });
    expect([ruled.requiredToolNames, ruled.requiredReceiptKinds]).toEqual([
      ["skill_load"],
      ["skill_loaded:weekly-report"],
    ]);
    expect(applyMemoryConflictRule(ruled, { skill, memory: [address] })).toEqual(ruled);
  });

  it.each(["domain", "network_fact"] as const)("applies to a %s memory too", (kind) => {
    const contract = applyMemoryConflictRule(NONE_CONTRACT, { skill, memory: [memory({ kind })] });
    expect(contract.requiredToolNames).toEqual(["skill_load"]);
  });

  it("leaves a contract unchanged when no skill is active", () => {
    expect(applyMemoryConflictRule(NONE_CONTRACT, { memory: [address] })).toEqual(NONE_CONTRACT);
  });

  it("leaves a contract unchanged when memory holds no address", () => {
    const preference = memory({ content: "I prefer tabs.", kind: "preference", provenance: "user_stated" });
    expect(applyMemoryConflictRule(NONE_CONTRACT, { skill, memory: [preference] })).toEqual(NONE_CONTRACT);
  });

  it("does not add skill_load twice", () => {
    const contract = CompletionContract.parse({ evidenceMode: "observe", requiredToolNames: ["skill_load"] });
    expect(applyMemoryConflictRule(contract, { skill, memory: [address] }).requiredToolNames).toEqual(["skill_load"]);
  });

  it("keeps a stronger evidence mode and adds skill_load to its required tools", () => {
    const contract = CompletionContract.parse({ evidenceMode: "deliver", requiredToolNames: ["send_message"] });
    const ruled = applyMemoryConflictRule(contract, { skill, memory: [address] });
    expect([ruled.evidenceMode, ruled.requiredToolNames]).toEqual(["deliver", ["send_message", "skill_load"]]);
  });
});

describe("the memory conflict rule in a SessionRunner turn", () => {
  const remembered = MemoryItemSchema.parse({
    id: "mem-old-hook",
    scope: SESSION,
    content: "https://old.example.com/hook",
    source: "agentloop",
    createdAt: "2024-01-01T00:00:00.000Z",
    verificationStatus: "verified",
    kind: "url",
  });

  const OTHER_SKILL_MD =
    "---\nname: daily-digest\ndescription: The daily digest\n---\nPost it to https://digest.example.com\n";

  async function skillTurn(steps: ReadonlyArray<CassetteModelStep>, memory: ReadonlyArray<MemoryItem>) {
    const root = workspace({
      "skills/weekly-report/SKILL.md": SKILL_MD,
      "skills/daily-digest/SKILL.md": OTHER_SKILL_MD,
    });
    const runner = new SessionRunner(await harness.makeRuntime());
    return runTurn(runner, "Post the weekly report.", {
      signals: { skill: parseSkillManifest(SKILL_MD, "weekly-report") },
      tools: [builtin(root, "skill_load")],
      memory,
      steps,
    });
  }

  it("ends unverified after one correction when the run answers from an address memory without loading the skill", async () => {
    const result = await skillTurn(
      [textStep("I will post it to https://old.example.com/hook as remembered."), textStep("Posting it there.")],
      [remembered],
    );
    expect([result.terminalState, result.terminalReason, result.correctionTurns]).toEqual([
      "unverified",
      "receipt_missing",
      1,
    ]);
  });

  it("completes when the run loads the skill before answering", async () => {
    const result = await skillTurn(
      [
        callStep("c1", "skill_load", { name: "weekly-report" }),
        textStep("The skill says https://new.example.com/hook."),
      ],
      [remembered],
    );
    expect([result.terminalState, result.terminalReason]).toEqual(["completed", "receipts_satisfied"]);
  });

  it("is not satisfied by loading another skill: ends unverified, the followed skill's load missing", async () => {
    const result = await skillTurn(
      [
        callStep("c1", "skill_load", { name: "daily-digest" }),
        textStep("I will post it to https://old.example.com/hook as remembered."),
        callStep("c2", "skill_load", { name: "daily-digest" }),
        textStep("Posting it there."),
      ],
      [remembered],
    );
    expect([result.terminalState, result.terminalReason, result.correctionTurns]).toEqual([
      "unverified",
      "receipt_missing",
      1,
    ]);
  });

  it("completes when the run loads another skill and then the followed one", async () => {
    const result = await skillTurn(
      [
        callStep("c1", "skill_load", { name: "daily-digest" }),
        callStep("c2", "skill_load", { name: "weekly-report" }),
        textStep("The skill says https://new.example.com/hook."),
      ],
      [remembered],
    );
    expect([result.terminalState, result.terminalReason]).toEqual(["completed", "receipts_satisfied"]);
  });

  it("completes a plain answer under the same skill when memory holds no address", async () => {
    const result = await skillTurn([textStep("I will post it as the skill says.")], []);
    expect(result.terminalState).toBe("completed");
  });
});
