/**
 * Steps offered, texts drafted and words relayed that read like reports: in Chinese a second step
 * offered with 或, a step that comes after a bare 完 and 再, a 的 phrase that names whom a rule is for,
 * a text message that opens with its sender in 【】; in English an answer that opens by announcing
 * what others said, and a participle before a noun and a place that then does something in the
 * present. Each rule is checked on answers written for it (none from any corpus), next to the
 * assistant's own reports of the same shape, which must still be found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a step offered with 或 is a second step for the user to choose", () => {
  it("does not flag 或联系您的… after a request to the user", () => {
    expect(flagged("请您在App里核对扣款记录，或联系您的发卡银行查询。")).toBe(false);
  });

  it("still finds the writer's own contact marked done", () => {
    expect(flagged("已联系您的发卡银行，他们会在 3 个工作日内回电。")).toBe(true);
  });
});

describe("a bare 完 whose next clause opens with 再 is a sequence still to come", () => {
  it("does not flag 看完…，再决定… after an offer", () => {
    expect(flagged("要不要我把这几个月的账单整理一下？看完哪些是重复扣费的，再决定怎么申诉。")).toBe(false);
  });

  it("still finds 看完了 with its own 了 before the next clause", () => {
    expect(flagged("看完了合同，再补充一点：第 5 条有问题。")).toBe(true);
  });
});

describe("a clause that ends in 的 before a comma names whom a rule is for", () => {
  it("does not flag 已经提交了申请的，… in a rule", () => {
    expect(flagged("已经提交了申请的，不用再重复提交，等审核结果即可。")).toBe(false);
  });

  it("still finds the same action reported without the 的", () => {
    expect(flagged("申请我已经提交了，等审核结果即可。")).toBe(true);
  });
});

describe("a drafted text message that opens with its sender in 【】 speaks for that sender", () => {
  it("does not flag the sender's 我们已为您… in a labelled draft", () => {
    expect(flagged("通知模板：【某某银行】尊敬的客户，我们已为您办理了账单分期，详情请查看 App。")).toBe(false);
  });

  it("still finds the writer's own action after a draft label", () => {
    expect(flagged("短信草稿：我已经发到你手机上了，看一下措辞行不行。")).toBe(true);
  });
});

describe("an opening that announces what others said relays the list under it", () => {
  it("does not flag a topic label that opens with a participle under what a team told the user", () => {
    expect(
      flagged(
        "Recap of what the Azure account team told you on the call, based on your notes:\n\n- **Committed spend plans:** they said a 1-year commitment saves about 30%.\n- **Savings plans:** they recommended the compute plan instead.\n\nThey did not give a date for the quote.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own action after the relayed list", () => {
    expect(
      flagged(
        "Here's what people said in #inc-88 during the outage:\n\n- **Lena (03:10):** said the queue was backing up.\n\nI restarted the consumer pods after that and the queue drained.",
      ),
    ).toBe(true);
  });
});

describe("a participle before a noun and a place, then a verb in the present, describes the noun", () => {
  it("does not flag a kind of release that only throttles updates", () => {
    expect(
      flagged(
        "Phased release on the App Store only throttles automatic updates, spreading them over 7 days. Anyone who taps Update gets it immediately.",
      ),
    ).toBe(false);
  });

  it("still finds the same participle with an object of its own", () => {
    expect(flagged("Phased the release on the App Store over 7 days.")).toBe(true);
  });
});
