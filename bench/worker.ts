/**
 * One benchmark in a process of its own (so its peak RSS is its own): `tsx bench/worker.ts <id>
 * [--quick]`. Prints the result as one JSON line after RESULT_MARKER on stdout; progress on stderr.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchFloor } from "./floor.js";
import { type BenchId, RESULT_MARKER } from "./lib/ids.js";
import { withCpuProfile } from "./lib/profile.js";
import type { BenchOptions, BenchResult } from "./lib/types.js";
import { benchAgentloop } from "./workloads/agentloop.js";
import { benchClaims } from "./workloads/claims.js";
import { benchDispatch, benchDispatchThroughput } from "./workloads/dispatch.js";
import { benchHygiene } from "./workloads/hygiene.js";
import { benchLedgerAppend } from "./workloads/ledgerAppend.js";
import { benchLongAnswer } from "./workloads/longAnswers.js";
import { benchPeer } from "./workloads/peers.js";
import { benchProjection } from "./workloads/projection.js";
import { benchReplicas } from "./workloads/replicas.js";
import { benchScale } from "./workloads/scale.js";
import { benchStatecharts } from "./workloads/statecharts.js";

const BENCHMARKS: Readonly<Record<BenchId, (options: BenchOptions) => Promise<BenchResult>>> = {
  "agentloop.w10.sqlite": (options) => benchAgentloop("sqlite", options),
  "agentloop.w10.memory": (options) => benchAgentloop("memory", options),
  "agentloop.w10.postgres": (options) => benchAgentloop("postgres", options),
  "floor.bare": (options) => benchFloor("none", options),
  "floor.bare+sqlite": (options) => benchFloor("step", options),
  "floor.bare+sqlite.writeahead": (options) => benchFloor("writeahead", options),
  "floor.statecharts": benchStatecharts,
  "ledger.append": benchLedgerAppend,
  "scale.concurrent": benchScale,
  "scale.replicas": benchReplicas,
  "dispatch.latency": benchDispatch,
  "dispatch.throughput": benchDispatchThroughput,
  "projection.100k": benchProjection,
  claims: benchClaims,
  "answer.1mb.en": (options) => benchLongAnswer({ megabytes: 1, lang: "en", lines: false }, options),
  "answer.1mb.en.lines": (options) => benchLongAnswer({ megabytes: 1, lang: "en", lines: true }, options),
  "answer.1mb.zh": (options) => benchLongAnswer({ megabytes: 1, lang: "zh", lines: false }, options),
  "answer.1mb.zh.lines": (options) => benchLongAnswer({ megabytes: 1, lang: "zh", lines: true }, options),
  "answer.5mb.en": (options) => benchLongAnswer({ megabytes: 5, lang: "en", lines: false }, options),
  "answer.5mb.en.lines": (options) => benchLongAnswer({ megabytes: 5, lang: "en", lines: true }, options),
  "answer.5mb.zh": (options) => benchLongAnswer({ megabytes: 5, lang: "zh", lines: false }, options),
  "answer.5mb.zh.lines": (options) => benchLongAnswer({ megabytes: 5, lang: "zh", lines: true }, options),
  "hygiene.redact": benchHygiene,
  "peer.ai-sdk": (options) => benchPeer("peer.ai-sdk", options),
  "peer.langgraph.memory": (options) => benchPeer("peer.langgraph.memory", options),
  "peer.langgraph.sqlite": (options) => benchPeer("peer.langgraph.sqlite", options),
};

async function main(): Promise<void> {
  const [id, ...flags] = process.argv.slice(2);
  const bench = id && Object.hasOwn(BENCHMARKS, id) ? BENCHMARKS[id as BenchId] : undefined;
  if (!id || !bench) {
    process.stderr.write(`usage: tsx bench/worker.ts <${Object.keys(BENCHMARKS).join("|")}> [--quick]\n`);
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), "agentloop-bench-"));
  try {
    const profileDir = process.env.AGENTLOOP_BENCH_PROFILE_DIR;
    let profiled = false;
    const measured = <A>(fn: () => Promise<A>): Promise<A> => {
      // One profile per benchmark: its first measured part (where a benchmark has several).
      if (!profileDir || profiled) return fn();
      profiled = true;
      return withCpuProfile(profileDir, id, fn);
    };
    const result = await bench({ quick: flags.includes("--quick"), dir, measured });
    process.stdout.write(`${RESULT_MARKER}${JSON.stringify(result)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  // Peers may leave handles open (timers, sockets): a finished benchmark ends its process.
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
