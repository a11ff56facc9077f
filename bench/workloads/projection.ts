/**
 * `projection.100k`: build the next turn's context for a session whose ledger holds 100,000 events
 * (issue F: SessionRunner.history = TranscriptProjector + ContextBuilder). Behind a check: without
 * `src/services/transcriptProjector.ts` the benchmark reports itself skipped — the fixture is
 * generated (and checked) anyway, so only the measured call is missing.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Effect } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { generateSessionFixture, type SessionFixture } from "../fixtures/session.js";
import { collectGarbage, peakRssMiB, stat } from "../lib/measure.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { w10Provider } from "./w10.js";

export const PROJECTION_EVENTS = 100_000;
const SERVICES = new URL("../../src/services/", import.meta.url);
export const PROJECTOR_MODULE = fileURLToPath(new URL("transcriptProjector.ts", SERVICES));
export const SKIPPED_WITHOUT_F = "needs issue F (TranscriptProjector)";

type SessionRunnerModule = typeof import("../../src/host/sessionRunner.js");
type ProjectorModule = typeof import("../../src/services/transcriptProjector.js");
type ContextBuilderModule = typeof import("../../src/services/contextBuilder.js");
type TokensModule = typeof import("../../src/services/tokens.js");

/** Loads issue F's modules by path, so this file still loads (and reports skipped) without them. */
const load = <M>(file: string) => import(pathToFileURL(fileURLToPath(new URL(file, SERVICES))).href) as Promise<M>;

const fixtureFields = (fixture: SessionFixture) => ({
  fixture: {
    events: fixture.events,
    runs: fixture.runs,
    receipts: fixture.receipts,
    generateMs: Math.round(fixture.generateMs),
  },
});

async function timed(reps: number, fn: () => Promise<unknown>) {
  await fn(); // warm-up
  const ms: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    collectGarbage();
    const started = performance.now();
    await fn();
    ms.push(performance.now() - started);
  }
  const timing = stat(ms);
  return { min: timing.min, median: timing.median };
}

export async function benchProjection(options: BenchOptions): Promise<BenchResult> {
  const events = options.quick ? 2_100 : PROJECTION_EVENTS;
  const fixture = await generateSessionFixture(join(options.dir, "session.db"), { events });
  if (!existsSync(PROJECTOR_MODULE)) {
    return { id: "projection.100k", skipped: SKIPPED_WITHOUT_F, ...fixtureFields(fixture) };
  }
  const { SessionRunner } = await load<SessionRunnerModule>("../host/sessionRunner.ts");
  const { projectRuns } = await load<ProjectorModule>("transcriptProjector.ts");
  const { buildContext } = await load<ContextBuilderModule>("contextBuilder.ts");
  const { contextWindowFor, tokenCounterFor } = await load<TokensModule>("tokens.ts");

  // The fixture's runs were made by W10's provider: the projector replays them as protocol.
  const provider = w10Provider();
  const runtime = await AgentRuntime.make({ database: fixture.filename, provider });
  try {
    const runner = new SessionRunner(runtime);
    const input = "What did item 5 look like?";
    let last: Awaited<ReturnType<InstanceType<typeof SessionRunner>["history"]>> | undefined;
    const ms = await options.measured(() =>
      timed(3, async () => {
        last = await runner.history(fixture.sessionId, provider, input);
      }),
    );

    // The worst case beside it: every run of the session read, projected and handed to the builder.
    const counter = tokenCounterFor(provider.apiFamily, provider.model);
    const budgetTokens = contextWindowFor(provider.model) - 8192;
    let fullMessages = 0;
    const fullMs = await timed(3, async () => {
      const ledgers = await runtime.run(
        Effect.gen(function* () {
          const store = yield* AgentRunStore;
          return yield* store.loadRunLedgers(yield* store.listRuns({ sessionId: fixture.sessionId, endedOnly: true }));
        }),
      );
      const built = buildContext({ history: projectRuns(ledgers), budgetTokens, counter });
      fullMessages = built.messages.length;
    });

    return {
      id: "projection.100k",
      what: `SessionRunner.history: next-turn context (TranscriptProjector + ContextBuilder) for one session of ${fixture.events} ledger events`,
      ms,
      peakRssMiB: peakRssMiB(),
      reps: 3,
      warmupRuns: 1,
      rowsRead: last?.rowsRead,
      contextMessages: last?.context.messages.length,
      contextTokens: last?.context.tokens,
      compactedGroups: last?.context.compactedGroups,
      droppedGroups: last?.context.droppedGroups,
      allRuns: {
        what: "every run of the session: listRuns + loadRunLedgers + projectRuns + buildContext (same budget)",
        ms: fullMs,
        contextMessages: fullMessages,
      },
      ...fixtureFields(fixture),
    };
  } finally {
    await runtime.dispose();
  }
}
