import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Stream from "effect/Stream";
import type { LedgerSignalsShape } from "../../persistence/ledgerSignals.js";

/**
 * The runs that got ledger rows, as the ledger announces them (PostgreSQL: the NOTIFY of
 * migration 0013's trigger, from any process). A listener hears a run id per append, and
 * `undefined` when any run may have changed unheard (the LISTEN connection was lost and is back):
 * it then reads what it shows again, by sequence from where it was.
 */
export interface LedgerChanges {
  /** Returns the function that stops listening. */
  readonly subscribe: (listener: (runId: string | undefined) => void) => () => void;
}

/** The changes of a ledger that announces its appends, for as long as `close` is not called; undefined elsewhere (SQLite). */
export function ledgerChanges(
  signals: Pick<LedgerSignalsShape, "ledgerAppended" | "listening">,
): { readonly changes: LedgerChanges; readonly close: () => Promise<void> } | undefined {
  if (!signals.ledgerAppended) return undefined;
  const listeners = new Set<(runId: string | undefined) => void>();
  const tell = (runId: string | undefined) =>
    Effect.sync(() => {
      for (const listener of listeners) listener(runId);
    });
  const announced = Stream.merge(
    Stream.map(signals.ledgerAppended, (appended): string | undefined => appended.runId),
    Stream.map(signals.listening ?? Stream.empty, (): string | undefined => undefined),
  );
  const fiber = Effect.runFork(Stream.runForEach(announced, tell));
  return {
    changes: {
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    close: () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined),
  };
}
