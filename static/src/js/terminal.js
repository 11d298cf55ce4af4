// <div data-terminal data-ws-url="/ws/exec/..."></div>
//
// Becomes an xterm.js terminal (fit addon) connected to a WebSocket at
// data-ws-url (ws:// or wss:// following the page protocol).
//   client -> server  {"type":"stdin","data":"..."}
//                     {"type":"resize","cols":N,"rows":M}   (on open and on every fit)
//   server -> client  {"type":"stdout","data":"..."}        ("stderr" is accepted too)
//                     {"type":"status","state":"connected|closed|error","message":"..."}
//                     {"type":"notice","message":"..."}       (a warning line, e.g. before an idle close)
//                     binary frames: raw bytes written to the terminal
//                     any other text frame that is not JSON: written as is
// A status badge [data-terminal-status] and a reconnect button
// [data-terminal-reconnect] are looked up in the closest [data-terminal-panel]
// (else the parent element); the button is created if missing. When the session
// ends, [data-terminal-ended] (optional) says why: the server's status message or
// the close frame's reason, and the close code.
// Copy/paste: selecting text selects it in xterm.js; [data-terminal-copy] or
// Ctrl+Shift+C copies the selection to the clipboard; [data-terminal-paste] reads
// the clipboard, Ctrl+Shift+V lets the browser paste (xterm.js takes the paste event).
import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { findAll, setStatusBadge, track, wsUrl } from "./lifecycle.js";

const owned = new WeakSet();
const STDIN_PIECE = 8192; // characters per stdin message (the server's limit is 65536)

const THEME = {
  background: "#0d1117",
  foreground: "#e6edf3",
  cursor: "#e6edf3",
  selectionBackground: "#264f78",
  black: "#484f58",
  red: "#ff7b72",
  green: "#3fb950",
  yellow: "#d29922",
  blue: "#58a6ff",
  magenta: "#bc8cff",
  cyan: "#39c5cf",
  white: "#b1bac4",
  brightBlack: "#6e7681",
  brightRed: "#ffa198",
  brightGreen: "#56d364",
  brightYellow: "#e3b341",
  brightBlue: "#79c0ff",
  brightMagenta: "#d2a8ff",
  brightCyan: "#56d4dd",
  brightWhite: "#f0f6fc",
};

function panelOf(el) {
  return el.closest("[data-terminal-panel]") || el.parentElement || el;
}

