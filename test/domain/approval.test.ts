import { describe, expect, it } from "vitest";
import {
  DECIDED_BY_MAX_LENGTH,
  decidedByProblem,
  EDITED_ARGUMENTS_MAX_BYTES,
  EDITED_ARGUMENTS_MAX_DEPTH,
  editedArgumentsProblem,
  HostApprovalDecision,
  nestedDeeperThan,
} from "../../src/domain/index.js";

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
};

describe("the limits of an approval decision", () => {
  it("measures nesting without recursion, at any depth", () => {
    expect(nestedDeeperThan(1, 0)).toBe(false);
    expect(nestedDeeperThan({ a: [1] }, 2)).toBe(false);
    expect(nestedDeeperThan({ a: [1] }, 1)).toBe(true);
    expect(nestedDeeperThan(nested(100_000), EDITED_ARGUMENTS_MAX_DEPTH)).toBe(true);
  });

  it("takes edited arguments up to the depth and size limits, and names the limit it refuses", () => {
    expect(editedArgumentsProblem(nested(EDITED_ARGUMENTS_MAX_DEPTH))).toBeUndefined();
    expect(editedArgumentsProblem(nested(EDITED_ARGUMENTS_MAX_DEPTH + 1))).toBe(
      `nest deeper than ${EDITED_ARGUMENTS_MAX_DEPTH} levels, the limit for edited arguments`,
    );
    const fits = { content: "x".repeat(EDITED_ARGUMENTS_MAX_BYTES - 20) };
    expect(editedArgumentsProblem(fits)).toBeUndefined();
    expect(editedArgumentsProblem({ content: "é".repeat(EDITED_ARGUMENTS_MAX_BYTES / 2) })).toMatch(
      new RegExp(`^are \\d+ bytes of JSON, over the limit of ${EDITED_ARGUMENTS_MAX_BYTES} bytes`),
    );
  });

  it("takes a name for who decided without control characters, up to its length", () => {
    expect(decidedByProblem("cli:alice")).toBeUndefined();
    expect(decidedByProblem("")).toBe("is empty");
    expect(decidedByProblem("x".repeat(DECIDED_BY_MAX_LENGTH + 1))).toBe(
      `is longer than ${DECIDED_BY_MAX_LENGTH} characters`,
    );
    expect(decidedByProblem("a\u007fb")).toBe("holds the control character U+007F");
  });

  it("refuses a decision over a limit in the schema, without overflowing the stack on deep arguments", () => {
    const decision = { decision: "approved", scope: "once", decidedBy: "host", decidedAt: "2024-01-01T00:00:00Z" };
    expect(HostApprovalDecision.safeParse({ ...decision, arguments: { path: "a" } }).success).toBe(true);
    const deep = HostApprovalDecision.safeParse({ ...decision, arguments: nested(5_000) });
    expect(deep.success).toBe(false);
    expect(deep.error?.issues[0]?.message).toContain(`deeper than ${EDITED_ARGUMENTS_MAX_DEPTH} levels`);
    expect(HostApprovalDecision.safeParse({ ...decision, decidedBy: "x\u001b]0;t\u0007" }).success).toBe(false);
  });
});
