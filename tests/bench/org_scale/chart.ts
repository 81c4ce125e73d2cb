/**
 * The scale curves as an SVG (no dependency): one panel per store, x = the organisation's
 * transactions (log), y = p50 in ms (log), one line per measurement, labelled at its right end.
 * A flat line is what the issue asks of every per-request call.
 */
import type { Figures } from "./measure.ts";

export type Curves = Record<string, Record<string, Figures>>; // store → N → figures

const COLORS = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
  "#393b79",
  "#637939",
];

export function chartSvg(curves: Curves, title: string): string {
  const stores = Object.keys(curves);
  const W = 580, H = 420, M = { l: 78, r: 210, t: 40, b: 50 };
  const pw = W - M.l - M.r, ph = H - M.t - M.b;
  const parts: string[] = [];
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  stores.forEach((store, si) => {
    const x0 = si * W;
    const sizes = Object.keys(curves[store]).map(Number).sort((a, b) => a - b);
    const names = [...new Set(sizes.flatMap((n) => Object.keys(curves[store][String(n)])))];
    const all = sizes.flatMap((n) => Object.values(curves[store][String(n)]).map((f) => f.p50))
      .filter((v) => v > 0);
    const lo = Math.pow(10, Math.floor(Math.log10(Math.min(...all, 1))));
    const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...all, 10))));
    const nx = (n: number) =>
      x0 + M.l + (sizes.length < 2 ? pw / 2 : (Math.log10(n) - Math.log10(sizes[0])) /
        (Math.log10(sizes.at(-1)!) - Math.log10(sizes[0])) * pw);
    const ny = (v: number) =>
      M.t + ph -
      (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) * ph;
    parts.push(
      `<text x="${x0 + M.l}" y="22" font-size="15" font-weight="bold">${esc(store)}</text>`,
    );
    parts.push(
      `<rect x="${x0 + M.l}" y="${M.t}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`,
    );
    for (let d = lo; d <= hi; d *= 10) {
      parts.push(
        `<line x1="${x0 + M.l}" x2="${x0 + M.l + pw}" y1="${ny(d)}" y2="${ny(d)}" stroke="#eee"/>`,
      );
      parts.push(
        `<text x="${x0 + M.l - 6}" y="${ny(d) + 4}" font-size="11" text-anchor="end">${
          d >= 1 ? d : d.toPrecision(1)
        } ms</text>`,
      );
    }
    for (const n of sizes) {
      parts.push(
        `<text x="${nx(n)}" y="${M.t + ph + 18}" font-size="11" text-anchor="middle">10${
          sup(Math.round(Math.log10(n)))
        }</text>`,
      );
    }
    parts.push(
      `<text x="${x0 + M.l + pw / 2}" y="${
        H - 10
      }" font-size="12" text-anchor="middle">transactions in the organisation</text>`,
    );
    const ends: { y: number; name: string; color: string }[] = [];
    names.forEach((name, i) => {
      const color = COLORS[i % COLORS.length];
      const pts = sizes.filter((n) => curves[store][String(n)][name])
        .map((n) => [nx(n), ny(curves[store][String(n)][name].p50)] as const);
      if (!pts.length) return;
      parts.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${
          pts.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ")
        }"/>`,
      );
      for (const [x, y] of pts) {
        parts.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="2.5" fill="${color}"/>`);
      }
      ends.push({ y: pts.at(-1)![1], name, color });
    });
    // Labels at the right, pushed apart so they do not overlap.
    ends.sort((a, b) => a.y - b.y);
    let last = -Infinity;
    for (const e of ends) {
      const y = Math.max(e.y + 4, last + 12);
      last = y;
      parts.push(
        `<text x="${x0 + M.l + pw + 6}" y="${y.toFixed(1)}" font-size="10.5" fill="${e.color}">${
          esc(e.name)
        }</text>`,
      );
    }
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W * stores.length}" height="${
    H + 20
  }" font-family="sans-serif">\n` +
    `<title>${esc(title)}</title>\n<rect width="100%" height="100%" fill="white"/>\n${
      parts.join("\n")
    }\n</svg>\n`;
}

function sup(n: number): string {
  return String(n).split("").map((d) => "⁰¹²³⁴⁵⁶⁷⁸⁹"[+d]).join("");
}

/** The curves as a Markdown table per store: one row per line, p50 (p95) per size, the ratio. */
export function table(curves: Curves): string {
  const out: string[] = [];
  for (const [store, bySize] of Object.entries(curves)) {
    const sizes = Object.keys(bySize).map(Number).sort((a, b) => a - b);
    const names = [...new Set(sizes.flatMap((n) => Object.keys(bySize[String(n)])))];
    out.push(
      `**${store}** — p50 (p95) in ms by transactions in the organisation; last column: largest ÷ smallest p50`,
    );
    out.push("");
    out.push(
      `| line | ${sizes.map((n) => `10${sup(Math.round(Math.log10(n)))}`).join(" | ")} | ratio |`,
    );
    out.push(`|---|${sizes.map(() => "--:").join("|")}|--:|`);
    for (const name of names) {
      const fs = sizes.map((n) => bySize[String(n)][name]);
      const cells = fs.map((f) => f ? `${fmt(f.p50)} (${fmt(f.p95)})` : "—");
      const have = fs.filter(Boolean);
      const ratio = have.length > 1 ? (have.at(-1)!.p50 / have[0].p50).toFixed(1) + "×" : "";
      out.push(`| ${name} | ${cells.join(" | ")} | ${ratio} |`);
    }
    out.push("");
  }
  return out.join("\n");
}

const fmt = (v: number) => v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
