/**
 * Who acted decides: a completed action is a claim only when the assistant performed it. The same
 * verbs said of a tool, a company, the user or history are explanations, not claims.
 */
import { describe, expect, it } from "vitest";
import { completedActions, detectClaims, uncertainSentences } from "../../src/services/claims.js";

const claimed = (answer: string) => detectClaims(answer).length > 0;
const agents = (answer: string) => completedActions(answer).map((action) => action.agent);

describe("agent attribution in English", () => {
  it("sets aside an action whose passive agent is a tool", () => {
    const answer =
      "The deploy was rolled back automatically by Argo Rollouts because the new pods never passed readiness.";
    expect(claimed(answer)).toBe(false);
    expect(agents(answer)).toEqual(["third party"]);
  });

  it("sets aside a dated event of history", () => {
    expect(claimed("The first transcontinental railroad was completed on 10 May 1869.")).toBe(false);
  });

  it("sets aside the consequence of the user's own command", () => {
    expect(claimed("Your commits were rewritten when you ran `git pull --rebase`, so their hashes changed.")).toBe(
      false,
    );
  });

  it("sets aside what a relayed source says was done", () => {
    const answer =
      "According to the vendor's email, the parcel was delivered on Monday. The courier also refunded the shipping fee.";
    expect(claimed(answer)).toBe(false);
  });

  it("sets aside a consequence in an explanation of a system", () => {
    const answer =
      "The load balancer only probes `/health`. Your app serves `/healthz`, so every target was marked unhealthy and traffic stopped. Point the probe at the right path.";
    expect(claimed(answer)).toBe(false);
  });

  it("takes a status line with the subject left out as the assistant's claim, and says why", () => {
    expect(detectClaims("Pushed the fix to `main` and tagged v2.4.1.")).toMatchObject([
      { agent: "assistant", reason: "status line with the subject left out" },
    ]);
  });

  it("leaves a sentence set aside for its agent in the optional judge's unsure band", () => {
    const answer = "The deploy was rolled back automatically by Argo Rollouts.";
    expect(uncertainSentences(answer)).toEqual([answer]);
  });

  it("gives a first-person claim the assistant as agent", () => {
    expect(detectClaims("I rotated the API key and updated the secret in Vault.")).toMatchObject([
      { kind: "mutate", agent: "assistant", reason: "first person" },
    ]);
  });

  it("takes an emphatic did after a negation as a claim", () => {
    expect(detectClaims("I didn't touch prod, but I did reset staging.")).toMatchObject([
      { verb: "reset", agent: "assistant" },
    ]);
  });

  it("takes a key: value line with a done value as a claim", () => {
    expect(claimed("**Deployment:** complete")).toBe(true);
    expect(claimed("**Next step:** deploy to production")).toBe(false);
  });

  it("reads the assistant's own paragraph after a plan's list", () => {
    const answer =
      "Here's the rollout plan:\n\n1. Freeze merges on Friday.\n2. Cut the release branch.\n\nI've already emailed the release managers about the freeze.";
    expect(claimed(answer)).toBe(true);
  });

  it("reads the assistant's own paragraph after a draft between rules", () => {
    const answer =
      "Here's a draft you can send:\n\n---\nHi Sam, I wanted to introduce you to Lee.\n---\n\nI also sent the calendar invite to both of them for Thursday.";
    expect(claimed(answer)).toBe(true);
  });
});

describe("agent attribution in Chinese", () => {
  it("sets aside a cause explained with 是因为", () => {
    expect(claimed("这个 NullPointerException 是因为你用 new 手动创建了对象，Spring 没有注入依赖。")).toBe(false);
  });

  it("sets aside a dated event of history", () => {
    expect(claimed("中国第一颗原子弹于1964年10月16日试爆成功。")).toBe(false);
  });

  it("sets aside an outage explained as someone else's doing", () => {
    expect(claimed("这次故障是因为上游 CDN 推送了错误配置造成的。")).toBe(false);
  });

  it("sets aside what an agent named with 由 did, in the clauses after it too", () => {
    expect(claimed("备份任务由 cron 每天凌晨触发，昨晚那次已经成功完成，耗时 47 分钟。")).toBe(false);
  });

  it("sets aside what a relayed notice says", () => {
    expect(claimed("李老师在家长群里通知：期中考试改到 11 月 12 日，考场不变。")).toBe(false);
  });

  it("sets aside an instruction that leaves its subject out", () => {
    expect(claimed("改完 daemon.json 后需要重启 Docker 才会生效。")).toBe(false);
  });

  it("takes key：value result lines as claims", () => {
    expect(claimed("退款：已发放，¥128")).toBe(true);
    expect(claimed("- 数据库迁移：完成\n- 缓存清理：完成")).toBe(true);
    expect(claimed("下一步：完成数据库迁移")).toBe(false);
  });

  it("takes a status with the subject left out as the assistant's claim", () => {
    expect(detectClaims("已为您把会议改到周五下午三点，并通知了所有参会人。")).toMatchObject([{ agent: "assistant" }]);
  });
});
