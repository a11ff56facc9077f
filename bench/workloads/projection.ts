/**
 * `projection.100k`: build the next turn's context for a session whose ledger holds 100,000 events
 * (issue F's TranscriptProjector + ContextBuilder). Until `src/services/transcriptProjector.ts`
 * exists the benchmark reports itself skipped — but the fixture is generated (and checked) anyway,
 * so only the measured call is missing.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Effect, ManagedRuntime } from "effect";
import type { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { ledgerLayer } from "../../src/persistence/ledger.js";
import { generateSessionFixture, type SessionFixture } from "../fixtures/session.js";
import { collectGarbage, peakRssMiB, stat } from "../lib/measure.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";

export const PROJECTION_EVENTS = 100_000;
export const PROJECTOR_MODULE = fileURLToPath(new URL("../../src/services/transcriptProjector.ts", import.meta.url));
export const SKIPPED_WITHOUT_F = "needs issue F (TranscriptProjector)";

type Ledger = ManagedRuntime.ManagedRuntime<AgentRunStore, never>;

/** The measured call: the next turn's context messages for `sessionId`. */
type BuildNextTurn = (ledger: Ledger, sessionId: string) => Promise<unknown>;

/**
 * Binds issue F's module to the measured call. F's API is not written yet: this recognises an
 * export taking the session id and returning the next turn's context (as an Effect needing the
 * ledger's services, or a Promise). When F lands with another shape, adapt this one function.
 */
function bindProjector(module: Record<string, unknown>): BuildNextTurn | string {
  const names = ["buildNextTurnContext", "projectSessionContext", "projectSession", "projectTranscript"];
  for (const name of names) {
    const candidate = module[name];
    if (typeof candidate !== "function") continue;
    return async (ledger, sessionId) => {
      const value: unknown = candidate(sessionId);
      return Effect.isEffect(value)
        ? ledger.runPromise(value as Effect.Effect<unknown, unknown, AgentRunStore>)
        : await (value as Promise<unknown>);
    };
  }
  return `src/services/transcriptProjector.ts exports none of ${names.join(", ")} (it has: ${Object.keys(module).join(", ") || "nothing"}); bind it in bench/workloads/projection.ts`;
}

const fixtureFields = (fixture: SessionFixture) => ({
  fixture: {
    events: fixture.events,
    runs: fixture.runs,
    receipts: fixture.receipts,
    generateMs: Math.round(fixture.generateMs),
  },
});

export async function benchProjection(options: BenchOptions): Promise<BenchResult> {
  const events = options.quick ? 10_500 : PROJECTION_EVENTS;
  const fixture = await generateSessionFixture(join(options.dir, "session.db"), { events });
  if (!existsSync(PROJECTOR_MODULE)) return { id: "projection.100k", skipped: SKIPPED_WITHOUT_F, ...fixtureFields(fixture) };

  const module = (await import(pathToFileURL(PROJECTOR_MODULE).href)) as Record<string, unknown>;
  const build = bindProjector(module);
  if (typeof build === "string") return { id: "projection.100k", skipped: build, ...fixtureFields(fixture) };

  const ledger = ManagedRuntime.make(ledgerLayer({ filename: fixture.filename })) as Ledger;
  try {
    await build(ledger, fixture.sessionId); // warm-up
    const ms: number[] = [];
    for (let rep = 0; rep < 3; rep++) {
      collectGarbage();
      const started = performance.now();
      await build(ledger, fixture.sessionId);
      ms.push(performance.now() - started);
    }
    const timing = stat(ms);
    return {
      id: "projection.100k",
      what: `next-turn context for one session of ${fixture.events} ledger events (TranscriptProjector + ContextBuilder)`,
      ms: { min: timing.min, median: timing.median },
      peakRssMiB: peakRssMiB(),
      reps: 3,
      warmupRuns: 1,
      ...fixtureFields(fixture),
    };
  } finally {
    await ledger.dispose();
  }
}
