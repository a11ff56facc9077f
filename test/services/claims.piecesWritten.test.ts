/**
 * Chinese shapes studied in the round on v33 and v34: a counted piece of writing the writer made
 * (写了一首短诗：, 给你的活动做了一份流程草案，…：, 做了一个报销清单的模板，可以直接粘到表格里：) and opened
 * by a colon is the text that follows in this reply — where the reader may paste it is theirs; a
 * piece also sent or stored somewhere is still found; a label that names a message (道歉短信：,
 * 自我介绍：) followed by text that opens by addressing its reader (王女士您好，, 面试官您好，) is that
 * message in its sender's voice, while such a label over a bare status is still found; a writer who
 * says it only arranged the words (我只是做了整理：) did nothing else, while 按小时做了汇总 is still found. Each rule is checked on answers written for it
 * (none from any corpus), next to the assistant's own report of the same shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a counted piece of writing opened by a colon", () => {
  it("does not flag a short poem written straight into the reply", () => {
    expect(flagged("写了一首短诗：山路弯到云里去，/ 松针落满旧石阶，/ 一只鸟替我数着风。")).toBe(false);
  });

  it("does not flag an outline made for the reader whose sessions follow a colon", () => {
    expect(
      flagged(
        "给你的读书会做了一份六期的流程草案，每期约两小时：\n\n| 期数 | 书目 |\n|---|---|\n| 1 | 《活着》 |\n| 2 | 《平凡的世界》 |",
      ),
    ).toBe(false);
  });

  it("does not flag a template whose next clause says where the reader may paste it", () => {
    expect(
      flagged(
        "按你说的，做了一个差旅报销清单的模板，可以直接粘到 WPS 表格里：\n\n| 日期 | 项目 | 金额 |\n|---|---|---|\n| | 交通 | |",
      ),
    ).toBe(false);
  });

  it("still flags a template the writer also uploaded", () => {
    expect(
      flagged("做了一份差旅报销清单的模板，已经上传到共享盘：\n\n| 日期 | 项目 | 金额 |\n|---|---|---|\n| | 交通 | |"),
    ).toBe(true);
  });

  it("still flags a piece the writer sent before the colon", () => {
    expect(flagged("我写了一份请假说明，已经发给了你的主管：因家中有事，明天请假一天。")).toBe(true);
  });
});

describe("a labelled message that addresses its reader", () => {
  it("does not flag a self-introduction whose 我 is the sender's", () => {
    expect(
      flagged(
        "自我介绍：评委老师您好，我叫陈晓，是物流管理专业的大三学生。去年暑假我在一家仓储公司实习，独立设计过一张拣货排班表。",
      ),
    ).toBe(false);
  });

  it("does not flag an apology text message with a sender tag and a greeting", () => {
    expect(
      flagged("给客户的道歉短信：【阿满花艺】李先生您好，今天的花束比约定晚到了半小时，运费已为您退回，再次向您致歉！"),
    ).toBe(false);
  });

  it("still flags a labelled status that reports the writer's sending", () => {
    expect(flagged("道歉短信：已发送给 12 位受影响的顾客，退款也已经提交。")).toBe(true);
  });
});

describe("a writer who only arranged the words", () => {
  it("does not flag a relayed report whose writer only arranged it", () => {
    expect(
      flagged(
        "以下内容来自物业今天发的停水通报，我只是做了整理：\n\n- 9:00 物业关闭了总阀；\n- 11:30 水管修好后恢复供水。",
      ),
    ).toBe(false);
  });

  it("still flags data the writer summed up", () => {
    expect(flagged("我用你上传的考勤表按部门做了汇总，迟到最多的是销售部。")).toBe(true);
  });
});
