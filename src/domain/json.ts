import { z } from "zod";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export const JsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]),
);

export const JsonObject = z.record(z.string(), JsonValue);
export type JsonObject = z.infer<typeof JsonObject>;

/**
 * Whether `value` nests arrays and objects more than `limit` deep (a scalar is depth 0, `[]` is 1).
 * Iterative, so it answers for any depth: JSON.stringify, zod and every recursive walk overflow the
 * stack on values nested a few thousand deep, which `JSON.parse` builds without complaint.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<readonly [unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [inner, depth] = pending.pop()!;
    if (inner === null || typeof inner !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(inner) ? inner : Object.values(inner)) pending.push([child, depth + 1]);
  }
  return false;
}
