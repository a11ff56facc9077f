import { hash } from "node:crypto";
import type { JsonValue } from "../domain/index.js";
import { mayHoldSecretText, REDACTED, redactText, SECRET_KEY } from "./secretPatterns.js";

export const DEFAULT_PAYLOAD_CAP_BYTES = 16 * 1024;
export { REDACTED, redactText } from "./secretPatterns.js";

/**
 * Structural fields of ledger payloads and receipt evidence — ids, hashes, enums, counters: never
 * redacted (a secret pattern must not turn a call id or a finish reason into `[REDACTED]`). They
 * count as structural at the top level and in nested objects not reached through a content key.
 */
const STRUCTURAL_KEYS: ReadonlySet<string> = new Set([
  "callId",
  "toolName",
  "runId",
  "traceId",
  "sessionId",
  "receiptId",
  "step",
  "steps",
  "sequence",
  "finishReason",
  "role",
  "origin",
  "terminalState",
  "reason",
  "verdict",
  "mode",
  "code",
  "inputFingerprint",
  "originalIdHash",
  "outputHash",
  "output_sha256",
  "sha256",
  "status",
  "verificationStatus",
  "toolCallCount",
  "correctionTurns",
]);

/** Keys under which a payload carries free content: structural names inside it are content too. */
const CONTENT_KEYS: ReadonlySet<string> = new Set(["arguments", "output", "text", "finalText", "detail", "summary"]);

/**
 * Whether `redactEverywhere` could change the value: it holds a secret-named key, or a string with
 * a secret hint where the walk would redact it. Structural fields are passed over as the walk
 * passes over them (their values are never redacted), so a row's ids and 64-character hashes are
 * not scanned for hints on every write.
 */
function mayHoldSecret(value: JsonValue, structural: boolean): boolean {
  if (typeof value === "string") return mayHoldSecretText(value);
  if (Array.isArray(value)) {
    for (const item of value) if (mayHoldSecret(item, structural)) return true;
    return false;
  }
  if (value === null || typeof value !== "object") return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const inner = value[key] as JsonValue;
    if (isSecretEntry(key, inner)) return true;
    if (structural && STRUCTURAL_KEYS.has(key)) continue;
    if (mayHoldSecret(inner, structural && !CONTENT_KEYS.has(key))) return true;
  }
  return false;
}

/** A value under a secret-named key is replaced whole, whatever it is. */
const isSecretEntry = (key: string, inner: JsonValue) => SECRET_KEY.test(key) && inner !== null && inner !== "";

/**
 * Redacts a JSON value: values under secret-named keys whole, secrets inside each string in place
 * (every string on its own: a match never runs from one string into the next), structural fields
 * (ids, hashes, enums) never. The value keeps its shape.
 */
export function redact(value: JsonValue): JsonValue {
  return mayHoldSecret(value, true) ? redactEverywhere(value) : value;
}

/** `redact` without the shortcut for values that hold no secret hint (exported for its tests). */
export function redactEverywhere(value: JsonValue): JsonValue {
  const walk = (inner: JsonValue, structural: boolean): JsonValue => {
    if (typeof inner === "string") return redactText(inner);
    if (Array.isArray(inner)) return inner.map((item) => walk(item, structural));
    if (inner !== null && typeof inner === "object") {
      // fromEntries defines own properties, so a parsed `__proto__` key stays data.
      return Object.fromEntries(
        Object.entries(inner).map(([key, nested]) => [
          key,
          isSecretEntry(key, nested)
            ? REDACTED
            : structural && STRUCTURAL_KEYS.has(key)
              ? nested
              : walk(nested, structural && !CONTENT_KEYS.has(key)),
        ]),
      );
    }
    return inner;
  };
  return walk(value, true);
}

export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}

export interface TruncatedPayload {
  readonly truncated: true;
  readonly summary: string;
  readonly sha256: string;
  readonly bytes: number;
}

/**
 * Top-level fields a truncated payload keeps whole, whatever their length: the ids and enums the
 * ledger's triggers and recovery read (`$.callId`, `$.toolName`, `$.inputFingerprint`,
 * `$.terminalState`), a receipt's `reason`, and the event's place in its run (`step`, `status`,
 * `outputHash`, …). Only content (output, text, arguments) is cut: cutting an id would make the
 * ledger refuse the row (a tool result whose call it cannot find) and lose the run's record.
 */
const KEPT_ON_TRUNCATION: ReadonlySet<string> = new Set([...STRUCTURAL_KEYS].filter((key) => key !== "sha256"));

function keptFields(value: JsonValue): Record<string, JsonValue> {
  const kept: Record<string, JsonValue> = {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) return kept;
  for (const [key, inner] of Object.entries(value)) {
    if (KEPT_ON_TRUNCATION.has(key) && (inner === null || typeof inner !== "object")) kept[key] = inner;
  }
  return kept;
}

/**
 * Redacts, then caps. An oversized payload keeps a summary (a prefix of its JSON), the sha256
 * and byte length of the full redacted JSON, a `truncated` flag and its identifier fields, whole.
 */
export function sanitizePayload(value: JsonValue, capBytes = DEFAULT_PAYLOAD_CAP_BYTES): JsonValue {
  const clean = redact(value);
  const json = JSON.stringify(clean);
  return fitsCap(json, capBytes) ? clean : truncatedPayload(clean, json, capBytes);
}

/** `sanitizePayload` as the JSON text a ledger column stores (serialized once). */
export function sanitizedJson(value: JsonValue, capBytes = DEFAULT_PAYLOAD_CAP_BYTES): string {
  const clean = redact(value);
  const json = JSON.stringify(clean);
  return fitsCap(json, capBytes) ? json : JSON.stringify(truncatedPayload(clean, json, capBytes));
}

// UTF-8 takes at most 3 bytes per UTF-16 unit: short JSON needs no byte count.
const fitsCap = (json: string, capBytes: number) =>
  json.length * 3 <= capBytes || Buffer.byteLength(json, "utf8") <= capBytes;

function truncatedPayload(clean: JsonValue, json: string, capBytes: number): JsonValue {
  const bytes = Buffer.byteLength(json, "utf8");
  const summaryChars = Math.max(64, Math.min(1024, Math.floor(capBytes / 4)));
  const truncated: TruncatedPayload = {
    ...keptFields(clean),
    truncated: true,
    summary: json.slice(0, summaryChars),
    sha256: sha256Hex(json),
    bytes,
  };
  return truncated as unknown as JsonValue;
}

/**
 * Redacts free text (a run's failure detail, a visible turn) and caps it at `capBytes` of UTF-8:
 * longer text keeps a prefix (cut between characters) and ends with a marker that gives the byte
 * length and sha256 of the whole redacted text.
 */
export function sanitizeText(text: string, capBytes = DEFAULT_PAYLOAD_CAP_BYTES): string {
  const clean = mayHoldSecretText(text) ? redactText(text) : text;
  if (clean.length * 3 <= capBytes) return clean;
  const bytes = Buffer.byteLength(clean, "utf8");
  if (bytes <= capBytes) return clean;
  const marker = `\n…[truncated: ${bytes} bytes, sha256 ${sha256Hex(clean)}]`;
  const budget = Math.max(0, capBytes - Buffer.byteLength(marker, "utf8"));
  let used = 0;
  let end = 0;
  for (const char of clean) {
    const size = Buffer.byteLength(char, "utf8");
    if (used + size > budget) break;
    used += size;
    end += char.length;
  }
  return `${clean.slice(0, end)}${marker}`;
}
