import type { FinishRunInput } from "../domain/index.js";
import { DEFAULT_PAYLOAD_CAP_BYTES } from "../persistence/payloadHygiene.js";

type Terminal = FinishRunInput["terminal"];

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

/** The longest start of `text` within `budget` UTF-8 bytes, never ending inside a surrogate pair. */
function prefixWithin(text: string, budget: number): string {
  let prefix = text.slice(0, budget);
  while (Buffer.byteLength(prefix, "utf8") > budget) prefix = prefix.slice(0, Math.floor(prefix.length * 0.9));
  const last = prefix.charCodeAt(prefix.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? prefix.slice(0, -1) : prefix;
}

/**
 * The terminal row as the ledger can keep it whole. An answer too long for the row's size cap is
 * cut here, with a marker giving its full length (the `assistant_output` row keeps a hash of it), so
 * that the state, reason and verdict after it stay readable fields instead of disappearing into
 * the summary of a truncated payload. Only a bounded start of the text is read: a megabytes-long
 * answer costs no pass over all of it here. A row over the cap even without its text is left to
 * the ledger's own cap.
 */
export function fitTerminal(terminal: Terminal, capBytes = DEFAULT_PAYLOAD_CAP_BYTES): Terminal {
  const text = terminal.finalText;
  if (text.length * 3 <= capBytes / 2) return terminal;
  if (text.length <= capBytes && jsonBytes(terminal) <= capBytes) return terminal;
  const marker = `\n…[cut to fit the ledger row: ${Buffer.byteLength(text, "utf8")} bytes in all]`;
  // JSON escapes may make the text longer than its UTF-8: halve the budget until the row fits.
  let budget = capBytes - jsonBytes({ ...terminal, finalText: marker }) - 64;
  while (budget >= 256) {
    const fitted = { ...terminal, finalText: `${prefixWithin(text, budget)}${marker}` };
    if (jsonBytes(fitted) <= capBytes) return fitted;
    budget = Math.floor(budget / 2);
  }
  return terminal;
}
