// semv reviewer UI: the upload form with live job progress, and the review-batch panel.
// Plain DOM (textContent only: no HTML is ever built from data); served from the package.
"use strict";

(function () {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  async function errorText(resp) {
    try {
      const body = await resp.json();
      return typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    } catch (_e) {
      return resp.status + " " + resp.statusText;
    }
  }

  // ---- jobs: progress over server-sent events ------------------------------------------
  function followJob(jobId, row) {
    const source = new EventSource("/api/jobs/" + encodeURIComponent(jobId) + "/events");
    const update = (ev) => {
      const job = JSON.parse(ev.data);
      if (!row) return;
      row.querySelector(".job-status").textContent = job.status;
      row.querySelector("progress").max = job.total;
      row.querySelector("progress").value = job.done;
      row.querySelector(".job-count").textContent = job.done + "/" + job.total;
      const cell = row.querySelector(".job-run");
      cell.textContent = "";
      if (job.run_id) {
        cell.appendChild(el("a", { href: "/runs/" + job.run_id }, job.run_id));
      } else if (job.error) {
        cell.appendChild(el("span", { class: "error" }, job.error));
      }
    };
    source.addEventListener("progress", update);
    source.addEventListener("done", (ev) => {
      update(ev);
      source.close();
      if (row) row.dataset.finished = "yes";
    });
    source.onerror = () => source.close();
  }

  function jobRow(job) {
    let table = document.querySelector("table.jobs tbody");
    if (!table) return null;
    const row = el("tr", { "data-job": job.job_id, "data-finished": "no" });
    row.appendChild(el("td", {}, job.job_id));
    row.appendChild(el("td", {}, job.case_id));
    row.appendChild(el("td", { class: "job-status" }, job.status));
    const prog = el("td");
    prog.appendChild(el("progress", { max: String(job.total), value: "0" }));
    prog.appendChild(el("span", { class: "job-count" }, " 0/" + job.total));
    row.appendChild(prog);
    row.appendChild(el("td", { class: "job-run" }));
    table.prepend(row);
    return row;
  }

  function setupUpload() {
    const form = document.getElementById("upload");
    if (!form) return;
    const status = document.getElementById("upload-status");
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const data = new FormData();
      for (const f of document.getElementById("upload-files").files) {
        data.append("files", f, f.webkitRelativePath || f.name);
      }
      const adapter = form.elements.adapter.value.trim();
      if (adapter) data.append("adapter", adapter);
      if (form.elements.text_only.checked) data.append("text_only", "true");
      status.textContent = "uploading…";
      const resp = await fetch("/api/cases", {
        method: "POST",
        body: data,
        headers: { "X-CSRF-Token": csrf() },
        credentials: "same-origin",
      });
      if (!resp.ok) {
        status.textContent = "refused: " + (await errorText(resp));
        status.className = "error";
        return;
      }
      const body = await resp.json();
      status.className = "";
      status.textContent = "queued " + body.jobs.length + " job(s)";
      if (!document.querySelector("table.jobs")) {
        window.location.reload();
        return;
      }
      for (const job of body.jobs) followJob(job.job_id, jobRow(job));
    });
  }

  function setupJobs() {
    for (const row of document.querySelectorAll('tr[data-job][data-finished="no"]')) {
      followJob(row.dataset.job, row);
    }
  }

  // ---- the review batch ------------------------------------------------------------------
  function setupReview() {
    const panel = document.getElementById("review-panel");
    const dialog = document.getElementById("action-dialog");
    if (!panel || !dialog || !document.getElementById("apply")) return;
    const form = document.getElementById("action-form");
    const pending = [];
    const list = document.getElementById("pending");
    const empty = document.getElementById("pending-empty");
    const apply = document.getElementById("apply");
    const status = document.getElementById("apply-status");

    function render() {
      list.textContent = "";
      pending.forEach((a, i) => {
        const item = el("li", { class: "pending-action", "data-op": a.op, "data-target": a.target });
        item.appendChild(el("strong", {}, a.op + " "));
        item.appendChild(el("code", {}, a.target));
        item.appendChild(el("span", { class: "muted" }, " — " + a.reason));
        const remove = el("button", { type: "button", class: "remove" }, "remove");
        remove.addEventListener("click", () => {
          pending.splice(i, 1);
          render();
        });
        item.appendChild(remove);
        list.appendChild(item);
      });
      empty.hidden = pending.length > 0;
      apply.disabled = pending.length === 0;
    }

    function show(selector, on) {
      form.querySelector(selector).hidden = !on;
    }

    document.querySelectorAll("button.act").forEach((button) => {
      button.addEventListener("click", () => {
        const { op, target, kind } = button.dataset;
        form.reset();
        form.elements.op.value = op;
        form.elements.target.value = target;
        form.elements.kind.value = kind;
        form.elements.text.value = button.dataset.text || "";
        form.elements.cites.value = button.dataset.cites || "";
        document.getElementById("action-title").textContent = op + " " + target;
        show(".f-text", op === "edit" || op === "add");
        show(".f-stance", (op === "edit" && kind === "argument") || op === "add");
        show(".f-cites", op === "add");
        show(".f-evidence", op === "add");
        dialog.showModal();
      });
    });

    dialog.addEventListener("close", () => {
      if (dialog.returnValue !== "ok") return;
      const f = form.elements;
      const reason = f.reason.value.trim();
      if (!reason) return;
      const action = { op: f.op.value, target: f.target.value, reason: reason };
      if (f.op.value === "edit" || f.op.value === "add") {
        if (f.text.value.trim()) action.text = f.text.value.trim();
        if (f.stance.value) action.stance = f.stance.value;
      }
      if (f.op.value === "add") {
        const cites = f.cites.value.split(",").map((s) => s.trim()).filter(Boolean);
        if (cites.length) action.cites = cites;
        if (f.ev_content.value.trim()) {
          const ev = { content: f.ev_content.value.trim() };
          if (f.ev_source.value.trim()) ev.source = f.ev_source.value.trim();
          if (f.ev_url.value.trim()) ev.url = f.ev_url.value.trim();
          if (f.ev_published.value.trim()) ev.published = f.ev_published.value.trim();
          action.evidence_added = [ev];
        }
      }
      pending.push(action);
      render();
    });

    apply.addEventListener("click", async () => {
      const reviewer = document.getElementById("reviewer");
      const actions = pending.map((a) =>
        reviewer ? Object.assign({}, a, { meta: { reviewer: reviewer.value } }) : a
      );
      const batch = {
        base_run: panel.dataset.run,
        policy: document.getElementById("policy").value,
        actions: actions,
      };
      apply.disabled = true;
      status.className = "";
      status.textContent = "recomputing…";
      const resp = await fetch("/api/runs/" + encodeURIComponent(panel.dataset.run) + "/contest", {
        method: "POST",
        body: JSON.stringify(batch),
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
        credentials: "same-origin",
      });
      if (!resp.ok) {
        status.className = "error";
        status.textContent = "refused: " + (await errorText(resp));
        apply.disabled = false;
        return;
      }
      const revision = await resp.json();
      window.location.assign(revision.links.page + "#revision");
    });
    render();
  }

  document.addEventListener("DOMContentLoaded", () => {
    setupUpload();
    setupJobs();
    setupReview();
  });
})();
