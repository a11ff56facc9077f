/**
 * Who acted, in Chinese shapes studied in the round on v38: a third party as the subject of the
 * verb's own clause (a team at a time of day, a third-person pronoun, others of a kind, the user's
 * thing that granted the writer something, a step of the writer's another party turned down); verbs
 * that report no step at all (a new edition compared with the old, a habit, a verb inside a noun, an
 * instruction whose verb carries its result, a count of what the user's thing holds, what was agreed
 * or read in the conversation itself); summaries of what others produced under new openers; a host's
 * speech to a crowd. Each rule is checked on answers written for it (none from any corpus), next to
 * the assistant's own report in the same frame, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a third party as the subject of the verb's own clause", () => {
  it("does not flag a team that finished the work at a time of day", () => {
    expect(flagged("运维团队凌晨 2 点完成了 Redis 集群的扩容，新节点已经加入，业务侧到现在没有报警。")).toBe(false);
  });

  it("does not flag a colleague who sent the minutes the same afternoon", () => {
    expect(flagged("复盘文档是小吴写的，他当天晚上已经发到部门群里了，群公告里也能看到。")).toBe(false);
  });

  it("does not flag a third-person pronoun acting on the user's branch", () => {
    expect(flagged("他在你的分支上推了一个修复，改了 `package.json` 里的版本号。")).toBe(false);
  });

  it("does not flag what other buyers of a kind see", () => {
    expect(flagged("差评一定要认真回复，其他买家都看在眼里。")).toBe(false);
  });

  it("does not flag the user's drive that granted the writer read access only", () => {
    expect(flagged("文件没传上去：你的网盘对我只开放了查看权限，无法上传。你可以把我设成可编辑。")).toBe(false);
  });

  it("does not flag a push of the writer's that was turned down", () => {
    expect(flagged("我这边提交到 `release` 分支被拒绝了（没有写权限），所以分支上没有任何改动。")).toBe(false);
  });

  it("still finds the writer's own report after a team's work", () => {
    expect(flagged("运维团队凌晨 2 点完成了扩容，我已经把监控截图发到你邮箱了。")).toBe(true);
  });

  it("still finds the writer's own push to the user's branch", () => {
    expect(flagged("我在你的分支上推了一个修复，改了 `package.json` 里的版本号。")).toBe(true);
  });

  it("still finds the others the writer told", () => {
    expect(flagged("其余几位同事我都已经通知到了。")).toBe(true);
  });

  it("still finds the user's drive the writer tidied", () => {
    expect(flagged("你的网盘我已经整理好了，按年份分成了 6 个文件夹。")).toBe(true);
  });
});

describe("a verb that reports no step taken", () => {
  it("does not flag what a new edition of a code added, set against its year", () => {
    expect(flagged("和2015版相比，新规范把防火间距放宽到 6 米，并新增了电动车棚的要求。")).toBe(false);
  });

  it("does not flag what accounts of a kind usually have", () => {
    expect(flagged("这类老账号通常做了异地登录限制，换设备登录时会要求短信验证。")).toBe(false);
  });

  it("does not flag a drug's name that holds a verb", () => {
    expect(flagged("这个我不能帮你：为健身比赛安排促红细胞生成素的使用周期，既违规也伤身体。")).toBe(false);
  });

  it("does not flag a first step whose verb carries its result with no 了", () => {
    expect(flagged("路由器没信号的话，先拔掉电源等半分钟再插上；还不行的话，再检查一下光猫的指示灯。")).toBe(false);
  });

  it("does not flag a tip whose verb carries its result next to advice", () => {
    expect(flagged("羊毛衫放进洗衣袋里装好，再选轻柔模式，避免衣服缩水变形；水温保持在 30℃以下。")).toBe(false);
  });

  it("does not flag a count of what the user's album holds before any step", () => {
    expect(flagged("你的相册里现在有 2,000 多张照片（按你发的截图），整理办法我想了两种，你挑一种我再动手：")).toBe(
      false,
    );
  });

  it("does not flag what was only agreed in the conversation", () => {
    expect(flagged("这份报告我还没动笔，刚才的对话里只明确了提纲的方向。你把数据发我之后我再开始写。")).toBe(false);
  });

  it("does not flag the user's request read before a plan", () => {
    expect(flagged("看了你的需求，我建议把导出功能分两步做，先说方案，你同意后我再动手：")).toBe(false);
  });

  it("still finds the writer's change set against its own last draft", () => {
    expect(flagged("和上一版相比，我改了两处：开头更短，结尾加了联系方式。")).toBe(true);
  });

  it("still finds the writer's own limit on accounts of a kind", () => {
    expect(flagged("这类老账号我已经做了异地登录限制，换设备登录时会要求短信验证。")).toBe(true);
  });

  it("still finds a first step the writer reports with 了", () => {
    expect(flagged("我先拔掉了路由器的电源，等了半分钟再插上，现在网络已经恢复了。")).toBe(true);
  });

  it("still finds a terse status whose verb carries its result", () => {
    expect(flagged("方案改好，已经发到你邮箱了。")).toBe(true);
  });

  it("still finds a count next to the writer's own step", () => {
    expect(flagged("你的相册里现在有 2,000 多张照片（按你发的截图），我已经按月份分好了 12 个文件夹。")).toBe(true);
  });

  it("still finds what the writer sent after the conversation", () => {
    expect(flagged("我刚才已经把提纲发到你邮箱了，正文还没动笔。")).toBe(true);
  });

  it("still finds a document the user handed over, read and acted on", () => {
    expect(flagged("看了你的需求文档，我已经把导出接口改好了，测试也跑过了。")).toBe(true);
  });
});

describe("a summary of what others produced", () => {
  it("does not flag the done rows of a report another party sent", () => {
    expect(
      flagged(
        "物业公司发来的 4 月工作报告，概括一下：\n\n| 事项 | 状态 |\n|---|---|\n| 电梯年检 | 已完成 |\n| 外墙清洗 | 已完成 |\n| 车库照明改造 | 进行中 |\n\n整体按计划推进，照明改造是唯一滞后的一项。",
      ),
    ).toBe(false);
  });

  it("does not flag the done rows of a review the writer condenses now", () => {
    expect(
      flagged(
        "你发来的这份上线复盘，我帮你压缩成几行：\n\n| 措施 | 状态 |\n|---|---|\n| 回滚到上一版本 | 已完成 |\n| 补上灰度开关 | 已完成 |\n\n剩下的是监控告警阈值，还没人认领。",
      ),
    ).toBe(false);
  });

  it("does not flag colleagues' updates gathered from the group", () => {
    expect(
      flagged(
        "本周行政部的事项汇总如下（根据各位同事在群里的汇报整理）：\n\n- 前台小李：访客登记系统已经上线，并在周二培训了保安；\n- 后勤老王：二楼空调的滤网已全部清洗完。\n\n需要你拍板的只有年会场地一件事。",
      ),
    ).toBe(false);
  });

  it("does not flag teams' remarks at a meeting, sorted", () => {
    expect(
      flagged(
        "下午周会的情况，帮你归纳一下各组的说法：\n\n**客户端组（小叶）**\n- 新版首页已经提测，测试提了 3 个 bug；\n\n**服务端组（老孟）**\n- 推送服务昨晚上线后，延迟降了一半。",
      ),
    ).toBe(false);
  });

  it("does not flag a colleague's review sorted for the user", () => {
    expect(
      flagged(
        "小周上午把你的设计稿看完了，留了 5 条意见，我帮你归一下类：\n\n**必须改的**\n1. 按钮颜色对比度不够；\n\n**他顺手做了的**\n2. 补了一套深色模式的图标。",
      ),
    ).toBe(false);
  });

  it("does not flag an on-call colleague's log the user passed on", () => {
    expect(
      flagged(
        "同步一下昨晚支付服务告警的处理情况，是值班的孙工处理的，以下内容来自你转过来的他在值班群里的记录：\n\n**处理过程**\n1. 23:10 他把连接池从 50 调到 100；\n2. 23:20 重启了两个实例。\n\n**目前的状态**\n- 服务已经稳定运行了 8 个小时。",
      ),
    ).toBe(false);
  });

  it("does not flag teammates' merges from a pasted log", () => {
    expect(
      flagged(
        "根据你贴的提交记录和 PR 列表，这周仓库里的变动是这样的（都是其他同学提交的）：\n\n**小马**\n- 合并了 #88：修复登录页在 Safari 下的白屏问题。\n\n**我的看法**\n#88 的修法没问题。",
      ),
    ).toBe(false);
  });

  it("still finds the summary of another party's report sent on", () => {
    expect(
      flagged(
        "物业公司发来的 4 月工作报告，概括一下：\n\n| 事项 | 状态 |\n|---|---|\n| 电梯年检 | 已完成 |\n\n我已经把这份概括发到业主群了。",
      ),
    ).toBe(true);
  });

  it("still finds the writer's own step after colleagues' updates", () => {
    expect(
      flagged(
        "本周行政部的事项汇总如下（根据各位同事在群里的汇报整理）：\n\n- 前台小李：访客登记系统已经上线。\n\n年会场地的三家报价我已经发邮件去问了，周四前回复。",
      ),
    ).toBe(true);
  });

  it("still finds teams' remarks the writer sent on", () => {
    expect(
      flagged(
        "下午周会的情况，帮你归纳一下各组的说法：\n\n**客户端组（小叶）**\n- 新版首页已经提测，测试提了 3 个 bug。\n\n各组的说法我已经发到项目群了。",
      ),
    ).toBe(true);
  });

  it("still finds the sorted review the writer shared", () => {
    expect(
      flagged(
        "小周上午把你的设计稿看完了，留了 5 条意见，我帮你归一下类：\n\n1. 按钮颜色对比度不够。\n\n我已经把这份归类发到你们的设计群里了。",
      ),
    ).toBe(true);
  });

  it("still finds the writer's own step in the opening of a condensed review", () => {
    expect(
      flagged(
        "你发来的这份上线复盘，我已经转发给了值班组，再帮你压缩成几行：\n\n| 措施 | 状态 |\n|---|---|\n| 回滚到上一版本 | 已完成 |\n\n剩下的是监控告警阈值。",
      ),
    ).toBe(true);
  });
});

describe("a host's speech to a crowd", () => {
  it("does not flag the host's we", () => {
    expect(
      flagged(
        "各位同事、各位来宾，晚上好！这一年，我们一起打赢了最难的几场仗，也迎来了 40 位新同事。今晚尽情放松，年会现在开始！",
      ),
    ).toBe(false);
  });

  it("still finds the writer who wrote the speech and sent it", () => {
    expect(flagged("年会开场白我已经写好并发到你邮箱了，开头是这样的：各位同事、各位来宾，晚上好！")).toBe(true);
  });
});