class TerminalWidget {
  constructor(el) {
    this.el = el;
    const panel = panelOf(el);
    this.badge = panel.querySelector("[data-terminal-status]");
    this.ended = panel.querySelector("[data-terminal-ended]");
    this.lastMessage = "";
    this.button = panel.querySelector("[data-terminal-reconnect]");
    if (!this.button) {
      this.button = document.createElement("button");
      this.button.type = "button";
      this.button.className = "btn btn-sm btn-outline-light terminal-reconnect";
      this.button.innerHTML = '<i class="bi bi-arrow-clockwise" aria-hidden="true"></i> Reconnect';
      (this.badge ? this.badge.parentElement : panel).appendChild(this.button);
    }
    this.button.hidden = true;
    this.button.addEventListener("click", () => this.connect(true));

    el.replaceChildren(); // drop stale markup (e.g. an htmx history snapshot)
    el.classList.add("terminal-screen");
    this.term = new Terminal({
      cursorBlink: true,
      convertEol: false,
      fontFamily: 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace',
      fontSize: Number(el.dataset.fontSize) || 13,
      scrollback: Number(el.dataset.scrollback) || 5000,
      theme: THEME,
    });
    this.fit = new FitAddon();
    this.term.loadAddon(this.fit);
    this.term.open(el);

    this.term.attachCustomKeyEventHandler((e) => this.onKey(e));
    panel.querySelector("[data-terminal-copy]")?.addEventListener("click", () => this.copy());
    panel.querySelector("[data-terminal-paste]")?.addEventListener("click", () => this.pasteFromClipboard());
    this.term.onData((data) => this.sendInput(data));
    this.term.onBinary((data) => this.sendInput(data));
    this.term.onResize(({ cols, rows }) => this.send({ type: "resize", cols, rows }));

    let frame = 0;
    this.observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => this.refit());
    });
    this.observer.observe(el);
    this.refit();
    this.connect(false);
    if (el.dataset.autofocus !== undefined) this.term.focus();
  }

  refit() {
    if (!this.el.isConnected || this.el.offsetParent === null) return;
    try {
      this.fit.fit();
    } catch {
      /* not laid out yet */
    }
  }

  status(state, message) {
    setStatusBadge(this.badge, state, message);
    this.button.hidden = !(state === "closed" || state === "error");
    this.el.dataset.state = state;
    if (message && state !== "connected" && state !== "connecting") this.lastMessage = message;
  }

  // Ctrl+Shift+C: copy the selection; Ctrl+Shift+V: the browser's own paste (xterm.js handles the event).
  onKey(e) {
    if (e.type !== "keydown" || !e.ctrlKey || !e.shiftKey) return true;
    const key = e.key.toLowerCase();
    if (key === "c") {
      this.copy();
      e.preventDefault();
      return false;
    }
    return key !== "v";
  }

  copy() {
    const text = this.term.getSelection();
    if (!text) return;
    const fallback = () => {
      const area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    };
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).catch(fallback);
    else fallback();
    this.el.dataset.copied = text;
    this.term.focus();
  }

  async pasteFromClipboard() {
    try {
      const text = await navigator.clipboard.readText();
      if (text) this.term.paste(text);
    } catch {
      this.term.write("\r\n\x1b[2m(clipboard not readable here: use Ctrl+Shift+V)\x1b[0m\r\n");
    }
    this.term.focus();
  }

  // The session is over: say why (the server's message, else the close frame's reason) and offer Reconnect.
  showEnded(code, reason) {
    const why = (reason || this.lastMessage || (code === 1006 ? "the connection dropped" : "closed")).replace(/\.$/, "");
    const text = `Session ended: ${why}${code ? ` (code ${code})` : ""}. Reconnect opens a new shell.`;
    this.el.dataset.endedCode = String(code || "");
    if (this.ended) {
      this.ended.textContent = text;
      this.ended.hidden = false;
    }
    this.button.hidden = false;
  }

  connect(isRetry) {
    this.closeSocket();
    if (isRetry) this.term.write("\r\n\x1b[2m--- reconnecting ---\x1b[0m\r\n");
    if (this.ended) this.ended.hidden = true;
    this.lastMessage = "";
    delete this.el.dataset.endedCode;
    this.status("connecting");
    let ws;
    try {
      ws = new WebSocket(wsUrl(this.el.dataset.wsUrl));
    } catch (err) {
      this.status("error", String(err.message || err));
      return;
    }
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.status("connected");
      this.refit();
      this.send({ type: "resize", cols: this.term.cols, rows: this.term.rows });
      this.term.focus();
    });
    ws.addEventListener("message", (evt) => {
      if (this.ws !== ws) return;
      this.onMessage(evt.data);
    });
    ws.addEventListener("error", () => {
      if (this.ws === ws) this.status("error", "connection failed");
    });
    ws.addEventListener("close", (evt) => {
      if (this.ws !== ws) return;
      this.ws = null;
      const state = this.el.dataset.state;
      if (state !== "error" && state !== "closed") {
        this.status(evt.code >= 4000 ? "error" : "closed", evt.reason || (evt.code !== 1000 ? `code ${evt.code}` : ""));
      }
      this.showEnded(evt.code, evt.reason);
    });
  }

  onMessage(data) {
    if (typeof data !== "string") {
      this.term.write(new Uint8Array(data));
      return;
    }
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      this.term.write(data);
      return;
    }
    if (!msg || typeof msg !== "object") {
      this.term.write(data);
    } else if (msg.type === "stdout" || msg.type === "stderr") {
      this.term.write(msg.data ?? "");
    } else if (msg.type === "notice") {
      // e.g. the idle timeout or the maximum session length is near: a warning line, the session goes on
      this.term.write(`\r\n\x1b[33m${msg.message || ""}\x1b[0m\r\n`);
    } else if (msg.type === "status") {
      this.status(msg.state || "connected", msg.message || "");
      if (msg.message && msg.state !== "connected") this.term.write(`\r\n\x1b[2m${msg.message}\x1b[0m\r\n`);
    }
  }

  // A paste arrives as one onData call; the server takes at most 65536 characters per message (and refuses a
  // longer one whole rather than run part of it), so input goes out in pieces well under that.
  sendInput(data) {
    let at = 0;
    while (at < data.length) {
      let end = Math.min(data.length, at + STDIN_PIECE);
      const code = data.charCodeAt(end - 1);
      if (end < data.length && code >= 0xd800 && code <= 0xdbff) end -= 1; // keep a surrogate pair together
      this.send({ type: "stdin", data: data.slice(at, end) });
      at = end;
    }
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(obj));
  }

  closeSocket() {
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, "client closed");
  }

  dispose() {
    this.closeSocket();
    this.observer.disconnect();
    this.term.dispose();
  }
}

export function initTerminals(root) {
  for (const el of findAll(root, "[data-terminal][data-ws-url]")) {
    if (owned.has(el)) continue;
    owned.add(el);
    const widget = new TerminalWidget(el);
    el.pinTerminal = widget; // for tests / debugging from the console
    track(el, () => widget.dispose());
  }
}
