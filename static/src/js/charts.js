// <canvas data-chart='{"type":"bar","data":{...},"options":{...}}'>
// (templates/partials/chart.html writes it: not a json_script, which htmx strips from swapped-in content)
//
// Extra (non-Chart.js) options understood here:
//   options.unit:    "cores" | "GiB" | ...  appended to tooltips and value-axis ticks
//   options.stacked: true                    stack bars/areas on both axes
//   dataset.tier:    "reserved" | "ondemand" | "preemptible"  use the tier colour (--tier-* in app.css,
//                    the one place tier colours are defined)
//   dataset.tiers:   ["reserved", "ondemand", ...]  one tier per data point: each bar in its tier's colour
//   dataset.alpha:   0..1                    opacity of the fill (default 0.85 for bars, 0.15 for lines)
// Datasets without colours get the tier colour when their label names a tier
// (Reserved / OnDemand / Preemptible), otherwise a palette colour.
import Chart from "chart.js/auto";
import { findAll, track } from "./lifecycle.js";

const SELECTOR = "canvas[data-chart]";
const owned = new WeakMap(); // canvas -> {source, untrack}

const PALETTE = ["#4f46e5", "#0d9488", "#d97706", "#2563eb", "#db2777", "#65a30d", "#7c3aed", "#0891b2"];
const TIER_RE = [
  ["reserved", /^reserved$/i],
  ["ondemand", /^on[-_ ]?demand$/i],
  ["preemptible", /^preempt(ible)?$/i],
];
const numberFmt = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

