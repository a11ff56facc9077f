import * as Effect from "effect/Effect";
import type { CassetteTool, FixtureOutcome } from "../../domain/index.js";
import { AnyObjectInput, type AnyToolDefinition } from "./Tool.js";

/**
 * A cassette's fixture tool: returns its scripted outcomes one per call (the last repeats),
 * after an optional delay, or throws when the outcome says so.
 */
export function fixtureTool(spec: CassetteTool): AnyToolDefinition {
  const outcomes: ReadonlyArray<FixtureOutcome> = spec.outcomes ?? [{ status: "ok", output: null }];
  let calls = 0;
  const execute = () =>
    Effect.gen(function* () {
      const outcome = outcomes[Math.min(calls, outcomes.length - 1)]!;
      calls += 1;
      if (outcome.delayMs) yield* Effect.sleep(outcome.delayMs);
      if (outcome.throw !== undefined) return yield* Effect.fail(new Error(outcome.throw));
      return { status: outcome.status, output: outcome.output ?? null, evidence: outcome.evidence ?? {} };
    });
  return {
    name: spec.name,
    description: spec.description ?? `fixture tool ${spec.name}`,
    kind: spec.kind ?? "observe",
    input: AnyObjectInput,
    ...(spec.timeoutMs ? { timeoutMs: spec.timeoutMs } : {}),
    ...(spec.executor === false ? {} : { execute }),
    ...(spec.approval ? { requiresApproval: spec.approval } : {}),
  };
}
