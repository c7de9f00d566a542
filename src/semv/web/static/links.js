// semv reviewer UI: "verify a link" (POST /api/cases/from-url). Plain DOM, textContent only;
// a queued job joins the jobs table on the next load of the page.
"use strict";

(function () {
  function setup() {
    const form = document.getElementById("link-form");
    if (!form) return;
    const status = document.getElementById("link-status");
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const csrf = document.querySelector('meta[name="csrf-token"]').content;
      status.className = "";
      status.textContent = "fetching the page…";
      const resp = await fetch("/api/cases/from-url", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        credentials: "same-origin",
        body: JSON.stringify({
          url: form.elements.url.value.trim(),
          text_only: form.elements.text_only.checked,
        }),
      });
      let body = null;
      try {
        body = await resp.json();
      } catch (_e) {
        body = null;
      }
      if (!resp.ok) {
        const detail = body && typeof body.detail === "string" ? body.detail : resp.status + " " + resp.statusText;
        status.className = "error";
        status.textContent = "refused: " + detail;
        return;
      }
      status.textContent =
        "queued " + body.jobs.length + " job(s): " + body.case.case_id + " — claim: " + body.case.claim;
      window.setTimeout(() => window.location.reload(), 800);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
