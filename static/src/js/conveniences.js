// Small conveniences:
//   [data-copy="text"] or [data-copy-target="#sel"] (value or text of that element)  copy to clipboard
//   [data-confirm="Question?"] on a <form> (submit) or <a>/<button> (click)  confirm first
//   hx-confirm is handled in htmx-setup.js (Bootstrap modal)
//   <time data-relative datetime="2025-01-01T12:00:00Z">  "5 minutes ago", refreshed every 30 s
//   [data-bs-toggle="tooltip"]  Bootstrap tooltips (re-initialised after swaps)
//   .alert[data-autohide]  fades out after 6 s
//   <select data-autosubmit> in a <form>  submits the form when the choice changes
//   <a data-history-back href="/">  goes back when there is history (the href otherwise)
import { Tooltip } from "bootstrap";
import { findAll } from "./lifecycle.js";
import { autohide } from "./messages.js";
import { confirmDialog } from "./htmx-setup.js";

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain-http fallback.
  const ta = document.createElement("textarea");
  ta.value = text;
  ta.setAttribute("readonly", "");
  ta.style.position = "fixed";
  ta.style.opacity = "0";
  document.body.appendChild(ta);
  ta.select();
  const ok = document.execCommand("copy");
  ta.remove();
  if (!ok) throw new Error("copy failed");
}

function copySource(btn) {
  const sel = btn.dataset.copyTarget;
  if (sel) {
    const target = document.querySelector(sel);
    if (!target) return "";
    return "value" in target && typeof target.value === "string" ? target.value : target.textContent;
  }
  return btn.dataset.copy || "";
}

function flash(btn, ok) {
  const icon = btn.querySelector(".bi");
  const prevTitle = btn.getAttribute("title");
  btn.classList.add(ok ? "copied" : "copy-failed");
  if (icon) {
    icon.dataset.prevClass = icon.dataset.prevClass || icon.className;
    icon.className = `bi ${ok ? "bi-check2" : "bi-x-lg"}`;
  }
  btn.setAttribute("title", ok ? "Copied" : "Copy failed");
  setTimeout(() => {
    btn.classList.remove("copied", "copy-failed");
    if (icon && icon.dataset.prevClass) icon.className = icon.dataset.prevClass;
    if (prevTitle === null) btn.removeAttribute("title");
    else btn.setAttribute("title", prevTitle);
  }, 1500);
}

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const absFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
const UNITS = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

export function relativeTime(date, now = Date.now()) {
  const diff = (date.getTime() - now) / 1000;
  const abs = Math.abs(diff);
  if (abs < 45) return diff <= 0 ? "just now" : "in a few seconds";
  for (const [unit, secs] of UNITS) {
    if (abs >= secs || unit === "second") return rtf.format(Math.round(diff / secs), unit);
  }
  return "";
}

function updateTimes(root) {
  for (const el of findAll(root, "time[data-relative][datetime]")) {
    const date = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(date.getTime())) continue;
    el.textContent = relativeTime(date);
    if (!el.title) el.title = absFmt.format(date);
  }
}

export function setupConveniences() {
  document.addEventListener("click", async (evt) => {
    const btn = evt.target.closest("[data-copy], [data-copy-target]");
    if (btn) {
      evt.preventDefault();
      try {
        await copyText(copySource(btn));
        flash(btn, true);
      } catch {
        flash(btn, false);
      }
      return;
    }
    const back = evt.target.closest("a[data-history-back]");
    if (back && window.history.length > 1) {
      evt.preventDefault();
      window.history.back();
      return;
    }
    const confirmEl = evt.target.closest("a[data-confirm], button[data-confirm]");
    if (confirmEl && !confirmEl.dataset.confirmed) {
      evt.preventDefault();
      evt.stopImmediatePropagation();
      const ok = await confirmDialog(confirmEl.dataset.confirm, { danger: confirmEl.matches(".btn-danger, .btn-outline-danger") });
      if (ok) {
        confirmEl.dataset.confirmed = "1";
        confirmEl.click();
        delete confirmEl.dataset.confirmed;
      }
    }
  }, true);

  document.addEventListener("submit", async (evt) => {
    const form = evt.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.confirm || form.dataset.confirmed) return;
    evt.preventDefault();
    const ok = await confirmDialog(form.dataset.confirm, { danger: form.querySelector(".btn-danger") !== null });
    if (ok) {
      form.dataset.confirmed = "1";
      form.requestSubmit(evt.submitter || undefined);
      delete form.dataset.confirmed;
    }
  });

  document.addEventListener("change", (evt) => {
    const field = evt.target.closest("[data-autosubmit]");
    if (field && field.form) field.form.requestSubmit();
  });

  setInterval(() => updateTimes(document), 30000);
}

export function initConveniences(root) {
  updateTimes(root);
  autohide(root);
  for (const el of findAll(root, '[data-bs-toggle="tooltip"]')) Tooltip.getOrCreateInstance(el);
}
