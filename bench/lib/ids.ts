/** Benchmark ids, in the order they run and print. */
export const CORE_IDS = [
  "agentloop.w10.sqlite",
  "agentloop.w10.memory",
  "agentloop.w10.postgres",
  "floor.bare",
  "floor.bare+sqlite",
  "floor.bare+sqlite.writeahead",
  "floor.statecharts",
  "ledger.append",
  "scale.concurrent",
  "scale.replicas",
  "dispatch.latency",
  "dispatch.throughput",
  "projection.100k",
  "claims",
  "answer.1mb.en",
  "answer.1mb.en.lines",
  "answer.1mb.zh",
  "answer.1mb.zh.lines",
  "answer.5mb.en",
  "answer.5mb.en.lines",
  "answer.5mb.zh",
  "answer.5mb.zh.lines",
  "hygiene.redact",
] as const;

export const PEER_IDS = ["peer.ai-sdk", "peer.langgraph.memory", "peer.langgraph.sqlite"] as const;

export type BenchId = (typeof CORE_IDS)[number] | (typeof PEER_IDS)[number];

export const ALL_IDS: ReadonlyArray<BenchId> = [...CORE_IDS, ...PEER_IDS];

/** The line a worker prints its result on (stdout), followed by the result's JSON. */
export const RESULT_MARKER = "@@bench-result ";
