import { createHash } from "node:crypto";
import type { JsonValue } from "../domain/index.js";

export const DEFAULT_PAYLOAD_CAP_BYTES = 16 * 1024;
export const REDACTED = "[REDACTED]";

/**
 * Patterns for secrets inside free text. Ordered: private-key blocks first so their bodies
 * are not half-matched by the token patterns.
 */
const SECRET_TEXT_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, REDACTED],
  [/\b(sk|rk|pk)-(?:[A-Za-z0-9_-]+-)?[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  [
    /\b(x-api-key|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|token|secret|password|passwd|pwd)(\s*[=:]\s*)("?)[^\s"'&,;]+/gi,
    `$1$2$3${REDACTED}`,
  ],
  [/\b(gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b/g, REDACTED],
];

/** Object keys whose values are secrets whatever they look like. */
const SECRET_KEY =
  /^(authorization|x-api-key|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|token|secret|client[_-]?secret|password|passwd|pwd|private[_-]?key)$/i;

export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_TEXT_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A prefix every secret pattern's match starts with (case-insensitive, so a superset). Strings
 * without one — joined both ways, as `splitSecretStrings` joins them — hold nothing to redact,
 * which is most payloads: the walk that copies and rewrites them is skipped.
 */
const SECRET_HINT =
  /-----BEGIN|\b(?:sk|rk|pk)-|\b(?:bearer|basic)\s|x-api-key|api[_-]?key|access[_-]?token|refresh[_-]?token|token|secret|passw|pwd|\bgh[pousr]_|\bxox[abpr]-|\bakia/i;

function hasSecretKey(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(hasSecretKey);
  if (value === null || typeof value !== "object") return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const inner = value[key] as JsonValue;
    if (isSecretEntry(key, inner) || hasSecretKey(inner)) return true;
  }
  return false;
}

/** A value under a secret-named key is replaced whole, whatever it is. */
const isSecretEntry = (key: string, inner: JsonValue) => SECRET_KEY.test(key) && inner !== null && inner !== "";

/** The strings of a value in walk order, leaving out those under secret-named keys. */
function collectStrings(value: JsonValue, acc: string[] = []): string[] {
  if (typeof value === "string") acc.push(value);
  else if (Array.isArray(value)) for (const inner of value) collectStrings(inner, acc);
  else if (value !== null && typeof value === "object")
    for (const [key, inner] of Object.entries(value)) if (!isSecretEntry(key, inner)) collectStrings(inner, acc);
  return acc;
}

/**
 * Indexes of the strings that together hold a secret no single one of them shows: the strings
 * are joined (with `separator`) and every match that spans two or more of them marks them all.
 */
function splitSecretStrings(strings: ReadonlyArray<string>, separator: string): number[] {
  const spans: Array<readonly [start: number, end: number]> = [];
  let offset = 0;
  for (const text of strings) {
    spans.push([offset, offset + text.length]);
    offset += text.length + separator.length;
  }
  const joined = strings.join(separator);
  const hits: number[] = [];
  for (const [pattern] of SECRET_TEXT_PATTERNS) {
    for (const match of joined.matchAll(pattern)) {
      const from = match.index;
      const to = from + match[0].length;
      // Binary search for the last span starting at or before the match, then walk forward.
      let first = 0;
      for (let high = spans.length - 1; first < high; ) {
        const middle = (first + high + 1) >> 1;
        if ((spans[middle]?.[0] ?? 0) <= from) first = middle;
        else high = middle - 1;
      }
      const spanned: number[] = [];
      for (let index = first; index < spans.length; index++) {
        const [start, end] = spans[index] ?? [to, to];
        if (start >= to) break;
        if (end > start && end > from) spanned.push(index);
      }
      if (spanned.length > 1) hits.push(...spanned);
    }
  }
  return hits;
}

/**
 * Redacts a JSON value: values under secret-named keys whole, secrets inside strings in place.
 * Because a secret can also be split across fields (`{"a":"sk-abc","b":"def…"}`), the strings
 * are checked joined as well, directly and with a `-` between them (so a word at the end of the
 * previous string cannot hide where a token starts); every string that holds part of such a
 * secret is replaced whole, so no fragment of it is written. The value keeps its shape.
 */
export function redact(value: JsonValue): JsonValue {
  const strings = collectStrings(value);
  if (!hasSecretKey(value) && !SECRET_HINT.test(strings.join("")) && !SECRET_HINT.test(strings.join("-"))) {
    return value;
  }
  return redactEverywhere(value, strings);
}

/** `redact` without the shortcut for values that hold no secret hint (exported for its tests). */
export function redactEverywhere(value: JsonValue, strings = collectStrings(value)): JsonValue {
  const split = new Set([...splitSecretStrings(strings, ""), ...splitSecretStrings(strings, "-")]);
  let position = 0;
  const walk = (inner: JsonValue): JsonValue => {
    if (typeof inner === "string") return split.has(position++) ? REDACTED : redactText(inner);
    if (Array.isArray(inner)) return inner.map(walk);
    if (inner !== null && typeof inner === "object") {
      // fromEntries defines own properties, so a parsed `__proto__` key stays data.
      return Object.fromEntries(
        Object.entries(inner).map(([key, nested]) => [key, isSecretEntry(key, nested) ? REDACTED : walk(nested)]),
      );
    }
    return inner;
  };
  return walk(value);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export interface TruncatedPayload {
  readonly truncated: true;
  readonly summary: string;
  readonly sha256: string;
  readonly bytes: number;
}

/**
 * Top-level fields the ledger's triggers and recovery read (`$.callId`, `$.toolName`,
 * `$.inputFingerprint`, `$.terminalState`) and a receipt's `reason`: a truncated payload keeps
 * them, or an oversized tool result or final answer could not be recorded at all.
 */
const LEDGER_KEYS = ["callId", "toolName", "inputFingerprint", "terminalState", "reason"] as const;
const MAX_LEDGER_KEY_CHARS = 256;

function ledgerKeys(value: JsonValue): Record<string, string> {
  const kept: Record<string, string> = {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) return kept;
  for (const key of LEDGER_KEYS) {
    const inner = value[key];
    if (typeof inner === "string" && inner.length <= MAX_LEDGER_KEY_CHARS) kept[key] = inner;
  }
  return kept;
}

/**
 * Redacts, then caps. An oversized payload keeps a summary (a prefix of its JSON), the sha256
 * and byte length of the full redacted JSON, a `truncated` flag and its short ledger keys.
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
    ...ledgerKeys(clean),
    truncated: true,
    summary: json.slice(0, summaryChars),
    sha256: sha256Hex(json),
    bytes,
  };
  return truncated as unknown as JsonValue;
}
