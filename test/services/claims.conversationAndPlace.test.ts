/**
 * Chinese shapes studied in the round on v31: what the user described or said in the conversation
 * (看了你描述的需求) is read without any tool, as what the user pasted is; a finished text that the
 * next clause places right above or below (纪要整理好了，就在上面) is this reply. Each rule is checked
 * on answers written for it (none from any corpus), next to the assistant's own report of the same
 * shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("reading what the user described or said", () => {
  it("does not flag a plan built on the user's description", () => {
    expect(
      flagged(
        "看了你描述的需求，我建议把报名流程拆成三步，目前只是思路，页面还没改：\n\n1. 填写基本信息；\n2. 上传证件照；\n3. 确认缴费。",
      ),
    ).toBe(false);
  });

  it("does not flag an answer to what the user said", () => {
    expect(flagged("我看了一下您说的情况，这种异响多半是风扇积灰，建议先清理一下再观察。")).toBe(false);
  });

  it("still flags a step the writer took after reading the description", () => {
    expect(flagged("看了你描述的报错，已经登上服务器把 nginx 重启了，现在页面能打开。")).toBe(true);
  });

  it("still flags reading the task's own files", () => {
    expect(flagged("我看了一下仓库里的 `deploy.yaml`，副本数写的是 2。")).toBe(true);
  });
});

describe("a finished text placed right above or below", () => {
  it("does not flag notes the next clause says are above", () => {
    expect(flagged("周会纪要整理好了，就在上面，你看看有没有漏的。")).toBe(false);
  });

  it("does not flag a draft the next clause says is below", () => {
    expect(flagged("通知写好了就在下面。")).toBe(false);
  });

  it("still flags notes that were sent on", () => {
    expect(flagged("周会纪要整理好了，已经发到项目群里。")).toBe(true);
  });
});