function cssVar(name, fallback) {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

function tierOf(label) {
  if (typeof label !== "string") return null;
  for (const [tier, re] of TIER_RE) if (re.test(label.trim())) return tier;
  return null;
}

function tierColor(tier) {
  return cssVar(`--tier-${tier}`, PALETTE[0]);
}

function withAlpha(hex, alpha) {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!m) return hex;
  const n = parseInt(m[1], 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

function formatValue(value, unit) {
  const s = typeof value === "number" ? numberFmt.format(value) : String(value);
  return unit ? `${s} ${unit}` : s;
}

function applyDefaults(config, canvas) {
  const type = config.type || "bar";
  config.type = type;
  config.data = config.data || { labels: [], datasets: [] };
  const options = (config.options = config.options || {});
  const unit = options.unit;
  const stacked = options.stacked === true;
  delete options.unit;
  delete options.stacked;

  const circular = ["pie", "doughnut", "polarArea"].includes(type);
  const labels = config.data.labels || [];
  (config.data.datasets || []).forEach((ds, i) => {
    const dsType = ds.type || type;
    if (circular) {
      if (!ds.backgroundColor) {
        ds.backgroundColor = labels.map((l, j) => {
          const t = tierOf(l);
          return t ? tierColor(t) : PALETTE[j % PALETTE.length];
        });
      }
      if (ds.borderWidth === undefined) ds.borderWidth = 1;
      return;
    }
    const tier = ds.tier || tierOf(ds.label);
    const tiers = Array.isArray(ds.tiers) ? ds.tiers : null;
    const alpha = typeof ds.alpha === "number" ? ds.alpha : dsType === "line" ? 0.15 : 0.85;
    delete ds.tier;
    delete ds.tiers;
    delete ds.alpha;
    const base = tier ? tierColor(tier) : PALETTE[i % PALETTE.length];
    if (tiers) {
      // One tier per data point (e.g. one bar per tier): each bar in its tier's colour.
      if (!ds.borderColor) ds.borderColor = tiers.map((t) => tierColor(t));
      if (!ds.backgroundColor) ds.backgroundColor = tiers.map((t) => withAlpha(tierColor(t), alpha));
    }
    if (!ds.borderColor) ds.borderColor = base;
    if (!ds.backgroundColor) ds.backgroundColor = withAlpha(base, alpha);
    if (dsType === "bar" && ds.borderRadius === undefined) ds.borderRadius = 2;
    if (dsType === "line") {
      if (ds.tension === undefined) ds.tension = 0.25;
      if (ds.pointRadius === undefined) ds.pointRadius = 0;
      if (ds.borderWidth === undefined) ds.borderWidth = 2;
      if (stacked && ds.fill === undefined) ds.fill = true;
    }
  });

  if (options.responsive === undefined) options.responsive = true;
  // Inside a sized container (.chart-box, partials/chart.html) fill it; a bare
  // canvas keeps Chart.js' aspect ratio so it cannot grow without bound.
  if (options.maintainAspectRatio === undefined) options.maintainAspectRatio = !canvas.closest(".chart-box");
  options.animation = options.animation ?? { duration: 250 };
  options.interaction = options.interaction || (circular ? { mode: "nearest" } : { mode: "index", intersect: false });

  const plugins = (options.plugins = options.plugins || {});
  plugins.legend = { position: "bottom", labels: { boxWidth: 10, boxHeight: 10, usePointStyle: false }, ...plugins.legend };
  plugins.tooltip = plugins.tooltip || {};
  plugins.tooltip.callbacks = plugins.tooltip.callbacks || {};
  if (!plugins.tooltip.callbacks.label) {
    plugins.tooltip.callbacks.label = (ctx) => {
      let value = ctx.raw;
      if (value && typeof value === "object") value = ctx.parsed[ctx.chart.options.indexAxis === "y" ? "x" : "y"] ?? ctx.parsed;
      if (circular) value = ctx.parsed;
      const label = circular ? ctx.label : ctx.dataset.label;
      return `${label ? `${label}: ` : ""}${formatValue(value, unit)}`;
    };
  }
  if (stacked && !circular && !plugins.tooltip.callbacks.footer) {
    plugins.tooltip.callbacks.footer = (items) => {
      const total = items.reduce((sum, it) => sum + (Number(it.parsed[options.indexAxis === "y" ? "x" : "y"]) || 0), 0);
      return `Total: ${formatValue(total, unit)}`;
    };
  }

  if (!circular && type !== "radar") {
    const valueAxis = options.indexAxis === "y" ? "x" : "y";
    const categoryAxis = valueAxis === "y" ? "x" : "y";
    const scales = (options.scales = options.scales || {});
    scales[valueAxis] = { beginAtZero: true, ...scales[valueAxis] };
    scales[categoryAxis] = { grid: { display: false }, ...scales[categoryAxis] };
    if (stacked) {
      scales[valueAxis].stacked = scales[valueAxis].stacked ?? true;
      scales[categoryAxis].stacked = scales[categoryAxis].stacked ?? true;
    }
    if (unit) {
      const ticks = (scales[valueAxis].ticks = scales[valueAxis].ticks || {});
      if (!ticks.callback) ticks.callback = (v) => formatValue(v, unit);
    }
  }
  return config;
}

let defaultsApplied = false;
function applyGlobalDefaults() {
  if (defaultsApplied) return;
  defaultsApplied = true;
  Chart.defaults.font.family = cssVar("--bs-body-font-family", "system-ui, sans-serif");
  Chart.defaults.font.size = 12;
  Chart.defaults.color = cssVar("--bs-secondary-color", "#6b7280");
  Chart.defaults.borderColor = cssVar("--bs-border-color-translucent", "rgba(0,0,0,.1)");
}

function build(canvas, source) {
  const previous = owned.get(canvas);
  if (previous) previous.untrack();
  const existing = Chart.getChart(canvas);
  if (existing) existing.destroy();
  owned.delete(canvas);
  let config;
  try {
    config = JSON.parse(source);
  } catch (err) {
    console.error("[pinconsole] invalid chart JSON", canvas, err);
    canvas.replaceWith(Object.assign(document.createElement("div"), {
      className: "text-danger small",
      textContent: "Chart data could not be read.",
    }));
    return;
  }
  const chart = new Chart(canvas, applyDefaults(config, canvas));
  owned.set(canvas, { source, untrack: track(canvas, () => chart.destroy()) });
}

export function initCharts(root) {
  const canvases = findAll(root, SELECTOR);
  if (!canvases.length) return;
  applyGlobalDefaults();
  for (const canvas of canvases) {
    const source = canvas.dataset.chart;
    if (!source) continue;
    // Rebuild only when new or when the data behind it changed (an attribute rewritten in place).
    if (owned.get(canvas)?.source === source && Chart.getChart(canvas)) continue;
    build(canvas, source);
  }
}

export { Chart };
