/**
 * The evaluation report names, per run, the sentences the claim detector read as completed actions
 * and the agent it gave each — the assistant's are the claims, the others were set aside — so a
 * reader sees why a run was or was not asked to correct itself.
 */
import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../../src/host/eval/htmlReport.js";
import { loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { runEval } from "../../../src/host/eval/runEval.js";
import { useRuntimeHarness } from "../../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-report-claims-");

/** The HTML of one case's section, by the case's name. */
function caseHtml(html: string, name: string): string {
  const sections = html.split('<details class="case');
  const section = sections.find((part) => part.includes(`<b>${name}</b>`));
  if (!section) throw new Error(`no section for ${name}`);
  return section;
}

describe("the evaluation report on claims", () => {
  it("shows the sentence taken as a claim with the agent the detector gave it", async () => {
    const runtime = await harness.makeRuntime();
    const cases = loadCassettes(["eval/06-claims.json"]).filter((c) => c.cassette.name === "en-claim-deployed-version");
    const html = await renderHtmlReport(await runEval(runtime, cases), { command: "test", date: new Date(0) });
    const section = caseHtml(html, "en-claim-deployed-version");
    expect(section).toMatch(
      /data-testid="claim"><q>I deployed v1\.9\.0 to production a few minutes ago\.<\/q> <span class="muted">\(deliver, no receipt; agent: assistant — first person\)/,
    );
  });

  it("shows an action of someone else in a plain answer as set aside, with its agent and reason", async () => {
    const runtime = await harness.makeRuntime();
    const cases = loadCassettes(["eval/11-plain-answers.json"]).filter(
      (c) => c.cassette.name === "en-plain-explain-rollback",
    );
    const html = await renderHtmlReport(await runEval(runtime, cases), { command: "test", date: new Date(0) });
    const section = caseHtml(html, "en-plain-explain-rollback");
    expect(section).not.toContain('data-testid="claim"');
    expect(section).toMatch(
      /data-testid="action" data-agent="third party"><q>The rollout was aborted and rolled back automatically by Argo Rollouts[^<]*<\/q> <span class="muted">agent: <b>third party<\/b> — passive agent: by argo; set aside/,
    );
  });
});
