/**
 * Who acted, in Chinese shapes studied in the round on v27: a named party replying or sending a
 * notice, whose words the sentence relays; someone's opinion given after 的意见是：; a change dated by
 * the release it holds from (6.8.1 起已修复); a state the system no longer lets anyone change; headings
 * that name the reader's cases in different words, one not yet so and another already so; a thing the
 * user is asked to send over (把…发过来). Each
 * rule is checked on answers written for it (none from any corpus), next to the assistant's own report
 * of the same shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a named party's reply or notice, relayed", () => {
  it("does not flag what a party replied, opened by a colon", () => {
    expect(flagged("报关行刚回复：柜子在天津港查验时被抽中，放行要再等两天，提货时间顺延到周四。")).toBe(false);
  });

  it("does not flag what a party replied, reported with 说", () => {
    expect(
      flagged(
        "报关行刚回复说，柜子已经在 3 月 2 日从天津港放行了，比预期晚了一天；提货单要等船公司明天签发，到时候他们直接寄给你。",
      ),
    ).toBe(false);
  });

  it("does not flag the line that introduces a notice a party sent", () => {
    expect(
      flagged(
        "物业服务中心今天上午发了通知，要点如下：\n\n1. 周六停水检修，时间 8:00–14:00；\n2. 地下车库同日清洗，车辆需提前挪出。\n\n第二条最麻烦，建议周五晚上就把车停到路边。",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own reply, opened by a colon", () => {
    expect(flagged("我刚回复了物流公司：同意顺延到周四提货，并把提货单号发给了他们。")).toBe(true);
  });

  it("still finds a notice the writer sent", () => {
    expect(flagged("我已经发了通知，内容如下：周五下午三点全员在三楼会议室开会。")).toBe(true);
  });

  it("still finds a post scheduled by the writer, opened by a colon", () => {
    expect(flagged("活动文案定时发布：周六 09:00，封面用第二张图。")).toBe(true);
  });
});

describe("someone's opinion given after a colon", () => {
  it("does not flag the changes a colleague's opinion asks for", () => {
    expect(
      flagged(
        "采购部李经理的意见是：第 3 条的违约金必须删掉，改成按合同总额的 5% 封顶；另外他说对方的资质证书快过期了，建议签约前让对方补一份新的。",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own change after the opinion it follows", () => {
    expect(flagged("按李经理的意见，我已经把第 3 条的违约金删掉了，改好的合同在共享盘里。")).toBe(true);
  });
});

describe("a change dated by the release it holds from", () => {
  it("does not flag a fix that holds from a version on", () => {
    expect(flagged("4.2.0 在部分平板上有横屏显示错位的问题，4.2.1 起已修复，更新一下应用就好。")).toBe(false);
  });

  it("still finds a fix the writer made", () => {
    expect(flagged("横屏显示错位的问题我已经修复了，补丁在 4.2.1 的分支上。")).toBe(true);
  });
});

describe("a state the system no longer lets anyone change", () => {
  it("does not flag an order shipped that the system cannot amend", () => {
    expect(flagged("不好意思，包裹已经发货，系统里没法再改配送时间了，建议您联系快递员协商改约。")).toBe(false);
  });

  it("still finds a change the writer made in the system", () => {
    expect(flagged("包裹还没出库，配送时间我已经在系统里改到周六上午了。")).toBe(true);
  });
});

describe("headings that name the reader's cases in different words", () => {
  it("does not flag a heading for the case where the thing is already done", () => {
    expect(
      flagged(
        "退票要看出票进度：\n\n**还没出票**\n在订单页点「取消订单」，款项原路退回。\n\n**已经开出纸质行程单**\n先把行程单寄回，收到后再办理退款。\n\n**已经登机**\n不能再退，可以联系航司咨询改签。",
      ),
    ).toBe(false);
  });

  it("still finds a report sorted under headings of what is done and what is not", () => {
    expect(
      flagged(
        "今天的进展：\n\n**已完成**\n- 我把退票接口的超时改成了 10 秒\n- 补了两条单元测试\n\n**还没做**\n- 行程单寄回的流程\n- 航司改签的对接",
      ),
    ).toBe(true);
  });

  it("still finds a step the writer took under a case heading", () => {
    expect(
      flagged(
        "两种情况我都看了：\n\n**还没出票**\n这类订单我已经全部取消了，款项原路退回。\n\n**已经出票**\n这类要等航司审核，我先不动。",
      ),
    ).toBe(true);
  });
});

describe("a thing the user is asked to send over", () => {
  it("does not flag the user asked to send something over", () => {
    expect(flagged("你愿意的话，把上个月的电费账单拍照发过来，我们一起看看峰谷电价哪个划算。")).toBe(false);
  });

  it("still finds what came over once it is marked done", () => {
    expect(flagged("供电局的账单已经发过来了，我核对了一遍，峰谷电价更划算。")).toBe(true);
  });
});
