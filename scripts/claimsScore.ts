/**
 * Scores the claim detector on a split of the corpus, with its errors on a development split:
 * `tsx scripts/claimsScore.ts dev zh [--errors]`. Errors of the held-out split are never printed
 * (it is scored, not studied).
 */
import { detectClaims } from "../src/services/claims.js";
import { loadCorpus, type Split, score } from "../test/support/claimsCorpus.js";

const [split = "dev", lang = "en", flag] = process.argv.slice(2) as [Split, "en" | "zh", string | undefined];
const answers = loadCorpus(split, lang);
const result = score(answers);
if (flag === "--errors" && split !== "heldout") {
  for (const error of result.errors) {
    const answer = answers.find((candidate) => candidate.id === error.id)!;
    console.log(`${error.said ? "FP" : "FN"} ${error.id} [${error.note}] ${JSON.stringify(answer.text).slice(0, 300)}`);
    if (error.said) {
      const claims = detectClaims(answer.text);
      console.log(
        `   → ${claims
          .map((claim) => `${claim.verb}: ${claim.sentence}`)
          .join(" | ")
          .slice(0, 200)}`,
      );
    }
  }
}
console.log(
  `${split}.${lang}: n=${result.answers} P=${result.precision.toFixed(3)} R=${result.recall.toFixed(3)} tp=${result.truePositives} fp=${result.falsePositives} fn=${result.falseNegatives}`,
);
