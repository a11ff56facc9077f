/** The runtime-owned correction message; the model cannot edit it. */
export const CORRECTION_MESSAGE = [
  "The requested outcome requires verified execution evidence. No matching tool",
  "result exists for the claimed action. Call an available appropriate tool, or",
  "state clearly that the action was not completed. Do not claim completion without",
  "a result.",
].join("\n");

export function correctionText(missing: ReadonlyArray<string>): string {
  return missing.length === 0 ? CORRECTION_MESSAGE : `${CORRECTION_MESSAGE}\nMissing evidence: ${missing.join("; ")}.`;
}
