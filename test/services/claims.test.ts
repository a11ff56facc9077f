import { describe, expect, it } from "vitest";
import type { ExecutionReceipt } from "../../src/domain/index.js";
import { type ClaimKind, detectClaims, unbackedClaims } from "../../src/services/claims.js";

/** Labelled sentences: the claim kind a sentence makes, or null when it claims no action. */
const LABELLED: ReadonlyArray<readonly [string, ClaimKind | null]> = [
  // English claims
  ["I have checked config.yaml: debug is enabled.", "observe"],
  ["I've read the file and it has 42 lines.", "observe"],
  ["I have verified that the service is up.", "observe"],
  ["I looked up the order and it shipped.", "observe"],
  ["I have updated README.md with the new section.", "mutate"],
  ["I've written the migration to db/0003.sql.", "mutate"],
  ["I ran the tests and they all pass.", "observe"],
  ["I have tested the change locally.", "observe"],
  ["I fixed the typo in the config.", "mutate"],
  ["The file has been updated.", "mutate"],
  ["Successfully deleted the temporary files.", "mutate"],
  ["I have sent the weekly report to #ops.", "deliver"],
  ["Sent the report to #ops.", "deliver"],
  ["The message has been sent.", "deliver"],
  ["I've published the release notes.", "deliver"],
  ["I committed the change to main.", "mutate"],
  ["We have pushed the branch.", "deliver"],
  // English non-claims: negated, future, conditional, hypothetical, history, imperatives, facts
  ["I read that paper last year.", null],
  ["I will send the report tomorrow.", null],
  ["I could not read the file.", null],
  ["I couldn't send the message because the channel is missing.", null],
  ["I have not checked the logs yet.", null],
  ["I can update the config if you want.", null],
  ["Let me check the file first.", null],
  ["Read the file with cat to see its contents.", null],
  ["Run the tests with npm test.", null],
  ["A write-ahead log records changes before they are applied.", null],
  ["The bug was fixed in version 3.2 of the library.", null],
  ["If I have sent it already, you will see it in #ops.", null],
  ["You should update the dependency.", null],
  ["Photosynthesis converts light into chemical energy.", null],
  // Chinese claims
  ["已发送周报到 #ops。", "deliver"],
  ["我已经检查了配置文件。", "observe"],
  ["已读取 config.yaml，debug 为 true。", "observe"],
  ["我修改了配置文件。", "mutate"],
  ["测试已运行，全部通过；已运行测试。", "mutate"],
  ["代码已提交到主分支。", "deliver"],
  ["文件已更新。", "mutate"],
  // Chinese non-claims
  ["尚未发送。", null],
  ["我将发送报告。", null],
  ["我无法读取该文件。", null],
  ["稍后我会检查日志。", null],
  ["去年我读过这篇论文。", null],
  ["光合作用把光能转化为化学能。", null],
  ["你可以运行 npm test 来测试。", null],
];

function firstKind(sentence: string): ClaimKind | null {
  return detectClaims(sentence)[0]?.kind ?? null;
}

describe("claim detector", () => {
  it("holds at least 40 labelled sentences in English and Chinese", () => {
    expect(LABELLED.length).toBeGreaterThanOrEqual(40);
    expect(LABELLED.some(([text]) => /[\u4e00-\u9fff]/.test(text))).toBe(true);
  });

  it.each(LABELLED)("labels %j as %s", (sentence, kind) => {
    expect(firstKind(sentence)).toBe(kind);
  });

  it("reaches precision 1.0 and recall of at least 0.9 on the labelled set", () => {
    let truePositive = 0;
    let falsePositive = 0;
    let falseNegative = 0;
    for (const [sentence, kind] of LABELLED) {
      const found = firstKind(sentence);
      if (found !== null && kind !== null) truePositive += 1;
      else if (found !== null && kind === null) falsePositive += 1;
      else if (found === null && kind !== null) falseNegative += 1;
    }
    const precision = truePositive / (truePositive + falsePositive);
    const recall = truePositive / (truePositive + falseNegative);
    console.log(
      `claim detector: ${LABELLED.length} sentences, precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)}`,
    );
    expect(precision).toBe(1);
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });

  it("finds one claim per claiming sentence of a longer answer", () => {
    const claims = detectClaims("Here is the summary. I have checked the logs. I have sent the report to #ops.");
    expect(claims.map((claim) => claim.kind)).toEqual(["observe", "deliver"]);
  });
});

function receipt(toolName: string, status: ExecutionReceipt["status"]): ExecutionReceipt {
  return {
    receiptId: `r:${toolName}`,
    runId: "r",
    callId: `c-${toolName}`,
    toolName,
    status,
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:00:00.000Z",
    inputFingerprint: "0".repeat(64),
    evidence: {},
    verificationStatus: status === "ok" ? "verified" : "unverified",
  };
}

describe("unbacked claims", () => {
  const kinds = { read_file: "observe", write_file: "mutate", send_message: "deliver" } as const;

  it("treats an observe claim as backed by any successful receipt", () => {
    const claims = detectClaims("I have checked the file.");
    expect(unbackedClaims(claims, [receipt("write_file", "ok")], kinds)).toEqual([]);
  });

  it("needs a successful deliver receipt to back a delivery claim", () => {
    const claims = detectClaims("I have sent the report.");
    expect(unbackedClaims(claims, [receipt("read_file", "ok")], kinds)).toHaveLength(1);
    expect(unbackedClaims(claims, [receipt("send_message", "ok")], kinds)).toEqual([]);
  });

  it("never lets an error, timed-out or cancelled receipt back a claim", () => {
    const claims = detectClaims("I have updated the file.");
    for (const status of ["error", "timed_out", "cancelled"] as const) {
      expect(unbackedClaims(claims, [receipt("write_file", status)], kinds)).toHaveLength(1);
    }
  });
});
