/**
 * Who acted, in Chinese shapes studied in the round on v26: a text the writer composes or arranges
 * for the user, opened by a colon or put above or below (this reply, whatever it is called); a
 * version the writer put together and shows; others' words introduced by who sent them or whose
 * record they are; what need not be done; a step offered once the user gives what it needs; a state
 * named before a change offered; a sentence that says nothing was touched yet; what the writer tried
 * and could not do; what something suits. Each rule is checked on answers written for it (none from any corpus), next to
 * the assistant's own report of the same shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a text the writer composes for the user, opened by a colon", () => {
  it("does not flag a schedule arranged for the user, whatever it is called", () => {
    expect(
      flagged(
        "装修三个月，按常规工序给你排了一个大致的进度表（假设下月初开工）：\n\n| 周 | 工序 |\n|---|---|\n| 1–2 | 拆改、水电 |\n| 3–4 | 泥瓦 |\n\n工期会受天气影响。",
      ),
    ).toBe(false);
  });

  it("does not flag someone's messages arranged into this reply", () => {
    expect(
      flagged("帮你捋了一下物业群今天的消息：下周三上午停电检修，电梯暂停使用，地下车库的充电桩当天也不能用。"),
    ).toBe(false);
  });

  it("still finds a list of the task's things gone through one by one", () => {
    expect(flagged("我已经把服务器上现有的定时任务列了一遍：一共 12 个，其中 3 个已经停用。")).toBe(true);
  });

  it("still finds a query written and run, opened by a colon", () => {
    expect(flagged("我写了一个 SQL 把上个月的退款率算出来了：退款率 3.2%，比前月低 0.4 个点。")).toBe(true);
  });
});

describe("a text the writer composed, put above or below in this reply", () => {
  it("does not flag the text written above for the user to send", () => {
    expect(flagged("我这边不能替你提交报销单。单据内容我已经帮你整理在上面，照着填就行。")).toBe(false);
  });

  it("still finds the text saved where the task keeps it", () => {
    expect(flagged("报销单据我已经整理好，上传到财务系统里了。")).toBe(true);
  });
});

describe("a version the writer put together and shows", () => {
  it("does not flag the done items inside the notes it shows", () => {
    expect(
      flagged(
        "按你给的要点整理了一版，你看看：\n\n**技术部周会纪要**\n\n1. 登录页改版已上线；\n2. 报表导出的优化已完成；\n3. 安全评估已提交，等待反馈。\n\n需要调整措辞跟我说。",
      ),
    ).toBe(false);
  });

  it("still finds done items the writer reports under its own heading", () => {
    expect(flagged("这周的处理情况：\n\n1. 登录页改版已上线；\n2. 报表导出的优化已完成。")).toBe(true);
  });
});

describe("others' words introduced by who sent them or whose record they are", () => {
  it("does not flag a club statement relayed under the line that names it", () => {
    expect(
      flagged(
        "乐队今天中午发了官方声明，要点是：\n\n- 主唱在彩排中扭伤了脚踝，已于昨天完成检查；\n- 巡演推迟两周。\n\n声明最后还感谢了歌迷，并表示主唱已经开始康复训练。",
      ),
    ).toBe(false);
  });

  it("does not flag a colleague's handover record the writer arranged", () => {
    expect(
      flagged(
        "以下是夜班同事小李在交接文档里记录的情况，我帮你整理了一下：\n\n**已处理**\n- 02:10 数据库连接数告警，小李重启了连接池；\n- 04:30 磁盘告警，他清理了过期日志。",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own handover under its own intro", () => {
    expect(
      flagged(
        "夜里的处理情况我整理了一下：\n\n**已处理**\n- 02:10 数据库连接数告警，我重启了连接池；\n- 04:30 磁盘告警，清理了过期日志。",
      ),
    ).toBe(true);
  });
});

describe("what something suits", () => {
  it("does not flag the kind of deck the data would make", () => {
    expect(flagged("这些考勤数据挺适合做成一页趋势图加一页部门对比的 PPT。要不要我先出个大纲？")).toBe(false);
  });

  it("still finds the deck the writer made", () => {
    expect(flagged("考勤数据我已经做成了一页趋势图加一页部门对比的 PPT。")).toBe(true);
  });
});

describe("what need not be done", () => {
  it("does not flag a step the writer says need not be taken", () => {
    expect(flagged("会议室不用再订了，小周上午已经订好了周四的小会议室，投影他也确认过。")).toBe(false);
  });

  it("still finds the writer's own booking", () => {
    expect(flagged("会议室我已经订好了，周四下午的小会议室。")).toBe(true);
  });
});

describe("a step offered once the user gives what it needs", () => {
  it("does not flag the writing offered once the user tells the details", () => {
    expect(
      flagged("你可以直接在系统里发起申请；或者把请假日期和原因告诉我，我帮你写好申请说明，你粘贴进去就行。"),
    ).toBe(false);
  });

  it("still finds the writing done after the user gave the details", () => {
    expect(flagged("你告诉我的日期和原因，我已经写进申请说明里了。")).toBe(true);
  });
});

describe("a state named before a change offered", () => {
  it("does not flag how the sheet stands when the writer offers to change it", () => {
    expect(flagged("通讯录现在是一整张表，要不要我按部门拆成几个 sheet？")).toBe(false);
  });

  it("still finds the state the writer's change left behind", () => {
    expect(flagged("通讯录现在是按部门拆开的几个 sheet 了。")).toBe(true);
  });
});

describe("a sentence that says nothing was touched yet", () => {
  it("does not flag the proposal of a split when no code was changed", () => {
    expect(
      flagged(
        "看完你的需求，我建议把 `Billing` 模块分两步重构，目前都还没动代码：\n\n1. 先拆出计费规则\n2. 再迁移账单生成",
      ),
    ).toBe(false);
  });

  it("still finds a split done in a sentence that says what else was left alone", () => {
    expect(flagged("我已经把 `helpers.py` 拆分成了三个文件，测试还没有动代码。")).toBe(true);
  });
});

describe("what the writer tried and could not do", () => {
  it("does not flag a source the writer could not find", () => {
    expect(
      flagged(
        "这句诗出自《长恨歌》，但你问的下一句的版本差异，我目前没能找到可靠的校勘来源，不敢下结论，建议查中华书局的注本。",
      ),
    ).toBe(false);
  });

  it("still finds a source the writer found", () => {
    expect(flagged("这句诗的出处我已经找到了，在中华书局版注本的第 112 页。")).toBe(true);
  });
});
