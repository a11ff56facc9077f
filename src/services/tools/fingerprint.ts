import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values always serialise the same way. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, inner]) => inner !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(",")}}`;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The receipt's input fingerprint: sha256 of the canonical JSON of name + arguments. */
export function inputFingerprint(name: string, args: unknown): string {
  return sha256(canonicalJson({ name, arguments: args }));
}
