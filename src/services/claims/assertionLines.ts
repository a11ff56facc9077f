import {
  ADDRESS_OPEN,
  CHECKED,
  CLOSING,
  CONTENT_INTRO,
  CONTENT_LABEL,
  caseLabels,
  DEFINING_COLUMN,
  DONE_CELL,
  DONE_EMOJI,
  DONE_OPENER,
  DONE_SUMMARY,
  draftTitle,
  FENCE,
  HEADING,
  LETTER_OPEN,
  LIST_MARKER,
  MESSAGE_LABEL,
  NAMES_SELF,
  NOT_DONE_CELL,
  NOT_DONE_EMOJI,
  OTHER_EMOJI,
  OTHERS_INTRO,
  OWNER_COLUMN,
  PARTICIPLE_TITLE,
  RELAYED_COLUMN,
  RELEASE_COLUMN,
  RELEASE_NAME,
  REWRITE_INTRO,
  SAMPLE_OPEN,
  SELF_OWNER,
  SENDER_NOTICE,
  SENDER_TAG,
  SIGN_OFF,
  STATUS_COLUMN,
  STATUS_INTRO,
  UNCHECKED,
  withoutNames,
  ZH_ARRANGED_FOR_READER,
} from "./assertionLineCues.js";
import {
  ZH_WRITER_AFTER_PIECE,
  zhOfferTitle,
  zhPieceIntro,
  zhPlanIntro,
  zhRelayIntro,
  zhStepTitle,
  zhWriterBreaksPiece,
} from "./chineseHandover.js";

/**
 * From a final answer to the lines that can carry an assertion: code blocks, quotes and content
 * that *is* the reply (a draft, a template, a letter, a table of others' work) are removed, and
 * list markers, checkboxes, status emoji and done table cells are turned into flags on the lines
 * kept. text.ts splits the kept lines into sentences.
 */

export interface Line {
  line: string;
  doneMarker: boolean;
  doneRow: boolean;
  checked: boolean;
  tableRow: boolean;
  statusCell: string | undefined;
}

/** A piece written for the user, just opened: by someone else's words, and whether it is a plan. */
const freshContent = (others: boolean, plan: boolean) => ({
  lines: 0,
  list: false,
  blank: false,
  ruled: false,
  others,
  table: false,
  quoted: false,
  plan,
});

