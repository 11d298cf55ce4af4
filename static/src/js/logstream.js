// <div data-logstream data-ws-url="/ws/logs/..." [data-max-lines="5000"] [data-filename="x.log"]></div>
//
// Live log viewer over a WebSocket.
//   server -> client  {"type":"line","seq":N,"pod":"...","container":"...","ts":"...","text":"..."}
//                     {"type":"lines","lines":[<line>, ...]}      (optional batch form)
//                     {"type":"status","state":"connected|closed|error","message":"..."}
//   client -> server  {"type":"resume","after_seq":N}  on every reconnect once a line was seen
// Keeps the last data-max-lines lines (default 5000), colours each source
// (cluster/pod/container: a distinct colour per source, in order of appearance),
// follows (auto-scrolls) only while scrolled to the bottom, pause/resume toggle,
// filter box and highlight box (substring, or /regex/), download of the lines shown.
// Status messages while connected (a pod joined or left, a file's tail notice)
// are shown as dim notice lines (never filtered out, never downloaded).
// Controls are found inside the element by data attributes
// ([data-logstream-status|follow|filter|download|clear|output]) and created when absent.
import { findAll, setStatusBadge, track, wsUrl } from "./lifecycle.js";

const owned = new WeakSet();
const POD_COLOURS = 8;
// The first sources get the stylesheet's eight pod colours; more get hues a golden angle apart.
const PALETTE = ["#79c0ff", "#56d364", "#e3b341", "#d2a8ff", "#ff9bce", "#56d4dd", "#ffa657", "#a5d6ff"];
function sourceColour(i) {
  return i < PALETTE.length ? PALETTE[i] : `hsl(${Math.round((i * 137.508) % 360)}, 70%, 68%)`;
}
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

