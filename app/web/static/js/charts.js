/** Small SVG charts drawn by the site itself (no library): paired bars and a line with a zero axis. */
import { h } from "./dom.js";

/**
 * Bars in groups: for each label, one bar per series (e.g. declared and made contracts per level).
 * @param {string[]} labels @param {Array<{name: string, color: string, values: number[]}>} series
 * @param {string} title
 */
export function barChart(labels, series, title) {
  const width = 480;
  const height = 200;
  const pad = { left: 30, right: 8, top: 10, bottom: 24 };
  const top = Math.max(1, ...series.flatMap((s) => s.values));
  const group = (width - pad.left - pad.right) / Math.max(1, labels.length);
  const bar = (group * 0.8) / Math.max(1, series.length);
  const y = (/** @type {number} */ v) => pad.top + ((top - v) * (height - pad.top - pad.bottom)) / top;
  return h(
    "svg",
    { class: "chart bar-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title, "data-chart": title },
    h("line", { x1: pad.left, y1: height - pad.bottom, x2: width - pad.right, y2: height - pad.bottom, stroke: "#888" }),
    h("text", { x: 2, y: pad.top + 8, "font-size": 11 }, String(top)),
    ...labels.flatMap((label, i) => [
      h("text", { key: `l${i}`, x: pad.left + i * group + group / 2, y: height - 6, "font-size": 12, "text-anchor": "middle" }, label),
      ...series.map((s, k) =>
        h("rect", {
          key: `${i}-${k}`,
          x: pad.left + i * group + group * 0.1 + k * bar,
          y: y(s.values[i] ?? 0),
          width: bar - 2,
          height: Math.max(0, height - pad.bottom - y(s.values[i] ?? 0)),
          fill: s.color,
          "data-bar": `${label}:${s.name}:${s.values[i] ?? 0}`,
        }, h("title", {}, `${label} · ${s.name}: ${s.values[i] ?? 0}`)),
      ),
    ]),
    ...series.map((s, k) =>
      h("g", { key: `k${k}` }, h("rect", { x: width - 110, y: 6 + k * 14, width: 10, height: 10, fill: s.color }), h("text", { x: width - 96, y: 15 + k * 14, "font-size": 11 }, s.name)),
    ),
  );
}

/**
 * A line through values in order, with the zero line dashed (indices go below zero).
 * @param {number[]} values @param {string} title
 */
export function lineChart(values, title) {
  const width = 480;
  const height = 200;
  const pad = { left: 40, right: 8, top: 10, bottom: 14 };
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const span = high - low || 1;
  const x = (/** @type {number} */ i) => pad.left + (values.length <= 1 ? 0 : (i * (width - pad.left - pad.right)) / (values.length - 1));
  const y = (/** @type {number} */ v) => pad.top + ((high - v) * (height - pad.top - pad.bottom)) / span;
  return h(
    "svg",
    { class: "chart line-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title, "data-chart": title, "data-points": values.length },
    h("line", { x1: pad.left, y1: y(0), x2: width - pad.right, y2: y(0), stroke: "#aaa", "stroke-dasharray": "4 4" }),
    h("text", { x: 2, y: y(high) + 4, "font-size": 11 }, String(Math.round(high))),
    h("text", { x: 2, y: y(low) + 4, "font-size": 11 }, String(Math.round(low))),
    h("path", { d: values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "), fill: "none", stroke: "#2c4f8a", "stroke-width": 2 }),
    ...values.map((v, i) => h("circle", { key: i, cx: x(i), cy: y(v), r: 3.5, fill: "#2c4f8a", "data-point": v }, h("title", {}, String(v)))),
  );
}
