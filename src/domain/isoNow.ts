/**
 * The current time as an ISO 8601 string, as `new Date().toISOString()` gives it. A run asks for
 * it several times a step, mostly within the same millisecond: the string of the last millisecond
 * asked for is kept and handed out again.
 */
let lastMs = Number.NaN;
let lastIso = "";

export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
