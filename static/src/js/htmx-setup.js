// htmx configuration: CSRF header, global progress bar, error reporting,
// and hx-confirm through a Bootstrap modal.
import { Modal } from "bootstrap";
import { dismissProblems, showMessage } from "./messages.js";

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

function sameOrigin(path) {
  try {
    return new URL(path, window.location.href).origin === window.location.origin;
  } catch {
    return false;
  }
}

export function setupHtmx(htmx) {
  // Indicator styles live in app.css (no inline <style> injected by htmx).
  htmx.config.includeIndicatorStyles = false;
  htmx.config.defaultSettleDelay = 20;
  // Never evaluate scripts from responses we did not ask for.
  htmx.config.selfRequestsOnly = true;
  // No eval (hx-on, js: values): the Content-Security-Policy allows no inline or eval'd script anyway.
  htmx.config.allowEval = false;
  htmx.config.allowScriptTags = false;

  // data-swap-statuses="403 503" (or "4xx") on an element: error answers of its requests are swapped in like
  // successes (the server renders an inline message for them) instead of only raising the toast.
  document.addEventListener("htmx:beforeSwap", (evt) => {
    const owner = evt.detail.elt.closest("[data-swap-statuses]");
    if (!owner) return;
    const status = String(evt.detail.xhr.status);
    const wanted = owner.dataset.swapStatuses.split(/\s+/);
    if (wanted.some((w) => w === status || (w.endsWith("xx") && status[0] === w[0]))) {
      evt.detail.shouldSwap = true;
      evt.detail.isError = false;
    }
  });

  document.addEventListener("htmx:configRequest", (evt) => {
    const token = csrfToken();
    if (token && sameOrigin(evt.detail.path)) evt.detail.headers["X-CSRFToken"] = token;
  });

  setupProgressBar();

  // A new action supersedes what the last one was told: its error toast goes when the user acts again, so it never
  // stands beside the next action's success (a poll, which the user did not ask for, leaves it).
  document.addEventListener("htmx:beforeRequest", (evt) => {
    if (!isPoll(evt.detail.elt)) dismissProblems();
  });

  // A message the server sends with its answer: HX-Trigger {"show-message": {"level": "danger", "text": "..."}}
  // (base/middleware.py answers an htmx request that way instead of with a whole error page).
  document.addEventListener(MESSAGE_EVENT, (evt) => {
    if (evt.target.closest && evt.target.closest("[data-gone]")) return; // said once, by setupGoneRegions
    const { level, text } = evt.detail || {};
    if (text) showMessage(level || "info", String(text));
  });

  setupGoneRegions(htmx);

  document.addEventListener("htmx:responseError", (evt) => {
    const xhr = evt.detail.xhr;
    if (carriesMessage(xhr)) return; // shown already, in the server's words
    if (goneRegion(evt.detail.elt, xhr.status)?.hasAttribute("data-gone")) return; // said once, by setupGoneRegions
    const text = {
      400: "The request was not valid.",
      403: "You do not have permission to do that.",
      404: "That no longer exists.",
      409: "Someone else changed this in the meantime. Reload and try again.",
      429: "Too many requests. Wait a moment and try again.",
    }[xhr.status] || `The server answered ${xhr.status} ${xhr.statusText || ""}.`;
    showMessage("danger", text);
  });
  document.addEventListener("htmx:sendError", () =>
    showMessage("danger", "Could not reach the server. Check your connection and try again."),
  );
  document.addEventListener("htmx:timeout", () => showMessage("warning", "The request timed out."));

  // hx-confirm="Question?" -> Bootstrap modal instead of window.confirm().
  document.addEventListener("htmx:confirm", (evt) => {
    const question = evt.detail.question;
    if (!question) return;
    evt.preventDefault();
    const danger = evt.detail.elt.closest("[data-confirm-danger], .btn-danger, .btn-outline-danger") !== null;
    confirmDialog(question, { danger }).then((ok) => {
      if (ok) evt.detail.issueRequest(true);
    });
  });
}

const MESSAGE_EVENT = "show-message";
const GONE_STATUSES = new Set([404, 410]);

function carriesMessage(xhr) {
  try {
    return MESSAGE_EVENT in JSON.parse(xhr.getResponseHeader("HX-Trigger") || "{}");
  } catch {
    return false;
  }
}

/** The [data-gone-message] region of elt when this status means its subject is gone (deleted, or no longer ours). */
function goneRegion(elt, status) {
  if (!GONE_STATUSES.has(status) || !elt || !elt.closest) return null;
  return elt.closest("[data-gone-message]");
}

/** A poll (hx-trigger "every ...") of the page's own subject: its 404 means the subject is gone, while a 404 of
 * an action can be about something smaller (a pod that went away). */
