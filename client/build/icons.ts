/**
 * Build code (run by Deno from build.ts, never bundled into the app): the PNG icons, drawn from
 * static/icons/icon.svg.
 */
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { ROOT, STATIC_DIR } from "./files.ts";

/**
 * The PNG icons of the manifest and iOS, drawn at build from `static/icons/icon.svg` so the
 * SVG stays the one source of the logo (no image library, no checked-in binaries).
 * `any`: as the SVG (rounded, transparent corners); `maskable`: background to the edges
 * and the logo shrunk into the safe zone (a circle of 40 % of the size); `full`: to the
 * edges for iOS, which rounds the corners itself.
 */
export const ICONS = [
  { name: "icon-192.png", size: 192, kind: "any" },
  { name: "icon-512.png", size: 512, kind: "any" },
  { name: "maskable-192.png", size: 192, kind: "maskable" },
  { name: "maskable-512.png", size: 512, kind: "maskable" },
  { name: "apple-touch-icon.png", size: 180, kind: "full" },
] as const;
export type IconKind = (typeof ICONS)[number]["kind"];

/** One `<rect>` of the logo, in the SVG's user units; fill as [r, g, b]. */
export interface IconRect {
  x: number;
  y: number;
  width: number;
  height: number;
  rx: number;
  fill: [number, number, number];
}

/**
 * Reads the logo: a square viewBox and `<rect>`s with solid hex fills, drawn in order.
 * Anything else (paths, circles, gradients) is refused: this drawer would silently drop it.
 */
export function parseIconSvg(svg: string): { size: number; rects: IconRect[] } {
  const other =
    /<(path|circle|ellipse|line|polyline|polygon|image|text|use|linearGradient|radialGradient|g)\b/
      .exec(svg);
  if (other) throw new Error(`icon.svg: <${other[1]}> is not drawn by build.ts; use <rect>s`);
  const vb = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(svg);
  if (!vb || vb[1] !== vb[2]) throw new Error('icon.svg needs a square viewBox="0 0 N N"');
  const rects: IconRect[] = [];
  for (const m of svg.matchAll(/<rect\b([^>]*?)\/?>/g)) {
    const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(m[1])?.[1];
    const num = (name: string) => Number(attr(name) ?? 0);
    const hex = attr("fill") ?? "";
    const full = /^#[0-9a-f]{3}$/i.test(hex)
      ? "#" + [...hex.slice(1)].map((c) => c + c).join("")
      : hex;
    if (!/^#[0-9a-f]{6}$/i.test(full)) {
      throw new Error(`icon.svg: fill "${hex}" is not #rgb or #rrggbb`);
    }
    const fill = [1, 3, 5].map((i) => parseInt(full.slice(i, i + 2), 16)) as [
      number,
      number,
      number,
    ];
    rects.push({
      x: num("x"),
      y: num("y"),
      width: num("width"),
      height: num("height"),
      rx: num("rx"),
      fill,
    });
  }
  if (!rects.length) throw new Error("icon.svg has no <rect>");
  return { size: Number(vb[1]), rects };
}

/**
 * Draws the logo as RGBA pixels, 4×4 samples a pixel (anti-aliased edges). The first rect
 * is the background: to the edges for `maskable` and `full`, where the others are scaled
 * about the centre (0.8 for maskable).
 */
export function drawIcon(
  logo: { size: number; rects: IconRect[] },
  size: number,
  kind: IconKind,
): Uint8Array {
  const k = size / logo.size;
  const scale = kind === "maskable" ? 0.8 : 1;
  const c = size / 2;
  const rects = logo.rects.map((r, i) => {
    if (i === 0 && kind !== "any") return { ...r, x: 0, y: 0, width: size, height: size, rx: 0 };
    const s = k * scale;
    return {
      ...r,
      x: c + (r.x * k - c) * scale,
      y: c + (r.y * k - c) * scale,
      width: r.width * s,
      height: r.height * s,
      rx: r.rx * s,
    };
  });
  const inside = (r: IconRect, px: number, py: number) => {
    if (px < r.x || py < r.y || px > r.x + r.width || py > r.y + r.height) return false;
    const rad = Math.min(r.rx, r.width / 2, r.height / 2);
    const dx = Math.max(r.x + rad - px, px - (r.x + r.width - rad), 0);
    const dy = Math.max(r.y + rad - py, py - (r.y + r.height - rad), 0);
    return dx * dx + dy * dy <= rad * rad;
  };
  const top = (px: number, py: number) => {
    for (let i = rects.length - 1; i >= 0; i--) if (inside(rects[i], px, py)) return i;
    return -1;
  };
  // The shape on top at every pixel corner: a pixel whose four corners agree is one colour;
  // only the others (edges) are sampled 4×4.
  const corner = new Int8Array((size + 1) * (size + 1));
  for (let y = 0; y <= size; y++) {
    for (let x = 0; x <= size; x++) corner[y * (size + 1) + x] = top(x, y);
  }
  const SS = 4;
  const out = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const at = y * (size + 1) + x;
      const t = corner[at];
      let n = 0, red = 0, green = 0, blue = 0;
      if (t === corner[at + 1] && t === corner[at + size + 1] && t === corner[at + size + 2]) {
        if (t >= 0) {
          const f = rects[t].fill;
          n = SS * SS, red = f[0] * n, green = f[1] * n, blue = f[2] * n;
        }
      } else {
        for (let sy = 0; sy < SS; sy++) {
          for (let sx = 0; sx < SS; sx++) {
            const i = top(x + (sx + 0.5) / SS, y + (sy + 0.5) / SS);
            if (i < 0) continue;
            const f = rects[i].fill;
            red += f[0], green += f[1], blue += f[2], n++;
          }
        }
      }
      const o = (y * size + x) * 4;
      if (n) {
        out[o] = Math.round(red / n);
        out[o + 1] = Math.round(green / n);
        out[o + 2] = Math.round(blue / n);
        out[o + 3] = Math.round((255 * n) / (SS * SS));
      }
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** A minimal PNG writer: 8-bit RGBA, no filter, zlib at level 9. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  const crc = (bytes: Uint8Array) => {
    let c = 0xffffffff;
    for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    view.setUint32(8 + data.length, crc(out.subarray(4, 8 + data.length)));
    return out;
  };
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, width);
  new DataView(ihdr.buffer).setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const raw = new Uint8Array(height * (1 + width * 4));
  for (let y = 0; y < height; y++) {
    raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (1 + width * 4) + 1);
  }
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", new Uint8Array(deflateSync(raw, { level: 9 }))),
    chunk("IEND", new Uint8Array()),
  ];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) png.set(p, at), at += p.length;
  return png;
}

/** Writes {@link ICONS} into `outDir/icons/` (before the precache list is made). */
export async function writeIcons(outDir: string): Promise<void> {
  const logo = parseIconSvg(await Deno.readTextFile(join(ROOT, STATIC_DIR, "icons", "icon.svg")));
  await Deno.mkdir(join(outDir, "icons"), { recursive: true });
  for (const icon of ICONS) {
    const png = encodePng(icon.size, icon.size, drawIcon(logo, icon.size, icon.kind));
    await Deno.writeFile(join(outDir, "icons", icon.name), png);
  }
}
