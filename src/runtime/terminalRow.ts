import type { FinishRunInput } from "../domain/index.js";
import { DEFAULT_PAYLOAD_CAP_BYTES, sanitizeText } from "../persistence/payloadHygiene.js";

type Terminal = FinishRunInput["terminal"];

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

/**
 * The terminal row as the ledger can keep it whole. An answer too long for the row's size cap is
 * cut here (the cut text ends with its full length and sha256), so that the state, reason and
 * verdict after it stay readable fields instead of disappearing into the summary of a truncated
 * payload. A row that is over the cap even without its text is left to the ledger's own cap.
 */
export function fitTerminal(terminal: Terminal, capBytes = DEFAULT_PAYLOAD_CAP_BYTES): Terminal {
  if (terminal.finalText.length * 3 <= capBytes / 2 || jsonBytes(terminal) <= capBytes) return terminal;
  // JSON escapes may make the text longer than its UTF-8: halve the budget until the row fits.
  let budget = capBytes - jsonBytes({ ...terminal, finalText: "" }) - 256;
  while (budget >= 256) {
    const fitted = { ...terminal, finalText: sanitizeText(terminal.finalText, budget) };
    if (jsonBytes(fitted) <= capBytes) return fitted;
    budget = Math.floor(budget / 2);
  }
  return terminal;
}
