// The shell recording player: asciinema-player (npm, bundled here; no CDN) on every
// <div data-asciicast="/debug/recordings/N.cast"></div>. A separate bundle (dist/player.js), loaded
// only by the recording page, whose CSP allows 'wasm-unsafe-eval' for the player's terminal emulator.
import * as AsciinemaPlayer from "asciinema-player";

function mount() {
  for (const el of document.querySelectorAll("[data-asciicast]")) {
    if (el.pinPlayer) continue;
    el.pinPlayer = AsciinemaPlayer.create(el.dataset.asciicast, el, {
      fit: "width",
      idleTimeLimit: 2,
      controls: true,
      autoPlay: el.dataset.autoplay !== "false",
      terminalFontFamily: 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace',
    });
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
else mount();
