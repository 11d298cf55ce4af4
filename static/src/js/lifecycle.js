// Page lifecycle helpers shared by the widgets.

const callbacks = [];
const disposers = new Set(); // {el, dispose}

/** Run fn(document) on load and after every htmx swap/settle or history restore. */
export function onContent(fn) {
  callbacks.push(fn);
}

function runAll() {
  sweep();
  for (const fn of callbacks) {
    try {
      fn(document);
    } catch (err) {
      console.error("[pinconsole] init failed", err);
    }
  }
}

/** Register a widget so it gets disposed when its element leaves the DOM. */
export function track(el, dispose) {
  const entry = { el, dispose };
  disposers.add(entry);
  return () => {
    if (disposers.delete(entry)) dispose();
  };
}

/** Dispose of every tracked widget whose element is no longer in the document. */
export function sweep() {
  for (const entry of [...disposers]) {
    if (!entry.el.isConnected) {
      disposers.delete(entry);
      try {
        entry.dispose();
      } catch (err) {
        console.error("[pinconsole] dispose failed", err);
      }
    }
  }
}

/** Elements matching selector inside root, including root itself. */
export function findAll(root, selector) {
  const found = [];
  if (root.nodeType === 1 && root.matches(selector)) found.push(root);
  if (root.querySelectorAll) found.push(...root.querySelectorAll(selector));
  return found;
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", runAll, { once: true });
} else {
  queueMicrotask(runAll);
}
document.addEventListener("htmx:afterSettle", runAll);
document.addEventListener("htmx:historyRestore", runAll);
// Elements htmx is about to remove: dispose eagerly (before the DOM is gone).
document.addEventListener("htmx:beforeCleanupElement", () => queueMicrotask(sweep));
window.addEventListener("pagehide", (evt) => {
  if (!evt.persisted) for (const entry of [...disposers]) entry.dispose();
});

/** Resolve data-ws-url to an absolute ws:// or wss:// URL matching the page protocol. */
export function wsUrl(raw) {
  if (/^wss?:\/\//i.test(raw)) return raw;
  const url = new URL(raw, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

const STATUS_CLASSES = {
  connecting: "text-bg-info",
  connected: "text-bg-success",
  closed: "text-bg-secondary",
  error: "text-bg-danger",
};

/** Show a connection state in a [data-*-status] badge. */
export function setStatusBadge(badge, state, message) {
  if (!badge) return;
  badge.classList.add("badge", "conn-status");
  for (const cls of Object.values(STATUS_CLASSES)) badge.classList.remove(cls);
  badge.classList.add(STATUS_CLASSES[state] || "text-bg-secondary");
  badge.dataset.state = state;
  badge.textContent = message ? `${state}: ${message}` : state;
  badge.title = message || state;
}
