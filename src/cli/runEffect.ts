import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { CliFailure, firstLine } from "./output.js";

/**
 * An Exit as a command's result: its value, or its failure (or defect) as one CliFailure line,
 * exit code 1 — the way every command reports what went wrong under it.
 */
export function valueOrFailure<A, E>(exit: Exit.Exit<A, E>): A {
  if (Exit.isSuccess(exit)) return exit.value;
  throw new CliFailure(firstLine(Cause.squash(exit.cause)));
}

/** Runs a command's effect (everything it needs provided): its value, or one CliFailure line. */
export async function runEffect<A, E>(effect: Effect.Effect<A, E>): Promise<A> {
  return valueOrFailure(await Effect.runPromiseExit(effect));
}
