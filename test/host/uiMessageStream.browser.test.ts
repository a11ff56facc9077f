import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toUIMessageStreamResponse } from "../../src/host/uiMessageStream.js";
import { AgentRuntime, type RunHandle } from "../../src/runtime/AgentRuntime.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import { CASES } from "../support/fakeServers/cases.js";
import type { FakeServer } from "../support/fakeServers/shared.js";
import { FAST_RETRY } from "../support/runtimeHarness.js";

/**
 * A browser chat on the UI Message Stream, end to end in headless Chromium: a page in plain
 * JavaScript (fetch and the stream's `data:` frames, no bundler) posts a message to a host
 * endpoint that starts a real run (the OpenAI chat provider streaming from a fake server) and
 * answers with `toUIMessageStreamResponse`. The page shows the text as it streams, an Approve
 * button for the call that waits, posts the decision to the host's endpoint (which calls
 * `run.approve`), and shows the run's terminal state from the finish chunk's metadata.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `uiMessageStream.browser.test: ${CHROMIUM} is absent, so the real-browser chat test is skipped (.ci/run installs it)`,
  );
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>chat</title></head>
<body>
<form id="ask"><input id="input" value="Send the report to #ops."><button>Send</button></form>
<div id="message" data-deltas="0"></div>
<p>State: <span id="state">idle</span></p>
<script>
const message = document.getElementById("message");
const el = (tag, attrs, text) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
};
let runId;
function show(chunk) {
  switch (chunk.type) {
    case "start": runId = chunk.messageId; document.getElementById("state").textContent = "running"; break;
    case "text-start": message.append(el("p", { id: "text-" + chunk.id, class: "text" }, "")); break;
    case "text-delta":
      document.getElementById("text-" + chunk.id).textContent += chunk.delta;
      message.dataset.deltas = String(Number(message.dataset.deltas) + 1);
      break;
    case "tool-input-available":
      message.append(el("div", { id: "tool-" + chunk.toolCallId, class: "tool" },
        chunk.toolName + " " + JSON.stringify(chunk.input)));
      break;
    case "tool-approval-request": {
      const button = el("button", { id: "approve-" + chunk.toolCallId }, "Approve");
      button.onclick = async () => {
        button.disabled = true;
        await fetch("/approve", { method: "POST", body: JSON.stringify({ runId, approvalId: chunk.approvalId, approved: true }) });
      };
      document.getElementById("tool-" + chunk.toolCallId).append(button);
      break;
    }
    case "tool-output-available": document.getElementById("tool-" + chunk.toolCallId).dataset.state = "done"; break;
    case "tool-output-denied": document.getElementById("tool-" + chunk.toolCallId).dataset.state = "denied"; break;
    case "tool-output-error": document.getElementById("tool-" + chunk.toolCallId).dataset.state = "error"; break;
    case "finish": document.getElementById("state").textContent = chunk.messageMetadata.terminalState; break;
  }
}
document.getElementById("ask").onsubmit = async (event) => {
  event.preventDefault();
  const response = await fetch("/chat", { method: "POST", body: JSON.stringify({ text: document.getElementById("input").value }) });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\\n\\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (!frame.startsWith("data: ")) continue;
      const data = frame.slice(6);
      if (data !== "[DONE]") show(JSON.parse(data));
    }
  }
};
</script>
</body></html>`;

let dir: string;
let provider: FakeServer;
let runtime: AgentRuntime;
let server: Server;
let origin: string;
let browser: Browser;
const runs = new Map<string, RunHandle>();
const chat = CASES.find((providerCase) => providerCase.name === "openai-chat")!;

const bodyOf = async (request: IncomingMessage): Promise<Record<string, unknown>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
};

beforeAll(async () => {
  if (!hasChromium) return;
  dir = mkdtempSync(join(tmpdir(), "agentloop-ui-browser-"));
  provider = await chat.start();
  runtime = await AgentRuntime.make({
    database: join(dir, "ledger.db"),
    retry: FAST_RETRY,
    provider: chat.make(provider),
  });
  // The host: the page, a chat endpoint answering with the run's UI Message Stream, and the
  // endpoint the page's Approve button posts to.
  server = createServer(async (request, response) => {
    if (request.method === "GET" && request.url === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
      return;
    }
    if (request.method === "POST" && request.url === "/chat") {
      const { text } = await bodyOf(request);
      const handle = runtime.startRun({
        sessionId: "browser",
        input: String(text),
        contract: { evidenceMode: "deliver", requiredToolNames: ["send_message"] },
        tools: [
          fixtureTool({
            name: "send_message",
            kind: "deliver",
            outcomes: [{ status: "ok", output: { sent: true }, evidence: { message_id: "m-1" } }],
          }),
        ],
        approval: { kinds: ["deliver"] },
      });
      runs.set(handle.runId, handle);
      const answer = toUIMessageStreamResponse(handle);
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      Readable.fromWeb(answer.body! as never).pipe(response);
      return;
    }
    if (request.method === "POST" && request.url === "/approve") {
      const { runId, approvalId, approved } = await bodyOf(request);
      const handle = runs.get(String(runId));
      if (!handle) {
        response.writeHead(404).end();
        return;
      }
      await (approved ? handle.approve(String(approvalId)) : handle.deny(String(approvalId)));
      response.writeHead(204).end();
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await runtime?.dispose();
  await provider?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasChromium)("a browser chat on the UI Message Stream, in headless Chromium", () => {
  it("shows the streamed text, asks for the approval, sends it back to the host, and shows the run completed", async () => {
    provider.enqueue(
      chat.wire.stream({
        text: ["I will ", "send the report."],
        calls: [{ id: "c1", name: "send_message", arguments: '{"channel": "ops", "text": "report"}' }],
      }),
      chat.wire.stream({ text: ["Sent the report ", "(message m-1)."] }),
    );
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      await page.click("#ask button");

      const approve = page.locator("#approve-c1");
      await approve.waitFor({ timeout: 10_000 });
      expect(await page.locator(".text").first().textContent()).toBe("I will send the report.");
      expect(await page.locator("#tool-c1").textContent()).toContain('send_message {"channel":"ops","text":"report"}');
      // The run waits for the decision: nothing ran yet.
      expect(await page.locator("#state").textContent()).toBe("running");
      expect(await page.locator("#tool-c1").getAttribute("data-state")).toBeNull();

      await approve.click();
      await page.locator("#state", { hasText: "completed" }).waitFor({ timeout: 10_000 });
      expect(await page.locator("#tool-c1").getAttribute("data-state")).toBe("done");
      expect(await page.locator(".text").last().textContent()).toBe("Sent the report (message m-1).");
      expect(Number(await page.locator("#message").getAttribute("data-deltas"))).toBe(4);
      const [handle] = [...runs.values()];
      expect((await handle!.result).terminalState).toBe("completed");
    } finally {
      await page.close();
    }
  });
});
