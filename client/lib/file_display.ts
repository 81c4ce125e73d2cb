// How files are named and sized on screen (spec §5 Upload: filenames truncated to 22
// characters with an ellipsis; sizes in MB above 1 MB, otherwise kB; spec §9 filename 22).
import { formatNumber } from "../shared/intl.ts";

/** spec §9: file names show at most 22 characters. */
export const FILENAME_MAX = 22;

/** 'a-very-long-receipt-name-from-the-shop.pdf' → its first 22 characters and '…'. */
export function shortName(name: string, max = FILENAME_MAX): string {
  const chars = [...name];
  return chars.length <= max ? name : `${chars.slice(0, max).join("")}…`;
}

const MB = 1024 * 1024;

/** spec §5: '2.4 MB' above 1 MB, else '312 kB' (at least 1 kB for a non-empty file). */
export function sizeText(bytes: number, locale = "en"): string {
  if (bytes > MB) {
    return `${formatNumber(bytes / MB, "1.0-1", locale)} MB`;
  }
  const kb = bytes === 0 ? 0 : Math.max(1, Math.round(bytes / 1024));
  return `${formatNumber(kb, "1.0-0", locale)} kB`;
}
