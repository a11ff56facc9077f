/**
 * Refusal reasons the ledger property suite (fuzz/ledgerProperties.ts) found wrong: each names
 * the caller's mistake, never a storage failure. (A failed BEGIN/COMMIT reaching the caller as a
 * defect is covered by that suite's injected faults, whose smoke size runs in test/fuzz.)
 */
import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { BACKENDS, ledgerOn, noticePostgresSkipped } from "../support/backends.js";
import { closure, newRun, receipt, toolCall, toolResult, userInput, useTempDir } from "../support/tempDir.js";

const tmp = useTempDir();
noticePostgresSkipped();
const reasonOf = <A, R>(effect: Effect.Effect<A, { readonly reason: string }, R>) =>
  Effect.map(Effect.either(effect), (result) => (result._tag === "Left" ? result.left.reason : "accepted"));

describe.each(BACKENDS)("the store's refusals on %s", (backend) => {
  const ledger = () => ledgerOn(backend, () => tmp.path("ledger.db"));

  it.effect("refuses a write to an unknown run as unknown_run whatever the rows look like", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      expect(yield* reasonOf(store.appendEvents("nope", [userInput(2)]))).toBe("unknown_run");
      expect(yield* reasonOf(store.appendEvents("nope", [toolResult(1, "c1")]))).toBe("unknown_run");
      expect(yield* reasonOf(store.finishRun("nope", closure(2)))).toBe("unknown_run");
      expect(yield* reasonOf(store.recordReceipt(receipt("nope", "c1")))).toBe("unknown_run");
    }).pipe(ledger()),
  );

  it.effect("refuses a sequence below 1 as invalid_payload, not as a storage failure", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      expect(yield* reasonOf(store.appendEvents("r1", [userInput(0)]))).toBe("invalid_payload");
    }).pipe(ledger()),
  );

  it.effect("refuses another run's receipt in appendEvents and finishRun, writing nothing", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"), [userInput(1), toolCall(2, "c1")]);
      yield* store.createRun(newRun("r2"), [userInput(1), toolCall(2, "c1")]);
      expect(yield* reasonOf(store.appendEvents("r1", [toolResult(3, "c1")], [receipt("r2", "c1")]))).toBe(
        "invalid_payload",
      );
      expect(yield* reasonOf(store.finishRun("r1", { ...closure(3), receipts: [receipt("r2", "c1")] }))).toBe(
        "invalid_payload",
      );
      expect(yield* store.listRunEvents("r1")).toHaveLength(2);
      expect(yield* store.listReceipts("r2")).toEqual([]);
    }).pipe(ledger()),
  );
});
