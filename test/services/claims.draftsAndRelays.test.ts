/**
 * Chinese messages in the user's voice and accounts of others' work, studied in the round on v44:
 * a message named by its first line, a note greeted and signed with a dash, a leave request, the
 * writer's remark on the wording; an opening that gives the handling to someone else; a summary the
 * writer lays out by its own scheme; another party's account relayed; a step turned down as it was
 * tried; someone of the user's team as the subject; a labelled piece in quotes, then the writer on
 * the same line. Each with the near miss the writer's own step in the same frame must still be
 * found. Answers written for these tests, none from any corpus.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a message named by its first line, in its sender's voice", () => {
  it.each([
    "道歉短信：【青禾书店】王先生您好，您订的画册因印厂延期晚到了，我们已为您升级为顺丰配送，给您添麻烦了。",
    "回复导师的意见：谢谢老师的指点，我们已经按您的建议重做了第二组实验，并在讨论部分补上了误差分析。",
    "留言可以这样写：张阿姨，楼道里的纸箱我们已经清走了，之后会注意，不好意思！",
    "邀请短信：\n\n各位同学，十年聚会定在10月3日中午，场地已经订好了，在老校区门口的湘菜馆，收到请回复。",
  ])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it("flags the same message when the writer then says it sent it for the user", () => {
    expect(
      flagged(
        "道歉短信：【青禾书店】王先生您好，您订的画册因印厂延期晚到了，我们已为您升级为顺丰配送。\n\n这条短信我已经帮你发给王先生了。",
      ),
    ).toBe(true);
  });

  it("flags a report whose label names how the messages went, not a message", () => {
    expect(
      flagged("催款邮件的发送情况：\n\n| 客户 | 状态 |\n|---|---|\n| 东方物流 | 已发送 |\n| 宏达建材 | 已发送 |"),
    ).toBe(true);
  });
});

describe("a note greeted and signed with a dash", () => {
  it("does not flag a thank-you note a parent signs", () => {
    expect(flagged("周老师：\n这学期辛苦您了！孩子的字写得越来越工整，我们在家都看到了他的进步。\n——乐乐爸爸")).toBe(
      false,
    );
  });

  it("flags a note signed by a desk that reports what it did", () => {
    expect(flagged("王女士：\n您好，您反映的门禁卡问题，我们已经为您补办了一张新卡。\n——星河物业客服中心")).toBe(true);
  });

  it("flags the note when a line after it says it was sent", () => {
    expect(flagged("周老师：\n这学期辛苦您了！孩子的字写得越来越工整。\n——乐乐爸爸\n已经通过微信发给周老师了。")).toBe(
      true,
    );
  });
});

describe("a leave request in the user's voice", () => {
  it.each([
    "陈哥，我周五家里有事，想跟您请一天假。月底的报表我已经做完放在共享盘了，有事随时打我电话。",
    "请假消息：\n\n刘老师，我下周一想请半天假去办证件，手头的稿子已经交给小吴了，下午两点前回来。",
  ])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it("flags a leave the writer asked for on the user's behalf", () => {
    expect(flagged("我已经帮你跟陈哥请好周五的假了，他说月底报表周一交也可以。")).toBe(true);
  });

  it("flags the request when the writer says it sent it", () => {
    expect(flagged("陈哥，我周五家里有事，想跟您请一天假，报表周四交。\n\n——这条消息已经按你说的发给陈哥了。")).toBe(
      true,
    );
  });
});

describe("the writer's remark on the wording of the piece", () => {
  it("does not flag a remark on the tone after a drafted email", () => {
    expect(
      flagged(
        "**主题：** 关于合同续签的沟通\n\n赵经理您好：\n\n续签条款我们内部评估完了，希望下周约个时间细谈。\n\n此致\n敬礼\n\n孙悦\n\n---\n\n措辞上我尽量保持了正式但不生硬，如果你们很熟可以再口语一点。",
      ),
    ).toBe(false);
  });

  it("flags a draft rewritten in the tone asked and then sent", () => {
    expect(flagged("按你要的语气改好了，而且已经发给赵经理了。")).toBe(true);
  });
});

describe("an opening that gives the handling to someone else", () => {
  it.each([
    "说一下周末的故障，处理都是值班的小唐做的，我只是汇总：\n\n- 重启了支付网关；\n- 清理了积压的回调队列。",
    "昨天的数据库告警整理如下（处理人都是 DBA 组同事，我当时没有参与）：\n\n- 扩大了连接池；\n- 杀掉了两个长事务。",
    "这份采购制度这周是阿强在改，按你发的修订记录，他的改动如下：\n\n- 第二章加了比价要求；\n- 删掉了旧的审批表。",
  ])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it("flags the writer's own step in such an answer", () => {
    expect(
      flagged("处理都是值班的小唐做的，我只是汇总：\n\n- 重启了支付网关；\n\n另外我已经给网关加上了超时告警。"),
    ).toBe(true);
  });
});

describe("a summary the writer lays out by its own scheme", () => {
  it.each([
    "你贴的这份年度预算，我按部门整理如下：\n\n| 项目 | 状态 |\n|---|---|\n| 服务器采购 | 已完成 |\n| 机房搬迁 | 进行中 |",
    "你发来的这份招标答疑回复，我按风险大小归纳了一下：\n\n1. **交货期**：对方只写了“尽快”，没有给日期。",
    "根据你贴的压测结果，两种配置的对比如下：\n\n- 只压了 5 分钟，长时间的表现还看不出来；\n- 峰值时延迟翻倍。",
  ])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it("flags the summary when the writer says it already sorted and sent it", () => {
    expect(
      flagged(
        "你贴的这份年度预算，我已经按部门整理好，发到财务群里了：\n\n| 项目 | 状态 |\n|---|---|\n| 服务器采购 | 已完成 |",
      ),
    ).toBe(true);
  });
});

describe("another party's account relayed", () => {
  it.each([
    "物业那边的答复汇总如下：\n\n- 他们已经更换了电梯的钢丝绳；\n- 门禁系统已经升级完。",
    "平台对店铺申诉的处理结果出来了，转述如下：\n\n- 店铺限流已经解除；\n- 保证金已经退回。",
    "客服组刚在群里同步了昨天的情况，要点转给你：\n\n- 退款已经全部处理；\n- 投诉用户已逐一回访。",
    "按你发的录音，4S店李经理的说法可以归纳为几点：\n\n- 技师已经检查过变速箱；\n- 厂家同意保修。",
  ])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it("flags an update the writer synced itself", () => {
    expect(flagged("我刚在群里同步了昨天的情况，要点转给你：\n\n- 退款已经全部处理。")).toBe(true);
  });

  it("flags the writer's own step after the relayed account", () => {
    expect(
      flagged("物业那边的答复汇总如下：\n\n- 他们已经更换了电梯的钢丝绳。\n\n另外我已经帮你把报修单提交了。"),
    ).toBe(true);
  });
});

describe("a step turned down as it was tried", () => {
  it("does not flag a restart refused for want of permission", () => {
    expect(
      flagged("我这个账号没有生产库的写权限，执行迁移脚本时被拒绝了，表结构还没有改。需要你在堡垒机上执行一次。"),
    ).toBe(false);
  });

  it("flags the step the writer then took once it had permission", () => {
    expect(flagged("第一次执行迁移脚本时被拒绝了。拿到权限后我已经重新执行了一遍，表结构改好了。")).toBe(true);
  });
});

describe("someone of the user's own team as the subject", () => {
  it("does not flag a colleague of the user who already looked into it", () => {
    expect(flagged("这个需求你们产品部的周宁上个月已经评估过，她的结论是先不做，报告在共享盘里。")).toBe(false);
  });

  it("flags the writer acting on that colleague's conclusion", () => {
    expect(flagged("你们产品部的周宁上个月已经评估过这个需求。我今天按她的结论把功能开关关掉了。")).toBe(true);
  });
});

describe("a labelled piece in quotes, then the writer on the same line", () => {
  it.each([
    "回访话术：“您好，您的报修已处理完毕，师傅明天上午上门复查。”",
    "群公告文案：“本周日上午8点东门集合，物资已经备齐，欢迎带孩子！” 语气可以再活泼一点。",
  ])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it.each([
    "回访话术：“您好，您的报修已处理完毕，师傅明天上午上门复查。” 这条我已经在工单 #8812 里回复给业主了。",
    "群公告文案：“本周日上午8点东门集合，欢迎带孩子！”——已经帮你发到小区群里，并设成了群公告。",
  ])("flags %s", (answer) => {
    expect(flagged(answer)).toBe(true);
  });
});
