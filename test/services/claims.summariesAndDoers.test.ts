/**
 * Who acted, in Chinese shapes studied in the round on v37: the rows and lines of a summary of
 * material the user handed over (你贴的这份…周报，要点如下：| … | 已完成 |) and of a meeting speaker's
 * remarks; a colleague named by a title who already did it; a body dated by 于 and a year; what
 * another party sent to us; a verb inside a noun phrase (是一项…的, …触发的); the first step of a plan
 * with no 了 (先建好…); pieces in the sender's voice (a letter to a landlady whose writer says who
 * they are, a notice titled 关于…的通知 or addressed to 各位…：, copy handed over between rules). Each
 * rule is checked on answers written for it (none from any corpus), next to the assistant's own
 * report in the same frame, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a summary of material the user handed over", () => {
  it("does not flag the done rows of a pasted monthly report", () => {
    expect(
      flagged(
        "你贴的这份仓库改造月报，要点如下：\n\n| 事项 | 状态 | 备注 |\n|---|---|---|\n| 货架更换 | 已完成 | 8 月底交付 |\n| 扫码枪采购 | 已完成 | 共 20 把 |\n| 消防验收 | 进行中 | 等消防队排期 |\n\n整体看进度正常，消防验收是唯一的风险点。",
      ),
    ).toBe(false);
  });

  it("does not flag a thread of emails whose last line says the matter was closed", () => {
    expect(
      flagged(
        "这串邮件一共 9 封，围绕样品延期的问题，梳理如下：\n\n**起因**\n供应商 3 月 2 日来信说模具坏了。\n\n**结论**\n采购部同意延期一周，这件事已经关闭。",
      ),
    ).toBe(false);
  });

  it("does not flag what a document's last page says was revised", () => {
    expect(
      flagged(
        "你发来的这份内审报告一共提了 4 个问题：\n\n1. 采购比价记录不全。\n2. 合同台账未及时更新。\n\n报告最后写明，第 2 项已修订台账模板。",
      ),
    ).toBe(false);
  });

  it("does not flag a meeting speaker's remarks relayed after the opening", () => {
    expect(
      flagged(
        "周二的项目例会上，监理单位的赵工主要讲了这几件事：\n\n**关于验收**\n地基部分已全部验收；主体结构还差三层。\n\n**关于安全**\n他要求下周前补齐脚手架的检查记录。",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own step in a summary of a pasted report", () => {
    expect(
      flagged(
        "你贴的这份仓库改造月报，要点如下：\n\n| 事项 | 状态 |\n|---|---|\n| 货架更换 | 已完成 |\n\n我已经把这几条要点发到项目群里了。",
      ),
    ).toBe(true);
  });

  it("still finds this summary sent on with the subject left out", () => {
    expect(
      flagged(
        "你贴的这份仓库改造月报，要点如下：\n\n- 货架更换已完成。\n- 消防验收进行中。\n\n这份摘要已经发到项目群了。",
      ),
    ).toBe(true);
  });

  it("still finds rows of the writer's own work after a list the user gave", () => {
    expect(
      flagged(
        "按你给的名单，给 4 位老师发了邀请，结果如下：\n\n| 老师 | 邮件 |\n|---|---|\n| 陈老师 | 已发送 |\n| 周老师 | 已发送 |",
      ),
    ).toBe(true);
  });
});

describe("someone else named as the doer", () => {
  it("does not flag a colleague named by a title who already submitted it", () => {
    expect(flagged("出差申请张姐今天上午已经在系统里提交了，你等审批通知就行。")).toBe(false);
  });

  it("does not flag the matter a secretary already handled", () => {
    expect(flagged("会议室的事刘秘书已经办了：她下午订了三楼的大会议室，你直接过去就行。")).toBe(false);
  });

  it("does not flag a body's release dated by 于 and a year", () => {
    expect(flagged("世界卫生组织于 2019 年 5 月通过了新版国际疾病分类，2022 年起正式生效。")).toBe(false);
  });

  it("does not flag what another party sent to us", () => {
    expect(flagged("您好，快递公司的客服今天已经给我们发来了丢件的赔付说明，按保价金额赔付。")).toBe(false);
  });

  it("still finds the writer's own step beside a colleague named by a title", () => {
    expect(flagged("张姐昨天已经提交了出差申请，我也已经把酒店订好了。")).toBe(true);
  });

  it("still finds the writer's step done the way a manager asked", () => {
    expect(flagged("已经按王经理的意见在OA里提交了采购申请。")).toBe(true);
  });

  it("still finds the writer's step done in a colleague's stead", () => {
    expect(flagged("已经替王姐把报销单提交了，她回来签个字就行。")).toBe(true);
  });

  it("still finds the writer's own dated step", () => {
    expect(flagged("我于 2024 年 3 月提交了商标续展申请。")).toBe(true);
  });
});

describe("a verb inside a noun phrase, and the first step of a plan", () => {
  it("does not flag a study described as one that enrolled patients", () => {
    expect(flagged("这项研究是一项纳入约800名高血压患者的队列研究，随访了五年。")).toBe(false);
  });

  it("does not flag an event named as what set off the failing job", () => {
    expect(flagged("这次上线没有成功：中午推送触发的构建任务在单元测试阶段失败了，线上版本没有变。")).toBe(false);
  });

  it("does not flag the first step of a plan with no 了", () => {
    expect(
      flagged(
        "我建议分三步迁移，这只是方案，还没动任何东西：\n\n1. 先建好新的共享文件夹，不动旧文件；\n2. 再按部门把文件挪过去；\n3. 最后清理空目录。",
      ),
    ).toBe(false);
  });

  it("still finds the first step once it is done", () => {
    expect(flagged("先建好了新的共享文件夹，旧文件还没动。")).toBe(true);
  });

  it("still finds the writer's own push that set off the job", () => {
    expect(flagged("我中午推送了修复，触发的构建已经通过了。")).toBe(true);
  });
});

describe("pieces in their sender's voice", () => {
  it("does not flag a message to a landlady whose writer says who they are", () => {
    expect(
      flagged("李阿姨您好，我是 301 的租客小吴。这季度的物业费我昨天已经交到物业前台了，收据我拍照发您。谢谢！"),
    ).toBe(false);
  });

  it("does not flag a notice addressed to its readers", () => {
    expect(
      flagged(
        "各位书友：很抱歉，因场地临时维修，本周日的读书会改到下周举行。已报名的朋友无需重新报名，名单已全部保留。",
      ),
    ).toBe(false);
  });

  it("does not flag a notice titled 关于…的通知", () => {
    expect(
      flagged(
        "**关于调整食堂开放时间的通知**\n\n全体员工：\n\n自 6 月 1 日起，食堂午餐时间调整为 11:30—13:30。后勤部已完成餐线改造，取餐会更快。\n\n特此通知。\n\n后勤部",
      ),
    ).toBe(false);
  });

  it("does not flag launch copy handed over between rules", () => {
    expect(
      flagged(
        "下面是新店开业的朋友圈文案：\n\n---\n\n我们的小店终于装修完了！周六正式开门，前 50 位到店送咖啡。\n\n---\n\n建议配一张门头的照片。",
      ),
    ).toBe(false);
  });

  it("still finds a support reply that greets one reader and reports its own step", () => {
    expect(flagged("亲爱的用户您好：\n\n您反馈的重复扣费已经核实，多扣的 30 元已退回到您的支付账户。")).toBe(true);
  });

  it("still finds the writer's own send after a letter", () => {
    expect(
      flagged("李阿姨您好，我是 301 的租客小吴。这季度的物业费已经交了。\n\n---\n\n这条消息我已经帮你发给李阿姨了。"),
    ).toBe(true);
  });
});
