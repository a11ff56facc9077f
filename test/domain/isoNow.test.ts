import { afterEach, describe, expect, it, vi } from "vitest";
import { isoNow } from "../../src/domain/isoNow.js";

describe("isoNow", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives the current time as toISOString does, also when the clock moves on or back", () => {
    vi.useFakeTimers();
    for (const at of ["2026-12-07T10:00:00.000Z", "2026-12-07T10:00:00.001Z", "2026-12-07T09:59:59.999Z"]) {
      vi.setSystemTime(new Date(at));
      expect(isoNow()).toBe(at);
      expect(isoNow()).toBe(new Date().toISOString());
    }
  });
});
