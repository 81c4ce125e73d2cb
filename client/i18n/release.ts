/**
 * The version label of spec §1 ('V 2.25.0211, released 11-02-2025'), from the build:
 * build.ts defines QC_VERSION and QC_RELEASED (see its `releaseInfo`). Outside a build
 * (unit tests under Deno) they are undefined and the label says "dev".
 */
import { t } from "./index.ts";

declare const QC_VERSION: string | undefined;
declare const QC_RELEASED: string | undefined;

/** `2.<yy>.<MMdd>` of the release date, or what QC_VERSION said at build. */
export const APP_VERSION: string = typeof QC_VERSION === "string" ? QC_VERSION : "dev";
/** dd-MM-yyyy. */
export const APP_RELEASED: string = typeof QC_RELEASED === "string" ? QC_RELEASED : "";

/** 'V 2.25.0211, released 11-02-2025' in the person's language. */
export function versionLabel(): string {
  return t("app.versionLabel", { version: APP_VERSION, date: APP_RELEASED });
}

/**
 * The Options' version line, the label said once: 'Version 2.25.0211, released 11-02-2025'
 * (the same version `initialize` answers: server/release.ts reads this build's release).
 */
export function versionLine(): string {
  return t("options.version", { version: APP_VERSION, date: APP_RELEASED });
}
