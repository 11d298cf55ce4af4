// Drafts that survive a reload: <form data-draft-key="..."> with one [data-draft-field] (the catalog's YAML, which
// holds everything its form shows). The field's value is kept in localStorage under the key and the page's
// address (a ?project= link has a draft of its own); on load a kept draft that differs from what the server
// rendered is put back and an "input" event lets the field's own htmx trigger re-render the rest. A form answered
// with HX-Redirect (created) forgets its draft; [data-draft-reset] forgets it and reloads.
import { findAll } from "./lifecycle.js";

const PREFIX = "pinconsole:draft:";

function storageKey(form) {
  return `${PREFIX}${form.dataset.draftKey}:${window.location.pathname}${window.location.search}`;
}

function field(form) {
  return form.querySelector("[data-draft-field]");
}

function read(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null; // storage disabled: no drafts
  }
}

function write(key, value) {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // storage full or disabled: the draft is not kept
  }
}

function save(form) {
  const input = field(form);
  if (input) write(storageKey(form), input.value);
}

function restore(form) {
  const input = field(form);
  const kept = read(storageKey(form));
  if (!input || kept === null || kept === input.defaultValue) return; // defaultValue: what the server rendered
  // After htmx has processed the field: its "changed" filter compares with the value it saw then.
  setTimeout(() => {
    input.value = kept;
    form.dataset.draftRestored = "";
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }, 0);
}

export function initDrafts(root) {
  for (const form of findAll(root, "form[data-draft-key]")) {
    if (form.dataset.draftArmed !== undefined) continue;
    form.dataset.draftArmed = "";
    restore(form);
    form.addEventListener("input", (evt) => {
      if (evt.target.matches("[data-draft-field]")) save(form);
    });
    // After every swap inside the form (a form change rewrote the YAML pane): keep what it shows now.
    form.addEventListener("htmx:afterSettle", () => save(form));
    form.addEventListener("htmx:afterRequest", (evt) => {
      if (evt.detail.successful && evt.detail.xhr.getResponseHeader("HX-Redirect")) write(storageKey(form), null);
    });
    form.addEventListener("click", (evt) => {
      if (!evt.target.closest("[data-draft-reset]")) return;
      write(storageKey(form), null);
      window.location.reload();
    });
  }
}
