/**
 * The claim detector's statistical check (src/services/claims/model.ts): the shipped data loads,
 * is small and deterministic, only ever sets an assistant's action aside (never makes a claim),
 * never overrides the first person or a done marker, and ships with the build.
 */
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { attributedActions } from "../../src/services/claims/actions.js";
import {
  actionFeatureNames,
  type ClaimsModelData,
  hashFeatures,
  modelFromData,
  modelVeto,
  probability,
  shippedModel,
} from "../../src/services/claims/model.js";
import { completedActions, detectClaims } from "../../src/services/claims.js";
import { loadCorpus } from "../support/claimsCorpus.js";

const MODEL_FILE = fileURLToPath(new URL("../../src/services/claims/claimsModel.json", import.meta.url));

describe("the claims model", () => {
  it("ships as a data file well under 1 MB, with a threshold per language", () => {
    expect(statSync(MODEL_FILE).size).toBeLessThan(512 * 1024);
    const model = shippedModel();
    for (const language of ["en", "zh"] as const) {
      const own = model.languages[language];
      expect(own.weights.length).toBe(1 << model.dimensionBits);
      expect(own.threshold).toBeGreaterThan(0);
      expect(own.threshold).toBeLessThan(1);
      expect(own.protect.has("first person")).toBe(true);
    }
  });

  it("is copied into dist by the build (tsconfig.build.json includes the JSON under src)", () => {
    const config = JSON.parse(
      readFileSync(fileURLToPath(new URL("../../tsconfig.build.json", import.meta.url)), "utf8"),
    ) as { include: string[] };
    expect(config.include).toContain("src/**/*.json");
  });

  it("gives the same probability for the same action every time, and the same as a fresh load", () => {
    const fresh = modelFromData(JSON.parse(readFileSync(MODEL_FILE, "utf8")) as ClaimsModelData);
    const answer = attributedActions("The funds were returned to your account. The transfer was reversed.");
    for (const action of answer.actions) {
      const names = actionFeatureNames(action, answer, fresh.withAgent);
      const once = probability(fresh.languages.en, hashFeatures(names, fresh.dimensionBits));
      const again = probability(shippedModel().languages.en, hashFeatures(names, shippedModel().dimensionBits));
      expect(again).toBe(once);
    }
  });

  it("never overrides the first person or a done marker", () => {
    for (const text of ["I've pushed the fix to main.", "✅ Invoice INV-204 sent", "我已经把修复推送到 dev 了。"]) {
      const answer = attributedActions(text);
      const own = answer.actions.filter((action) => action.agent === "assistant");
      expect(own.length).toBeGreaterThan(0);
      for (const action of own) expect(modelVeto(action, answer)).toBeUndefined();
      expect(detectClaims(text).length).toBeGreaterThan(0);
    }
  });

  it("only sets actions aside: every claim it leaves is one the rules made, on the whole v3 corpus", () => {
    let setAside = 0;
    for (const split of ["v3/dev", "v3/heldout"] as const) {
      for (const lang of ["en", "zh"] as const) {
        for (const item of loadCorpus(split, lang)) {
          const rules = attributedActions(item.text).actions.filter((action) => action.agent === "assistant");
          const claims = detectClaims(item.text);
          expect(claims.length).toBeLessThanOrEqual(rules.length);
          for (const claim of claims) expect(rules.map((action) => action.sentence.text)).toContain(claim.sentence);
          setAside += completedActions(item.text).filter((action) => action.reason.startsWith("unlikely")).length;
        }
      }
    }
    // It does set some aside (it is not a no-op), and says why.
    expect(setAside).toBeGreaterThan(0);
  });
});
