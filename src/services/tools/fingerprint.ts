import { hash } from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values always serialise the same way. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  // Built in one pass over the sorted keys: every call of a step (input fingerprint, output hash)
  // passes here, and entry pairs, a filtered copy and a mapped copy per object cost more than the text.
  // `sort()` orders by UTF-16 code units, as `<` does; keys are unique, so the order is total.
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let text = "{";
  for (const key of keys) {
    const inner = record[key];
    if (inner === undefined) continue;
    text += `${text.length > 1 ? "," : ""}${JSON.stringify(key)}:${canonicalJson(inner)}`;
  }
  return `${text}}`;
}

/**
 * Hex sha256 of the text's UTF-8. One call, no Hash object: a step hashes its input and its output,
 * and a Hash object (a stream with a native handle) costs several times the digest of a short text.
 */
export function sha256(text: string): string {
  return hash("sha256", text, "hex");
}

/** The receipt's input fingerprint: sha256 of the canonical JSON of name + arguments. */
export function inputFingerprint(name: string, args: unknown): string {
  return sha256(canonicalJson({ name, arguments: args }));
}
