import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";

// The accounting export (docs/export.md, docs/api.md): finance users only (403 otherwise).
// The export itself answers a file, not JSON: EXPORT_PATH is called by hand (POST, bearer),
// with the body ExportRequest describes; its records are a JSON call of the contract.

const E = "/scmapi/expense";

/** POST, bearer, JSON body → the file (CSV, DATEV or ZIP), streamed. */
export const EXPORT_PATH = `${E}/pwaexport`;

export const EXPORT_FORMATS = ["csv", "datev", "zip"] as const;

/** What the Export screen sends (the server checks it again with full zod: run.ts). */
export interface ExportRequest {
  from: string;
  to: string;
  account?: string | null;
  formats: (typeof EXPORT_FORMATS)[number][];
  onlyNew?: boolean;
  layout?: "folders" | "flat";
}

export const ExportRow = z.object({
  id: z.string(),
  byName: z.string(),
  at: z.number(),
  from: z.string(),
  to: z.string(),
  accountOid: z.nullable(z.string()),
  formats: z.array(z.string()),
  onlyNew: z.boolean(),
  state: z.enum(["running", "done", "broken"]),
  count: z.number(),
});
export type ExportRow = z.infer<typeof ExportRow>;

export const exports = {
  /** The finance user's accounts to choose from and the latest exports. */
  exports: endpoint({
    method: "GET",
    path: `${E}/pwaexports`,
    auth: "bearer",
    response: z.object({
      accounts: z.array(z.object({ oid: z.string(), label: z.string(), currency: z.string() })),
      exports: z.array(ExportRow),
    }),
  }),
};