function isPoll(elt) {
  return /(^|,)\s*every\s/.test(elt.getAttribute("hx-trigger") || "");
}

// data-gone-message="..." on a region of a page that polls (a workload's panels): the first 404 of one of its
// polls means what the page shows was deleted elsewhere or is no longer visible to this user. Every poll and
// listener in the region stops (hx-disable) and the message is shown once; answers of requests already under
// way say nothing more. Without this each poll raised a new toast.
function setupGoneRegions(htmx) {
  document.addEventListener("htmx:beforeOnLoad", (evt) => {
    const region = goneRegion(evt.detail.elt, evt.detail.xhr.status);
    if (!region || region.hasAttribute("data-gone") || !isPoll(evt.detail.elt)) return;
    region.setAttribute("data-gone", "");
    region.setAttribute("hx-disable", "");
    showMessage("warning", region.dataset.goneMessage);
    // htmx issues nothing more for an element under hx-disable (it cleans it up when triggered); processing the
    // region now clears every timer and listener at once, after this answer is handled (not half way through).
    setTimeout(() => htmx.process(region), 0);
  });
}

function setupProgressBar() {
  const inflight = new Set();
  let timer = null;
  const bar = () => document.getElementById("htmx-progress");
  const update = () => {
    const el = bar();
    if (!el) return;
    if (inflight.size > 0) {
      if (!timer && !el.classList.contains("active")) {
        // Only show for requests that take a noticeable time (no flicker).
        timer = setTimeout(() => {
          timer = null;
          if (inflight.size > 0) el.classList.add("active");
        }, 120);
      }
    } else {
      clearTimeout(timer);
      timer = null;
      el.classList.remove("active");
    }
    document.documentElement.classList.toggle("htmx-busy", inflight.size > 0);
  };
  document.addEventListener("htmx:beforeRequest", (evt) => {
    const xhr = evt.detail.xhr;
    if (!xhr) return;
    inflight.add(xhr);
    xhr.addEventListener("loadend", () => {
      inflight.delete(xhr);
      update();
    });
    update();
  });
}

let modalEl = null;

/** Promise<boolean>: Bootstrap confirm modal (falls back to window.confirm). */
export function confirmDialog(question, { danger = false, confirmLabel = "Confirm" } = {}) {
  if (!document.body) return Promise.resolve(window.confirm(question));
  if (!modalEl) {
    modalEl = document.createElement("div");
    modalEl.className = "modal fade";
    modalEl.id = "confirm-modal";
    modalEl.tabIndex = -1;
    modalEl.setAttribute("aria-hidden", "true");
    modalEl.innerHTML = `
      <div class="modal-dialog modal-dialog-centered">
        <div class="modal-content">
          <div class="modal-header"><h2 class="modal-title fs-6">Please confirm</h2>
            <button type="button" class="btn-close" data-bs-dismiss="modal" aria-label="Close"></button></div>
          <div class="modal-body" data-confirm-question></div>
          <div class="modal-footer">
            <button type="button" class="btn btn-sm btn-outline-secondary" data-bs-dismiss="modal">Cancel</button>
            <button type="button" class="btn btn-sm" data-confirm-ok></button>
          </div>
        </div>
      </div>`;
    document.body.appendChild(modalEl);
  }
  modalEl.querySelector("[data-confirm-question]").textContent = question;
  const ok = modalEl.querySelector("[data-confirm-ok]");
  ok.textContent = confirmLabel;
  ok.className = `btn btn-sm ${danger ? "btn-danger" : "btn-primary"}`;
  const modal = Modal.getOrCreateInstance(modalEl);
  return new Promise((resolve) => {
    // The answer is given on the click, not when the dialog has faded out: Bootstrap ignores hide() while the dialog
    // is still fading in, so a quick click (a fast user, Enter on the focused button) would otherwise be lost, the
    // dialog left open and the request never sent. Hiding waits for the fade-in instead.
    let shown = false;
    let settled = false;
    const settle = (answer) => {
      if (settled) return;
      settled = true;
      ok.removeEventListener("click", onOk);
      resolve(answer);
    };
    const onOk = () => {
      settle(true);
      if (shown) modal.hide();
      else modalEl.addEventListener("shown.bs.modal", () => modal.hide(), { once: true });
    };
    ok.addEventListener("click", onOk, { once: true });
    modalEl.addEventListener("hidden.bs.modal", () => settle(false), { once: true });
    modalEl.addEventListener(
      "shown.bs.modal",
      () => {
        shown = true;
        if (!settled) ok.focus();
      },
      { once: true },
    );
    modal.show();
  });
}
