import { UploadResponse } from "../shared/contract/documents.ts";
import { ErrorBody } from "../shared/contract/endpoint.ts";
import { ApiError, credentials, NetworkError, unavailable } from "./http.ts";

// Files over the API (spec §3 Upload form fields, §4 Upload progress): uploads with progress (fetch
// has none; XMLHttpRequest's upload.onprogress has, engineering.md §5) and downloads with the
// bearer token (an <img src> cannot send it). Answers are parsed with the contract like every other
// call.

/** spec §3 Upload form fields, plus the file and the device-made preview. */
export interface UploadInput {
  file: Blob;
  name: string;
  preview?: Blob | null;
  fields: Record<string, string>;
  onProgress?: (percent: number) => void;
  /** Sent as Idempotency-Key: a repeat of this upload is answered, not stored twice. */
  idempotencyKey?: string;
}

function errorOf(status: number, text: string): ApiError {
  try {
    const e = ErrorBody.safeParse(JSON.parse(text));
    if (e.success) return new ApiError(status, e.data.error, e.data.message, e.data);
  } catch {
    // not JSON: fall through
  }
  return new ApiError(status, "http_error", `HTTP ${status}`);
}

/** POSTs a multipart upload to `/bonita` + path, reporting the percent sent. */
export function uploadFile(path: string, input: UploadInput): Promise<UploadResponse> {
  const form = new FormData();
  for (const [k, v] of Object.entries(input.fields)) form.append(k, v);
  form.append("file", input.file, input.name);
  if (input.preview) form.append("preview", input.preview, "preview.jpg");
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/bonita${path}`);
    xhr.setRequestHeader("accept", "application/json");
    if (credentials.bearer) xhr.setRequestHeader("authorization", `Bearer ${credentials.bearer}`);
    if (input.idempotencyKey) xhr.setRequestHeader("idempotency-key", input.idempotencyKey);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) {
        input.onProgress?.(Math.min(100, Math.round((e.loaded / e.total) * 100)));
      }
    };
    xhr.onerror = () => reject(new NetworkError(new Error("upload failed")));
    xhr.ontimeout = xhr.onerror;
    xhr.onload = () => {
      // The server cannot store it now (503): sent again later by the offline queue.
      const away = unavailable(xhr.status, xhr.getResponseHeader("retry-after"));
      if (away) return reject(away);
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(errorOf(xhr.status, xhr.responseText));
        return;
      }
      try {
        const parsed = UploadResponse.safeParse(JSON.parse(xhr.responseText));
        if (parsed.success) {
          input.onProgress?.(100);
          resolve(parsed.data);
          return;
        }
      } catch {
        // fall through
      }
      reject(new ApiError(xhr.status, "bad_response", "The server answered badly"));
    };
    xhr.send(form);
  });
}

/**
 * fetch() with the API's answers to failure: no network → NetworkError, 503 → UnavailableError,
 * another error status → ApiError (its `{error, message}`); never cached.
 */
async function fetchOk(url: string, init: RequestInit = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, cache: "no-store" });
  } catch (err) {
    throw new NetworkError(err);
  }
  const away = unavailable(res.status, res.headers.get("retry-after"));
  if (away) throw away;
  if (!res.ok) throw errorOf(res.status, await res.text().catch(() => ""));
  return res;
}

/** The bearer header, when the session has a token. */
const bearerHeader = (): Record<string, string> =>
  credentials.bearer ? { authorization: `Bearer ${credentials.bearer}` } : {};

/** GETs a file under /bonita (content, preview) with the bearer token. */
export async function fetchFile(
  path: string,
  query: Record<string, string>,
): Promise<{ blob: Blob; type: string }> {
  const res = await fetchOk(`/bonita${path}?${new URLSearchParams(query)}`, {
    headers: bearerHeader(),
  });
  const blob = await res.blob();
  return { blob, type: res.headers.get("content-type") ?? blob.type };
}

/**
 * POSTs a JSON body to a call under /bonita that answers a file (the accounting export), with
 * the bearer token: the file and the name the server gave it (Content-Disposition).
 */
export async function postForFile(
  path: string,
  body: unknown,
  language: string,
): Promise<{ blob: Blob; name: string }> {
  const res = await fetchOk(`/bonita${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "accept-language": language,
      ...bearerHeader(),
    },
    body: JSON.stringify(body),
  });
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ??
    "export";
  return { blob: await res.blob(), name };
}

/** spec §7 remote document delete: DELETE {remoteUrl}/proxy?token (no bearer: the token). */
export async function deleteRemote(remoteUrl: string, token: string): Promise<void> {
  await fetchOk(`${remoteUrl}/proxy?token=${encodeURIComponent(token)}`, { method: "DELETE" });
}
