/**
 * The peers, W10 each with the same scripted behaviour (`w10Reply`, `lookup`): the Vercel AI SDK
 * (in memory) and LangGraph.js (MemorySaver, SqliteSaver). Their code lives in bench/peers/*.mjs
 * with its own package.json; it is loaded here by path so the root typecheck never sees it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PEER_IDS } from "../lib/ids.js";
import { loopFields, loopPlan, measureSequential } from "../lib/measure.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { lookup, W10_FINAL_TEXT, W10_INPUT, W10_STEPS, w10Reply } from "./w10.js";

export type PeerId = (typeof PEER_IDS)[number];

const PEERS_DIR = fileURLToPath(new URL("../peers/", import.meta.url));

interface PeerW10 {
  readonly runOnce: (label: string) => Promise<void>;
  readonly dispose: () => Promise<void>;
}

/** What the peers' modules are handed: W10 itself, so every implementation scripts the same model. */
export const W10_SPEC = {
  reply: w10Reply,
  lookup,
  input: W10_INPUT,
  finalText: W10_FINAL_TEXT,
  steps: W10_STEPS,
} as const;

const WHAT: Record<PeerId, string> = {
  "peer.ai-sdk": "Vercel AI SDK generateText + stopWhen: stepCountIs(10), MockLanguageModelV3, in memory",
  "peer.langgraph.memory": "LangGraph.js StateGraph + prebuilt ToolNode, MemorySaver",
  "peer.langgraph.sqlite":
    "LangGraph.js StateGraph + prebuilt ToolNode, SqliteSaver on a file (WAL, synchronous NORMAL)",
};

async function loadPeer(id: PeerId, options: BenchOptions): Promise<PeerW10> {
  // A computed specifier: TypeScript does not resolve it (the peers' packages are not the root's).
  const load = (file: string) => import(join(PEERS_DIR, file)) as Promise<Record<string, unknown>>;
  if (id === "peer.ai-sdk") {
    const module = await load("aiSdk.mjs");
    return (module.makeAiSdkW10 as (spec: typeof W10_SPEC) => PeerW10)(W10_SPEC);
  }
  const module = await load("langgraph.mjs");
  const make = module.makeLangGraphW10 as (spec: typeof W10_SPEC, options: object) => PeerW10;
  return id === "peer.langgraph.memory"
    ? make(W10_SPEC, { checkpointer: "memory" })
    : make(W10_SPEC, { checkpointer: "sqlite", filename: join(options.dir, "langgraph.db") });
}

export const peersInstalled = () => existsSync(join(PEERS_DIR, "node_modules"));

export async function benchPeer(id: PeerId, options: BenchOptions): Promise<BenchResult> {
  if (!peersInstalled()) return { id, skipped: "bench/peers is not installed: run `npm run bench:peers`" };
  const peer = await loadPeer(id, options);
  const sqlite = id === "peer.langgraph.sqlite";
  try {
    const measured = await options.measured(() =>
      measureSequential(loopPlan(options.quick, sqlite ? 20 : 50, W10_STEPS), (label) => peer.runOnce(`run-${label}`)),
    );
    return { id, what: WHAT[id], ...loopFields(measured) };
  } finally {
    await peer.dispose();
  }
}
