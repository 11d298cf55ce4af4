// Build PinConsole's front-end assets.
//
//   src/app.js  -> dist/app.js   (one IIFE bundle, minified, no sourcemap)
//   src/app.css -> dist/app.css  (bootstrap + bootstrap-icons + xterm + ours)
//   src/player.js/.css -> dist/player.* (asciinema-player, loaded by the recording page only)
//   icon fonts  -> dist/fonts/   (url() in app.css is rewritten to ./fonts/...)
//   src/img/favicon.svg -> dist/favicon.svg (copied as is)
//
// Deterministic: fixed target, no hashes/timestamps/banners in the output,
// dist/ is wiped first so stale files never linger. Usage:
//   node build.mjs            build once
//   node build.mjs --watch    rebuild on change (development)
//   node build.mjs --clean    remove dist/
import * as esbuild from "esbuild";
import { rm, mkdir, readdir, stat, copyFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
const args = new Set(process.argv.slice(2));

await rm(dist, { recursive: true, force: true });
if (args.has("--clean")) process.exit(0);
await mkdir(dist, { recursive: true });
await copyFile(path.join(here, "src/img/favicon.svg"), path.join(dist, "favicon.svg"));

const common = {
  absWorkingDir: here,
  bundle: true,
  minify: !args.has("--watch"),
  sourcemap: false,
  legalComments: "none",
  logLevel: "info",
  charset: "utf8",
  // Evergreen browsers only; pinned so output never depends on the host.
  target: ["es2020", "chrome100", "firefox100", "safari15"],
};

const jsOptions = {
  ...common,
  entryPoints: { app: "src/app.js", player: "src/player.js" },
  outdir: "dist",
  format: "iife",
  platform: "browser",
  define: { "process.env.NODE_ENV": '"production"' },
};

const cssOptions = {
  ...common,
  entryPoints: { app: "src/app.css", player: "src/player.css" },
  outdir: "dist",
  // Fonts referenced from CSS are emitted as files under dist/fonts/ with
  // stable names; url() is rewritten relative to dist/app.css.
  loader: { ".woff": "file", ".woff2": "file", ".ttf": "file", ".svg": "file", ".png": "file" },
  assetNames: "fonts/[name]",
};

const started = Date.now();
if (args.has("--watch")) {
  const jsCtx = await esbuild.context(jsOptions);
  const cssCtx = await esbuild.context(cssOptions);
  await Promise.all([jsCtx.watch(), cssCtx.watch()]);
  console.log("watching src/ ... (Ctrl-C to stop)");
} else {
  try {
    await Promise.all([esbuild.build(jsOptions), esbuild.build(cssOptions)]);
  } catch {
    // esbuild has already printed the errors (logLevel "info").
    process.exit(1);
  }
  let total = 0;
  const walk = async (dir) => {
    for (const name of (await readdir(dir)).sort()) {
      const p = path.join(dir, name);
      const s = await stat(p);
      if (s.isDirectory()) await walk(p);
      else total += s.size;
    }
  };
  await walk(dist);
  console.log(`dist/ built in ${Date.now() - started} ms, ${(total / 1024).toFixed(1)} KiB total`);
}
