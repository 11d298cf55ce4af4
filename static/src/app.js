// PinConsole front-end entry point. Bundled by esbuild (static/build.mjs) into
// dist/app.js, loaded with <script defer> from templates/base.html.
//
// The only global this creates is window.htmx (htmx extensions expect it).
import htmx from "htmx.org";
import "bootstrap"; // data-api: dropdowns, dismissible alerts, offcanvas, collapse, modals

import { setupHtmx } from "./js/htmx-setup.js";
import { initCharts } from "./js/charts.js";
import { initTerminals } from "./js/terminal.js";
import { initLogStreams } from "./js/logstream.js";
import { initDrafts } from "./js/drafts.js";
import { initConveniences, setupConveniences } from "./js/conveniences.js";
import { onContent } from "./js/lifecycle.js";
import { setupPicker } from "./js/picker.js";
import { setupSearch } from "./js/search.js";
import { initBell } from "./js/bell.js";

window.htmx = htmx;

setupHtmx(htmx);
setupConveniences();
setupPicker();
setupSearch();

// Every initialiser is idempotent: it runs on the whole document on first
// load and again after each htmx swap / history restore, skipping elements
// it already owns, and disposing of instances whose element has left the DOM.
onContent((root) => {
  initCharts(root);
  initTerminals(root);
  initLogStreams(root);
  initConveniences(root);
  initDrafts(root);
  initBell(root);
});
