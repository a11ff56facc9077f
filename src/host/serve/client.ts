/**
 * The one script of the serve pages (`/app.js`), plain browser JavaScript with no dependency.
 * Every page whose `<main>` names a `data-fragment` re-fetches that server-rendered (and
 * server-escaped) fragment when the ledger changes: `/api/stream` sends an `event: ledger` on
 * every change. A running run's page also follows the run's own SSE channel
 * (`/runs/:id/events`, src/host/channels/sse.ts) and refreshes on each of its events, until `done`;
 * a closed run's page is not refreshed.
 */
export const CLIENT_SCRIPT = `"use strict";
(() => {
  const main = document.querySelector("main");
  const live = document.querySelector("[data-testid=live]");
  let fragmentUrl = main && main.dataset.fragment;
  let busy = false;
  let again = false;
  const refresh = async () => {
    if (!fragmentUrl) return;
    if (busy) { again = true; return; }
    busy = true;
    try {
      const response = await fetch(fragmentUrl, { headers: { accept: "text/html" } });
      const target = document.getElementById("live-fragment");
      if (response.ok && target) {
        const html = await response.text();
        if (target.innerHTML !== html) target.innerHTML = html;
        // A run's page is done once the run is: its ledger rows can no longer change.
        const state = target.querySelector("[data-testid=run-state]");
        if (state && state.dataset.state !== "running") fragmentUrl = undefined;
      }
    } catch (error) {
      // The next ledger event retries.
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  };
  const show = (on, text) => {
    if (!live) return;
    live.classList.toggle("on", on);
    live.textContent = text;
  };
  const ledger = new EventSource("/api/stream");
  ledger.addEventListener("open", () => show(true, "live"));
  ledger.addEventListener("error", () => show(false, "reconnecting"));
  ledger.addEventListener("ledger", () => refresh());
  const runEvents = main && main.dataset.runEvents;
  if (runEvents && main.dataset.runState === "running") {
    const run = new EventSource(runEvents);
    run.onmessage = (message) => {
      refresh();
      try {
        if (JSON.parse(message.data).type === "done") run.close();
      } catch (error) {
        run.close();
      }
    };
  }
})();
`;