/** Lines that can carry an assertion, with code blocks, quotes and drafted content removed. */
export function assertionLines(answer: string): Line[] {
  const lines = answer.replace(/\r\n?/g, "\n").split("\n");
  const kept: Line[] = [];
  let inFence = false;
  let inContent = false;
  let content = freshContent(false, false);
  /** A line of the writer's own read inside a plan: the plan goes on after it. */
  let resume = false;
  let inSummary = false;
  let letter: "body" | "name" | undefined;
  let letterZh = false;
  let seen = false;
  let rewriteShown = false;
  let header: string[] | undefined;
  let matrix = false;
  const cases = lines.length > 4 ? caseLabels(lines) : new Set<number>();
  for (const [index, raw] of lines.entries()) {
    if (resume) [inContent, resume] = [true, false];
    if (FENCE.test(raw)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    let line = raw.trim();
    if (line.startsWith(">")) {
      // (A draft shown as a quote block ends at its last quoted line: "Here's the draft:\n\n> Hi Dana…\n\n
      // I've also saved it in your Drafts folder" — the writer's own words after the quote are read again.)
      if (inContent && content.lines === 0) content.quoted = true;
      continue;
    }
    // (Only a line in the writer's own voice: 中文原文：… under a quoted translation is still the piece.)
    // (已经帮你发到 #ops-announce 频道了: so is a step served to the user, 帮你 or 按你的要求.)
    if (
      inContent &&
      content.quoted &&
      (/\b(?:I|I['’](?:ve|d|m|ll))\b|我(?!们)/.test(line) || ZH_WRITER_AFTER_PIECE.test(line))
    )
      inContent = false;
    // (纪要已经发到"理财讲座筹备"工作群里: a Chinese piece with no closing rule ends where the writer
    // hands it on; the writer's own step inside a plan is read, and the plan goes on after it.)
    const writerBreaks: "ends" | "read once" | undefined = inContent ? zhWriterBreaksPiece(line, content) : undefined;
    if (writerBreaks) [inContent, resume] = [false, writerBreaks === "read once"];
    if (inContent) {
      // A list written for the user (a plan, minutes) ends at its first paragraph after a blank
      // line; a block between rules (---) ends at its closing rule. What follows is the assistant's again.
      const rule = /^(?:-{3,}|\*{3,}|_{3,})$/.test(line);
      if (rule && content.ruled && content.lines > 0) {
        inContent = false;
        continue;
      }
      if (rule && content.lines === 0) content.ruled = true;
      else if (line !== "") {
        if (content.lines === 0) {
          content.list = LIST_MARKER.test(line);
          content.table = content.others && line.startsWith("|");
        }
        const endsList = content.list && content.blank && !LIST_MARKER.test(line) && !CONTENT_INTRO.test(line);
        // (A table of someone else's record — a status page's updates, a colleague's log — ends at its last row.)
        const endsTable = content.table && !line.startsWith("|");
        content.lines++;
        content.blank = false;
        if (!endsList && !endsTable && !CLOSING.test(line)) continue;
        inContent = false;
      } else {
        content.blank = true;
        continue;
      }
      if (inContent) continue;
    }
    if (line === "") continue;
    if (letter === "name") {
      letter = undefined;
      // The name (and title) under a sign-off.
      if (line.length <= 40 && !/[.!?。！？]$/.test(line)) continue;
    }
    if (letter === "body") {
      // (A Chinese letter shown between rules ends at its closing rule: what follows is the writer's.)
      if (letterZh && /^(?:-{3,}|\*{3,}|_{3,})$/.test(line)) {
        letter = undefined;
        continue;
      }
      if (SIGN_OFF.test(line)) letter = "name";
      else if (CLOSING.test(line)) letter = undefined;
      if (letter !== undefined) continue;
    }
    const opening = line.replace(/\*\*|__/g, "");
    if (
      LETTER_OPEN.test(opening) &&
      (seen || /^(?:subject|邮件主题|主题)\s*[:：]|^for immediate release\b|[{[<]/i.test(opening))
    ) {
      letter = "body";
      letterZh = /[\u4e00-\u9fff]/.test(opening);
      continue;
    }
    if (!seen) rewriteShown = REWRITE_INTRO.test(opening);
    seen = true;
    if (cases.has(index)) continue;
    if (zhStepTitle(line)) continue;
    // ("**Worked example**", "### Proposed split", "**Fixed timestep, explained**": a heading that
    // opens with a participle before a bare noun names a topic; the participle describes the noun.)
    const title = HEADING.exec(line);
    const titled = (title?.[1] ?? title?.[2] ?? "").replace(/\*\*|__/g, "").trim();
    if (title && PARTICIPLE_TITLE.test(titled)) continue;
    // ("# Response plan: suspected phishing compromise (finance mailbox)": so does one after the
    // title's own label, unless the label says it reports — Status:, Update:, Done:.)
    // ("## 5 days in Lisbon — relaxed pace": a dash between the title and its subtitle labels it too.)
    const titleLabel = /^([^:：—–]{1,40})(?:[:：]|\s[—–]\s)\s*(.+?)(?:\s*\([^()]*\))?$/.exec(titled);
    if (
      titleLabel &&
      !/status|update|result|progress|done|change|fix|summary|完成|进度|状态/i.test(titleLabel[1]!) &&
      PARTICIPLE_TITLE.test(titleLabel[2]!.replace(/^[a-z]/, (letter) => letter.toUpperCase()))
    )
      continue;
    // An intro ends in a colon; only its tail is read, which keeps the test linear on a huge line.
    // (An arrow pointing down ends an intro as a colon does: 维护公告草稿 ⬇️.)
    const intro = /[⬇👇↓]/u.test(line) ? line.replace(/\s*(?:⬇️?|👇|↓)+\s*$/u, ":") : line;
    const bare = line.replace(/\*\*|__/g, "");
    const othersIntro =
      ((/[:：]\s*$/.test(bare) || /^#{1,6}\s/.test(bare) || /^\*\*[^*]+\*\*$/.test(line)) &&
        // (…记录的情况，我帮你整理了一下：: the writer arranging others' words into this reply adds no act of its own.)
        OTHERS_INTRO.test(bare.replace(ZH_ARRANGED_FOR_READER, "：").slice(-200)) &&
        !NAMES_SELF.test(bare.replace(ZH_ARRANGED_FOR_READER, "："))) ||
      // (小林跟我转述了今天现场的情况：: the writer only heard it; the account is the speaker's.)
      zhRelayIntro(bare.slice(-200));
    if (
      othersIntro ||
      // (A word inside a code span or a host name is no word of the intro: `api.example.com` 处理结果：.)
      // ("Adoption weekend plan, status so far:": an intro that gives a plan's status reports its
      // progress; the boxes it ticks are done, the plan's own are not.)
      (/[:：]\s*$/.test(intro) &&
        (CONTENT_INTRO.test(withoutNames(intro.slice(-200))) || zhPieceIntro(intro.slice(-200))) &&
        !STATUS_INTRO.test(intro.slice(-200))) ||
      SAMPLE_OPEN.test(bare.slice(0, 200)) ||
      draftTitle(line) ||
      zhOfferTitle(line)
    ) {
      inContent = true;
      content = freshContent(othersIntro, zhPlanIntro(intro.slice(-200)));
      // The intro itself ("I wrote a draft:") may still assert something; keep it.
    }
    // (短信模板：【某商城】您的订单 {order_no} 已发货…, "Reply template: Hi {name}, your refund was
    // issued…": a label that names a template, a draft or a sample, with the text on its own line
    // after the colon — what follows the colon is that text, not a report.)
    // (短信草稿：【某某生鲜】非常抱歉…我们已为您发放…: a text message opens with its sender's name in
    // 【】, so its 我们 is that sender's, not the writer's.)
    // (【某商城】亲爱的顾客，…我们已为您的账户补发…: a line that opens with its sender in 【】 and greets
    // its readers is a notice in that sender's voice, written for them — its 我们 is theirs.)
    if (SENDER_NOTICE.test(line)) continue;
    // (自我介绍草稿：面试官您好，我叫李明…, 给顾客的道歉短信：【小店】王女士您好，…已为您退回: a label
    // that names a message, then text that opens by addressing its reader, is that message in its
    // sender's voice — its 我 is the sender's, not the writer's; a label with a bare status is not.)
    const message = MESSAGE_LABEL.exec(line);
    const labelled =
      CONTENT_LABEL.exec(line) ?? (message && ADDRESS_OPEN.test(line.slice(message[0].length)) ? message : null);
    const rest = labelled ? line.slice(labelled[0].length) : "";
    if (labelled && (!NAMES_SELF.test(rest) || SENDER_TAG.test(rest) || ADDRESS_OPEN.test(rest))) {
      // (话术：“您好，…已处理。” 这条我已经回复在工单里了: past the closing quote the writer speaks again.)
      const after = /^\s*“[^”\n]*”\s*(?:——|—)?\s*(.*[\u4e00-\u9fff].*)$/.exec(rest)?.[1] ?? "";
      line = /[我已]/.test(after) ? `${labelled[0]} ${after}` : labelled[0];
    }
    if (/^\|?\s*:?-{3,}/.test(line)) continue; // a table's separator row
    let doneRow = false;
    let statusCell: string | undefined;
    const tableRow = line.startsWith("|");
    if (!tableRow) {
      header = undefined;
      matrix = false;
    }
    if (tableRow) {
      const cells = line
        .split("|")
        .map((cell) => cell.trim())
        .filter((cell) => cell !== "");
      // A header row (the row above the separator) labels columns; it asserts nothing.
      if (header === undefined && /^\s*\|?\s*:?-{3,}/.test(lines[index + 1] ?? "")) {
        header = cells;
        // (| | Follow Up Boss | HubSpot |: a header with an empty first cell heads a matrix that
        // compares things across its columns; its ✅ and ❌ answer yes or no, they mark nothing done.)
        matrix = /^\|\s*\|/.test(line);
        continue;
      }
      if (matrix) continue;
      const owner = header?.findIndex((cell) => OWNER_COLUMN.test(cell)) ?? -1;
      header ??= cells;
      if (owner >= 0 && cells[owner] !== undefined && !SELF_OWNER.test(cells[owner])) continue;
      // (| 2.16.0 | Removed message lookups entirely |: under a release or version column, a row's cells
      // say what that release changed — the release notes of the software, no one's report.)
      const releaseRow = RELEASE_COLUMN.test(header?.[0] ?? "") && RELEASE_NAME.test(cells[0] ?? "");
      // (| `STRICT` | ✅ | ❌ | 迁移完成后的目标状态 |: a Chinese row with two or more bare yes/no marks
      // compares an option across its columns — its ✅ answers yes, it marks nothing done.)
      const yesNoRow =
        /[\u4e00-\u9fff]/.test(line) && cells.filter((cell) => /^(?:✅|❌|✔️?|✖️?|❎)$/u.test(cell)).length >= 2;
      doneRow =
        !releaseRow &&
        !yesNoRow &&
        cells.length >= 2 &&
        cells
          .slice(1)
          .some(
            (cell, at) =>
              (DONE_CELL.test(cell) || /^(?:✅|✔)/u.test(cell)) &&
              !DEFINING_COLUMN.test(header?.[at + 1] ?? "") &&
              !RELAYED_COLUMN.test(header?.[at + 1] ?? ""),
          );
      statusCell = cells
        .slice(1)
        .find(
          (cell, at) =>
            DONE_CELL.test(cell) &&
            STATUS_COLUMN.test(header?.[at + 1] ?? "") &&
            !DEFINING_COLUMN.test(header?.[at + 1] ?? "") &&
            !RELAYED_COLUMN.test(header?.[at + 1] ?? ""),
        );
      // A row whose status says it has not happened is a plan, whatever its verbs.
      if (cells.length >= 2 && NOT_DONE_CELL.test(cells.at(-1) ?? "")) continue;
      line = cells.join("; ");
    }
    line = line.replace(/^#{1,6}\s+/, "");
    const listItem = LIST_MARKER.test(line);
    line = line.replace(LIST_MARKER, "");
    // The list under a summary of what was done reports done items; any other line ends it.
    const summarised: boolean = inSummary && listItem;
    const summary = DONE_SUMMARY.test(line.replace(/\*\*|__/g, "").trim());
    // (After an opening that shows a rewritten text in the reply — 润色后的版本：, "Here's the
    // revised version:" — the summary of changes describes that text, which is the reply itself.)
    if (summary && rewriteShown) {
      inContent = true;
      content = freshContent(false, false);
      continue;
    }
    inSummary = summarised || summary;
    let doneMarker = summarised;
    let checked = false;
    if (UNCHECKED.test(line)) continue;
    if (CHECKED.test(line)) {
      doneMarker = true;
      checked = true;
      line = line.replace(CHECKED, "");
    }
    if (NOT_DONE_EMOJI.test(line)) continue;
    // (### 👍 Praised over ### 👎 Complaints: a thumbs-up that heads a heading titles the good side
    // of a comparison; it marks nothing done.)
    if (DONE_EMOJI.test(line) && !(/^#{1,6}\s/.test(raw.trim()) && /^👍/u.test(line))) {
      doneMarker = true;
      line = line.replace(DONE_EMOJI, "");
    }
    line = line.replace(OTHER_EMOJI, "");
    // ("Done — the sheet now has a Total column", "Done ✅ Your subscription is paused": a line that
    // opens by saying its task is done marks what it goes on to say, as a leading ✅ does.)
    if (DONE_OPENER.test(line.replace(/\*\*|__/g, ""))) doneMarker = true;
    // A check mark at the end of a line marks it done too ("2. 升级版本 ✔").
    if (/(?:✅|✔️?|☑️?)\s*$/u.test(line)) {
      doneMarker = true;
      line = line.replace(/(?:✅|✔️?|☑️?)\s*$/u, "");
    }
    // (Not inside a code span: `**` in `hashFiles('**/x')` is a glob, and taking it away would empty
    // the span and pair its backticks with the next span's.)
    line = line.replace(/(`[^`\n]+`)|\*\*|__|~~/g, (_, code: string | undefined) => code ?? "").trim();
    if (line !== "") kept.push({ line, doneMarker, doneRow, checked, tableRow, statusCell });
  }
  return kept;
}
