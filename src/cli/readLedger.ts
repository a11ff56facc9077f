import * as Effect from "effect/Effect";
import * as Ledger from "../persistence/ledger.js";
import { runEffect } from "./runEffect.js";

/**
 * Runs `effect` against a ledger opened read-only (`access: "read"`): inspecting commands never
 * create, back up, migrate or otherwise write the database, so a missing one or one without the
 * ledger schema is refused rather than prepared. Every failure is one CliFailure line.
 */
export function readLedger<A, E>(db: string, effect: Effect.Effect<A, E, Ledger.LedgerServices>): Promise<A> {
  return runEffect(Effect.provide(effect, Ledger.layer({ filename: db, access: "read" })));
}