function textMatcher(value) {
  value = value.trim();
  if (!value) return null;
  const m = /^\/(.+)\/([a-z]*)$/.exec(value);
  if (m) return new RegExp(m[1], m[2].includes("i") ? "gi" : "g"); // throws on a bad pattern
  return new RegExp(value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi");
}

function shortTime(ts) {
  if (!ts) return "";
  const m = /T(\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?)/.exec(ts);
  return m ? m[1] : ts;
}

const TOOLBAR = `
  <div class="logstream-toolbar" data-logstream-toolbar>
    <span data-logstream-status class="badge">connecting</span>
    <button type="button" class="btn btn-sm btn-outline-secondary" data-logstream-follow></button>
    <div class="input-group input-group-sm logstream-filter">
      <span class="input-group-text"><i class="bi bi-funnel" aria-hidden="true"></i></span>
      <input type="search" class="form-control" placeholder="Filter (text or /regex/)" aria-label="Filter log lines" data-logstream-filter>
    </div>
    <div class="input-group input-group-sm logstream-filter">
      <span class="input-group-text"><i class="bi bi-highlighter" aria-hidden="true"></i></span>
      <input type="search" class="form-control" placeholder="Highlight (text or /regex/)" aria-label="Highlight in log lines" data-logstream-highlight>
    </div>
    <span class="logstream-count text-body-secondary small" data-logstream-count></span>
    <div class="ms-auto d-flex gap-1">
      <button type="button" class="btn btn-sm btn-outline-secondary" data-logstream-clear title="Clear the view"><i class="bi bi-eraser" aria-hidden="true"></i> Clear</button>
      <button type="button" class="btn btn-sm btn-outline-secondary" data-logstream-download title="Download the lines shown"><i class="bi bi-download" aria-hidden="true"></i> Download</button>
      <button type="button" class="btn btn-sm btn-outline-primary" data-logstream-reconnect hidden><i class="bi bi-arrow-clockwise" aria-hidden="true"></i> Reconnect</button>
    </div>
  </div>`;

class LogStream {
  constructor(el) {
    this.el = el;
    this.maxLines = Math.max(100, Number(el.dataset.maxLines) || 5000);
    this.lines = []; // bounded buffer of line objects
    this.lastSeq = null;
    this.following = el.dataset.follow !== "false";
    this.unseen = 0;
    this.filter = null;
    this.highlight = null;
    this.sources = new Map(); // "cluster/pod/container" -> colour, in order of appearance
    this.pending = [];
    this.frame = 0;
    this.retries = 0;
    this.retryTimer = null;
    this.stopped = false; // server said closed: do not auto-reconnect

    el.classList.add("logstream");
    if (!el.querySelector("[data-logstream-toolbar]")) el.insertAdjacentHTML("afterbegin", TOOLBAR);
    this.out = el.querySelector("[data-logstream-output]") || el.querySelector("pre");
    if (!this.out) {
      this.out = document.createElement("pre");
      el.appendChild(this.out);
    }
    this.out.classList.add("logstream-output");
    this.out.setAttribute("data-logstream-output", "");
    this.out.setAttribute("tabindex", "0");
    this.out.setAttribute("aria-live", "off");
    this.out.replaceChildren();
    const q = (name) => el.querySelector(`[data-logstream-${name}]`);
    this.badge = q("status");
    this.followBtn = q("follow");
    this.filterInput = q("filter");
    this.highlightInput = q("highlight");
    this.countEl = q("count");
    this.reconnectBtn = q("reconnect");

    this.followBtn?.addEventListener("click", () => this.setFollowing(!this.following));
    this.filterInput?.addEventListener("input", () => {
      clearTimeout(this.filterTimer);
      this.filterTimer = setTimeout(() => this.setFilter(this.filterInput.value), 150);
    });
    this.highlightInput?.addEventListener("input", () => {
      clearTimeout(this.highlightTimer);
      this.highlightTimer = setTimeout(() => this.setHighlight(this.highlightInput.value), 150);
    });
    q("download")?.addEventListener("click", () => this.download());
    q("clear")?.addEventListener("click", () => this.clear());
    this.reconnectBtn?.addEventListener("click", () => {
      this.stopped = false;
      this.retries = 0;
      this.connect();
    });
    this.out.addEventListener("scroll", () => {
      if (this.atBottom() && this.unseen && this.following) this.updateCount();
    });

    this.setFollowing(this.following);
    this.connect();
  }

  atBottom() {
    const o = this.out;
    return o.scrollHeight - o.scrollTop - o.clientHeight < 8;
  }

  setFollowing(on) {
    this.following = on;
    this.el.dataset.following = on ? "true" : "false";
    if (this.followBtn) {
      this.followBtn.innerHTML = on
        ? '<i class="bi bi-pause-fill" aria-hidden="true"></i> Pause'
        : '<i class="bi bi-play-fill" aria-hidden="true"></i> Resume';
      this.followBtn.setAttribute("aria-pressed", on ? "false" : "true");
      this.followBtn.title = on ? "Pause: stop updating the view" : "Resume: show new lines and scroll";
    }
    if (on) {
      this.render();
      this.out.scrollTop = this.out.scrollHeight;
    }
    this.updateCount();
  }

  setFilter(value) {
    value = value.trim();
    this.filter = null;
    this.filterInput?.classList.remove("is-invalid");
    if (value) {
      const m = /^\/(.+)\/([a-z]*)$/.exec(value);
      if (m) {
        try {
          const re = new RegExp(m[1], m[2].includes("i") ? "i" : "");
          this.filter = (l) => re.test(l.text) || re.test(l.pod || "");
        } catch {
          this.filterInput?.classList.add("is-invalid");
          return;
        }
      } else {
        const needle = value.toLowerCase();
        this.filter = (l) =>
          l.text.toLowerCase().includes(needle) ||
          (l.pod || "").toLowerCase().includes(needle) ||
          (l.container || "").toLowerCase().includes(needle);
      }
    }
    this.render();
    if (this.following) this.out.scrollTop = this.out.scrollHeight;
  }

  setHighlight(value) {
    this.highlightInput?.classList.remove("is-invalid");
    try {
      this.highlight = textMatcher(value);
    } catch {
      this.highlight = null;
      this.highlightInput?.classList.add("is-invalid");
    }
    this.render();
    if (this.following) this.out.scrollTop = this.out.scrollHeight;
  }

  passes(l) {
    return l.notice || !this.filter || this.filter(l);
  }

  shown() {
    return this.filter ? this.lines.filter((l) => this.passes(l)) : this.lines;
  }

  sourceOf(l) {
    return [l.cluster, l.pod, l.container].filter(Boolean).join("/");
  }

  colourOf(source) {
    let colour = this.sources.get(source);
    if (!colour) {
      colour = sourceColour(this.sources.size);
      this.sources.set(source, colour);
    }
    return colour;
  }

  // The text with every highlight match wrapped in <mark> (text nodes only: nothing is parsed as HTML).
  textNode(text) {
    const span = document.createElement("span");
    span.className = "log-text";
    const re = this.highlight;
    if (!re) {
      span.textContent = text;
      return span;
    }
    re.lastIndex = 0;
    let at = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (!m[0]) {
        re.lastIndex++;
        continue;
      }
      span.appendChild(document.createTextNode(text.slice(at, m.index)));
      const mark = document.createElement("mark");
      mark.className = "log-mark";
      mark.textContent = m[0];
      span.appendChild(mark);
      at = m.index + m[0].length;
    }
    span.appendChild(document.createTextNode(text.slice(at)));
    return span;
  }

  lineNode(l) {
    const row = document.createElement("span");
    row.className = "log-line";
    if (l.notice) {
      row.classList.add("log-notice", "text-body-secondary", "fst-italic");
      row.textContent = `— ${l.text}\n`;
      return row;
    }
    const source = this.sourceOf(l);
    if (source) {
      row.classList.add(`log-pod-${hash(l.pod) % POD_COLOURS}`);
      row.style.setProperty("--pod", this.colourOf(source));
      row.dataset.source = source;
    }
    if (l.ts) {
      const ts = document.createElement("span");
      ts.className = "log-ts";
      ts.textContent = shortTime(l.ts);
      ts.title = l.ts;
      row.appendChild(ts);
    }
    if (source) {
      const src = document.createElement("span");
      src.className = "log-src";
      src.textContent = source;
      src.title = source;
      if (l.cluster) src.style.maxWidth = "60ch";
      row.appendChild(src);
    }
    row.appendChild(this.textNode(l.text));
    row.appendChild(document.createTextNode("\n"));
    return row;
  }

  render() {
    const frag = document.createDocumentFragment();
    for (const l of this.shown()) frag.appendChild(this.lineNode(l));
    this.out.replaceChildren(frag);
    this.pending = [];
    this.unseen = 0;
    this.updateCount();
  }

  add(raw) {
    const seq = Number.isFinite(raw.seq) ? raw.seq : null;
    if (seq !== null) {
      if (this.lastSeq !== null && seq <= this.lastSeq) return; // duplicate after resume
      this.lastSeq = seq;
    }
    const l = {
      seq,
      cluster: raw.cluster || "",
      pod: raw.pod || "",
      container: raw.container || "",
      ts: raw.ts || "",
      text: String(raw.text ?? "").replace(ANSI, "").replace(/\r?\n$/, ""),
    };
    this.push(l);
  }

  // A status message while streaming (a pod joined or left): a notice line among the others.
  notice(text) {
    this.push({ seq: null, notice: true, cluster: "", pod: "", container: "", ts: "", text: String(text) });
  }

  push(l) {
    this.lines.push(l);
    if (this.lines.length > this.maxLines + 500) this.lines.splice(0, this.lines.length - this.maxLines);
    if (this.passes(l)) {
      if (this.following) this.pending.push(l);
      else this.unseen++;
    }
    this.schedule();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.flush();
    });
  }

  flush() {
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
    if (this.pending.length) {
      const stick = this.atBottom();
      const frag = document.createDocumentFragment();
      for (const l of this.pending.slice(-this.maxLines)) frag.appendChild(this.lineNode(l));
      this.pending = [];
      this.out.appendChild(frag);
      let extra = this.out.childElementCount - this.maxLines;
      while (extra-- > 0) this.out.firstElementChild.remove();
      if (stick) this.out.scrollTop = this.out.scrollHeight;
    }
    this.updateCount();
  }

  updateCount() {
    if (!this.countEl) return;
    const total = this.lines.length;
    const shown = this.filter ? this.out.childElementCount : total;
    let text = this.filter ? `${shown} of ${total} lines` : `${total} lines`;
    if (!this.following && this.unseen) text += ` · ${this.unseen} new`;
    this.countEl.textContent = text;
  }

  clear() {
    this.lines = [];
    this.pending = [];
    this.unseen = 0;
    this.out.replaceChildren();
    this.updateCount();
  }

  download() {
    const text = this.shown()
      .filter((l) => !l.notice)
      .map((l) => [l.ts, this.sourceOf(l), l.text].filter(Boolean).join(" "))
      .join("\n");
    const blob = new Blob([text ? `${text}\n` : ""], { type: "text/plain;charset=utf-8" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19);
    a.download = this.el.dataset.filename || `logs-${stamp}.txt`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  status(state, message) {
    setStatusBadge(this.badge, state, message);
    this.el.dataset.state = state;
    if (this.reconnectBtn) this.reconnectBtn.hidden = !(state === "closed" || state === "error");
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.closeSocket();
    this.status("connecting", this.retries ? `retry ${this.retries}` : "");
    let ws;
    try {
      ws = new WebSocket(wsUrl(this.el.dataset.wsUrl));
    } catch (err) {
      this.status("error", String(err.message || err));
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.retries = 0;
      this.status("connected");
      if (this.lastSeq !== null) ws.send(JSON.stringify({ type: "resume", after_seq: this.lastSeq }));
    });
    ws.addEventListener("message", (evt) => {
      if (this.ws !== ws || typeof evt.data !== "string") return;
      let msg;
      try {
        msg = JSON.parse(evt.data);
      } catch {
        this.add({ text: evt.data });
        return;
      }
      if (msg.type === "line") this.add(msg);
      else if (msg.type === "lines" && Array.isArray(msg.lines)) msg.lines.forEach((l) => this.add(l));
      else if (msg.type === "status") {
        if (msg.state === "closed") this.stopped = true;
        this.status(msg.state || "connected", msg.message || "");
        if (msg.message) this.notice(msg.message);
      }
    });
    ws.addEventListener("error", () => {
      if (this.ws === ws) this.status("error", "connection failed");
    });
    ws.addEventListener("close", (evt) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) {
        // The server already said why (status message); keep it, offer reconnect.
        if (this.el.dataset.state !== "closed" && this.el.dataset.state !== "error") this.status("closed", evt.reason);
        if (this.reconnectBtn) this.reconnectBtn.hidden = false;
        return;
      }
      if (evt.code === 1000 || evt.code >= 4000) {
        // Normal end, or an application close code (4xxx: e.g. not allowed).
        this.status(evt.code >= 4000 ? "error" : "closed", evt.reason || (evt.code >= 4000 ? `code ${evt.code}` : ""));
        return;
      }
      // Unexpected drop: retry with backoff (1s, 2s, 4s ... 30s), 10 times.
      if (this.retries >= 10) {
        this.status("error", "gave up reconnecting");
        return;
      }
      const delay = Math.min(30000, 1000 * 2 ** this.retries);
      this.retries++;
      this.status("closed", `reconnecting in ${Math.round(delay / 1000)}s`);
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  closeSocket() {
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, "client closed");
  }

  dispose() {
    clearTimeout(this.retryTimer);
    cancelAnimationFrame(this.frame);
    this.closeSocket();
  }
}

export function initLogStreams(root) {
  for (const el of findAll(root, "[data-logstream][data-ws-url]")) {
    if (owned.has(el)) continue;
    owned.add(el);
    const widget = new LogStream(el);
    el.pinLogStream = widget;
    track(el, () => widget.dispose());
  }
}
