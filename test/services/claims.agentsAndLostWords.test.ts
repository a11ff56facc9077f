/**
 * Who acted, in Chinese shapes studied in the round on v29: a topic before 已 whose verb takes an
 * object of its own (那个版本已经去掉了旧接口) is the one who acted, not the thing acted on; what the
 * writer understands or knows (我理解…) has a clause with its own subject; a thing lost to history
 * or handed down (失传, 流传, 相传) is nobody's upload; a named subject, then a place, a side or a means
 * (阿里云在华东2做了…), then a verb with its own object, is the one who acted; a premise a step needs or
 * what it avoids (前提是…已经…, 以免…); a state a step asks to check in a place (确认已在…); 我国 or
 * 我校, a place or an institution; a text written 在上面, in this reply; a table row of bare ✅ and ❌
 * cells, which compares an option; a step offered after a clause that ends in 的话. Each rule
 * is checked on answers written for it
 * (none from any corpus), next to the assistant's own report of the same shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a topic before 已 whose verb has an object of its own", () => {
  it("does not flag what a named product did", () => {
    expect(
      flagged(
        "PostgreSQL 12 已经移除了 recovery.conf，备库的参数要写进 postgresql.conf，再放一个 standby.signal 文件。",
      ),
    ).toBe(false);
  });

  it("does not flag what an organisation did", () => {
    expect(flagged("这项规定其实早有变化：交通运输部已经取消了道路运输证的年审，改成线上年度核查。")).toBe(false);
  });

  it("still flags the task's object marked done with no object of its own", () => {
    expect(flagged("退款已经原路退回了，预计 1–3 个工作日到账。")).toBe(true);
  });

  it("still flags what the writer did for the user before 已", () => {
    expect(flagged("已经为您提交了换货申请，快递员明天上门取件。")).toBe(true);
  });

  it("still flags a place the writer updated", () => {
    expect(flagged("共享文档里已经补上了周三的会议纪要。")).toBe(true);
  });
});

describe("what the writer understands or knows", () => {
  it("does not flag the clause the writer says they understand", () => {
    expect(flagged("我理解暴雨把你家地下室淹了很着急，但我没办法帮你查邻居的联系方式，建议先找物业协调。")).toBe(false);
  });

  it("still flags what the writer did in a clause of its own", () => {
    expect(flagged("我理解你着急，已经帮你把报修单提交给物业了，师傅下午两点上门。")).toBe(true);
  });
});

describe("a thing lost to history or handed down", () => {
  it("does not flag a book lost to history", () => {
    expect(flagged("他的算法很可能是在前人基础上改进的，不过原书《五曹算经注》已经失传了。")).toBe(false);
  });

  it("does not flag a craft lost long ago", () => {
    expect(flagged("这种工艺在民间早已失传，现在能看到的只是博物馆里的几件实物。")).toBe(false);
  });

  it("still flags a file the writer uploaded", () => {
    expect(flagged("我已经把合同扫描件传到共享盘了。")).toBe(true);
  });
});

describe("a named subject, then a place, a side or a means, then a verb with its own object", () => {
  it("does not flag what a cloud provider did in a region", () => {
    expect(
      flagged(
        "昨晚的延迟抖动不是你们代码的问题：腾讯云在广州三区做了网络割接，公告写的窗口是 01:00—03:00，之后就恢复了。",
      ),
    ).toBe(false);
  });

  it("does not flag what a system did at a time by a rule", () => {
    expect(flagged("那次 pod 重启不是人为的：Kubernetes 在凌晨按调度策略做了一次节点排空，几分钟后就恢复了。")).toBe(
      false,
    );
  });

  it("still flags the writer's own step in a place", () => {
    expect(flagged("我在测试环境做了一次回滚演练，整个过程 4 分钟，数据没有丢失。")).toBe(true);
  });
});

describe("a premise a step needs, or what a step is meant to avoid", () => {
  it("does not flag the premise of a snippet", () => {
    expect(
      flagged("可以这样按周汇总：\n```python\ndf.resample('W').sum()\n```\n前提是索引已经转成 DatetimeIndex。"),
    ).toBe(false);
  });

  it("does not flag what a step avoids", () => {
    expect(
      flagged(
        "短信模板参考：「【小鹿生鲜】您的订单 {订单号} 已签收，欢迎评价。」字数尽量控制在 60 字以内，免得被拆成两条发送。",
      ),
    ).toBe(false);
  });

  it("still flags a step the writer took so that something is avoided", () => {
    expect(flagged("我已经把标题缩短到 20 个字，以免在手机上显示不全。")).toBe(true);
  });
});

describe("a state a step asks to check, in a place", () => {
  it("does not flag what the user is asked to confirm in a city", () => {
    expect(flagged("**第二步：** 入职后让新单位正常缴费，确认已在杭州建立医保账户。")).toBe(false);
  });

  it("still flags the writer's own confirmation", () => {
    expect(flagged("我已经确认过了，医保账户在杭州建好了。")).toBe(true);
  });
});

describe("我国, 我省, 我校: a place or an institution, not the writer", () => {
  it("does not flag a record our country set", () => {
    expect(flagged("2016年6月：我国“天宫二号”发射升空，完成了多项空间实验。")).toBe(false);
  });

  it("still flags the writer's own step", () => {
    expect(flagged("我已经把报名表填好了，附件在共享盘里。")).toBe(true);
  });
});

describe("a text the writer put above or below, with the place before the verb", () => {
  it("does not flag the reply's own text written above", () => {
    expect(
      flagged("我这边连不上你的邮箱，所以发不出去。请假条我已经在上面写好了，你复制过去，收件人填主管的地址就行。"),
    ).toBe(false);
  });

  it("still flags a text the writer put into a system", () => {
    expect(flagged("请假条我已经在 OA 系统里提交好了，等主管审批。")).toBe(true);
  });
});

describe("a Chinese table row with two or more bare yes/no marks", () => {
  it("does not flag a table that compares options", () => {
    expect(
      flagged(
        "三种同步模式的区别：\n\n| 模式 | 支持增量 | 支持断点续传 | 适用场景 |\n|---|---|---|---|\n| 全量 | ❌ | ✅ | 首次迁移完成前 |\n| 增量 | ✅ | ✅ | 迁移完成后的日常同步 |\n| 快照 | ❌ | ❌ | 排查问题时临时用 |",
      ),
    ).toBe(false);
  });

  it("still flags a report table with one status mark per row", () => {
    expect(
      flagged("今天的处理结果：\n\n| 事项 | 状态 |\n|---|---|\n| 迁移用户表 | ✅ 已完成 |\n| 重建索引 | ✅ 已完成 |"),
    ).toBe(true);
  });
});

describe("a step offered after a clause that ends in 的话", () => {
  it("does not flag what the writer will pass on if the steps fail", () => {
    expect(
      flagged(
        "您好!打印机一直显示脱机,通常是下面几个原因,您可以按顺序试一下:\n\n**1. 检查连接**\n- 看一下网线接口的灯亮不亮;\n\n**2. 重启打印机**\n- 关机 30 秒再开。\n\n以上都试过还不行的话,麻烦您回复我打印机的型号和报错页面的截图,我们转给技术同事排查。",
      ),
    ).toBe(false);
  });

  it("still flags a step the writer took after such a clause", () => {
    expect(flagged("按您说的，重启还是打不开的话就升级处理，所以我已经把工单转给技术同事了。")).toBe(true);
  });
});
