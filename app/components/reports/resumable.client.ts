import { UPLOAD_FORM_FIELDS } from "~/schemas/reports";
import { Upload, type DetailedError, type PreviousUpload, type UrlStorage } from "tus-js-client";

export { shrinkPhoto, type PhotoResult } from "./photo";

/**
 * The upload page's resumable sending (decision 0015), loaded by that page only (a dynamic
 * import), with tus-js-client: the file goes in chunks to /api/v1/uploads; a cut connection is
 * retried with growing delays, and after a longer outage the upload waits and continues by itself
 * when the browser is online again (or every few seconds). Where to continue is always asked from
 * the server (HEAD), so nothing is sent twice that the server already has — not even after a reload,
 * when choosing the same file again finds the earlier upload.
 *
 * The browser remembers only the upload's address, size and start time (localStorage), never the
 * report's details: tus-js-client's own store would keep the metadata (phone, description) there.
 */

export const ENDPOINT = "/api/v1/uploads";
/** Small enough that a chunk on a 50 kbit/s link is under two minutes; what arrived is kept anyway. */
export const CHUNK_BYTES = 512 * 1024;
/**
 * tus-js-client's retries after a failed request (reset whenever bytes got through). Kept short
 * (~9 s in all): a link that dies while the phone still believes it is online shows the waiting
 * notice after them, and the wait below goes on retrying every WAIT_RETRY_MS for as long as it takes.
 */
const RETRY_DELAYS = [0, 1_000, 3_000, 5_000];
/** After the retries: try again this often while waiting (and at once when the browser goes online). */
const WAIT_RETRY_MS = 10_000;
/** The server sweeps uploads idle this long; older remembered ones are forgotten. */
const REMEMBER_MS = 24 * 60 * 60 * 1000;
const STORE_PREFIX = "carebridge-upload::";

type Stored = { size: number | null; creationTime: string; uploadUrl: string | null };

function storage(): Storage | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null; // storage disabled
  }
}

/** tus-js-client's URL storage without the metadata. */
class AddressOnlyStorage implements UrlStorage {
  async findAllUploads() {
    return this.find(STORE_PREFIX);
  }
  async findUploadsByFingerprint(fingerprint: string, startsWith = false) {
    return this.find(`${STORE_PREFIX}${fingerprint}${startsWith ? "" : "::"}`);
  }
  async removeUpload(key: string) {
    storage()?.removeItem(key);
  }
  async addUpload(fingerprint: string, upload: PreviousUpload) {
    const key = `${STORE_PREFIX}${fingerprint}::${Math.round(Math.random() * 1e12)}`;
    const value: Stored = {
      size: upload.size,
      creationTime: upload.creationTime,
      uploadUrl: upload.uploadUrl,
    };
    try {
      storage()?.setItem(key, JSON.stringify(value));
    } catch {
      /* full or disabled: the upload still works, it just cannot be found after a reload */
    }
    return key;
  }
  private find(prefix: string): PreviousUpload[] {
    const s = storage();
    if (!s) return [];
    const out: PreviousUpload[] = [];
    for (let i = s.length - 1; i >= 0; i--) {
      const key = s.key(i);
      if (!key?.startsWith(prefix)) continue;
      try {
        const v = JSON.parse(s.getItem(key) ?? "") as Stored;
        if (!v.uploadUrl || Date.now() - Date.parse(v.creationTime) > REMEMBER_MS) {
          s.removeItem(key);
          continue;
        }
        out.push({ ...v, metadata: {}, urlStorageKey: key, parallelUploadUrls: null });
      } catch {
        s.removeItem(key);
      }
    }
    return out.sort((a, b) => Date.parse(b.creationTime) - Date.parse(a.creationTime));
  }
}

const urlStorage = new AddressOnlyStorage();

/** FNV-1a over some bytes: tells two files of equal name and size apart. */
function fnv(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Which upload a file belongs to: the account, name, type, size, date and a hash of its first and
 * last 64 KiB (a photo made smaller is the same bytes each time the same photo is chosen).
 */
async function fingerprintOf(file: File, owner: string): Promise<string> {
  const edge = 64 * 1024;
  let h = fnv(new Uint8Array(await file.slice(0, edge).arrayBuffer()));
  if (file.size > edge)
    h = fnv(new Uint8Array(await file.slice(Math.max(edge, file.size - edge)).arrayBuffer()), h);
  return ["cb1", owner, file.name, file.type, file.size, file.lastModified, h.toString(16)].join("/");
}

/** Whether this account has an unfinished upload remembered here: the page offers to continue it. */
export async function hasUnfinished(owner: string): Promise<boolean> {
  return (await urlStorage.findUploadsByFingerprint(`cb1/${owner}/`, true)).length > 0;
}

export type Previous = {
  upload: PreviousUpload;
  /** Bytes the server has. */
  offset: number;
  length: number;
  /** The report's fields sent when the upload began. */
  fields: Record<string, string>;
};

function decodeMetadata(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (header ?? "").split(",")) {
    const [key, value] = pair.trim().split(" ");
    if (!key) continue;
    try {
      const bytes = Uint8Array.from(atob(value ?? ""), (c) => c.charCodeAt(0));
      out[key] = new TextDecoder().decode(bytes);
    } catch {
      out[key] = "";
    }
  }
  return out;
}

/**
 * The unfinished upload of this file, asked from the server (HEAD): how much it has and the
 * details given then. Forgets remembered uploads the server no longer has.
 */
export async function findPrevious(file: File, owner: string): Promise<Previous | null> {
  const fingerprint = await fingerprintOf(file, owner);
  for (const upload of await urlStorage.findUploadsByFingerprint(fingerprint)) {
    if (!upload.uploadUrl || upload.size !== file.size) continue;
    let res: Response;
    try {
      res = await fetch(upload.uploadUrl, {
        method: "HEAD",
        headers: { "Tus-Resumable": "1.0.0" },
        credentials: "same-origin",
        cache: "no-store",
      });
    } catch {
      return null; // offline: nothing can be said now
    }
    if (res.status >= 400 && res.status < 500 && res.status !== 423) {
      await urlStorage.removeUpload(upload.urlStorageKey);
      continue;
    }
    const offset = Number(res.headers.get("Upload-Offset"));
    const length = Number(res.headers.get("Upload-Length"));
    if (!res.ok || !Number.isFinite(offset) || length !== file.size) continue;
    if (offset >= length) {
      // It was finished (the answer was lost on the way): a new upload is a new report.
      await urlStorage.removeUpload(upload.urlStorageKey);
      continue;
    }
    return { upload, offset, length, fields: decodeMetadata(res.headers.get("Upload-Metadata")) };
  }
  return null;
}

/** The metadata of a new upload from the form's fields. */
export function metadataFrom(form: FormData, file: File): Record<string, string> {
  const out: Record<string, string> = { filename: file.name, filetype: file.type };
  for (const k of UPLOAD_FORM_FIELDS) {
    const v = form.get(k);
    if (typeof v === "string") out[k] = v;
  }
  return out;
}

/** Whether the form now says the same as when the earlier upload began (else a new upload starts). */
export function sameFields(a: Record<string, string>, b: Record<string, string>): boolean {
  return UPLOAD_FORM_FIELDS.every((k) => (a[k] ?? "").trim() === (b[k] ?? "").trim());
}

/** A refusal from the server: its status and the API's JSON body, when there was one. */
export type Refusal = {
  status: number;
  message?: string;
  errors?: Record<string, string[]>;
};

export type Sending = {
  /** Stops sending and ends the upload on the server. */
  cancel(): void;
  /** Stops sending; the upload stays on the server (choosing the same file continues it). */
  pause(): void;
  /** While waiting for the connection: try at once. */
  retryNow(): void;
};

/** tus-js-client's request errors that a later attempt may get past (no answer, a server fault, busy). */
function isTransient(err: Error | DetailedError): boolean {
  const res = (err as DetailedError).originalResponse;
  if (!(err as DetailedError).originalRequest) return false;
  if (!res) return true;
  const status = res.getStatus();
  return status === 0 || status >= 500 || status === 409 || status === 423;
}

function refusalOf(err: Error | DetailedError): Refusal {
  const res = (err as DetailedError).originalResponse;
  const status = res?.getStatus() ?? 0;
  try {
    const body = JSON.parse(res?.getBody() ?? "") as { message?: string; errors?: Record<string, string[]> };
    return { status, message: body.message, errors: body.errors };
  } catch {
    return { status };
  }
}

/**
 * Sends `file` (continuing `previous` when given). Reports progress in bytes the browser has
 * sent, `waiting` while the connection is gone, and ends in `done` or `refused`.
 */
export async function send(
  file: File,
  opts: {
    owner: string;
    metadata: Record<string, string>;
    previous?: Previous | null;
    onProgress: (sent: number, total: number) => void;
    onWaiting: (waiting: boolean) => void;
    onDone: () => void;
    onRefused: (refusal: Refusal) => void;
  },
): Promise<Sending> {
  let waitTimer: ReturnType<typeof setTimeout> | undefined;
  let waiting = false;
  let stopped = false;
  const fingerprint = await fingerprintOf(file, opts.owner);

  const setWaiting = (on: boolean) => {
    if (waiting === on) return;
    waiting = on;
    opts.onWaiting(on);
  };
  const resume = () => {
    if (!waiting || stopped) return;
    clearTimeout(waitTimer);
    window.removeEventListener("online", resume);
    upload.start(); // asks the server where to continue (HEAD), then sends the rest
  };
  const wait = () => {
    setWaiting(true);
    clearTimeout(waitTimer);
    window.removeEventListener("online", resume);
    window.addEventListener("online", resume);
    waitTimer = setTimeout(resume, WAIT_RETRY_MS);
  };
  const stop = () => {
    stopped = true;
    clearTimeout(waitTimer);
    window.removeEventListener("online", resume);
  };

  const upload = new Upload(file, {
    endpoint: ENDPOINT,
    chunkSize: CHUNK_BYTES,
    retryDelays: RETRY_DELAYS,
    metadata: opts.metadata,
    urlStorage,
    fingerprint: async () => fingerprint,
    storeFingerprintForResuming: true,
    removeFingerprintOnSuccess: true,
    onProgress(sent, total) {
      setWaiting(false);
      opts.onProgress(sent, total);
    },
    onSuccess() {
      stop();
      setWaiting(false);
      opts.onDone();
    },
    onError(err) {
      if (stopped) return;
      if (isTransient(err)) {
        wait();
        return;
      }
      stop();
      setWaiting(false);
      const refusal = refusalOf(err);
      // Refused for good (not a signed-out session): nothing to continue after a reload.
      if (refusal.status !== 401) void forgetFingerprint(fingerprint);
      opts.onRefused(refusal);
    },
  });
  if (opts.previous) upload.resumeFromPreviousUpload(opts.previous.upload);
  upload.start();
  return {
    cancel() {
      stop();
      void upload.abort(true).catch(() => {});
    },
    pause() {
      stop();
      void upload.abort(false).catch(() => {});
    },
    retryNow() {
      resume();
    },
  };
}

async function forgetFingerprint(fingerprint: string) {
  for (const u of await urlStorage.findUploadsByFingerprint(fingerprint))
    await urlStorage.removeUpload(u.urlStorageKey);
}

/** Ends an earlier upload of the same file on the server (a new one replaces it). */
export function forget(previous: Previous): void {
  void urlStorage.removeUpload(previous.upload.urlStorageKey);
  if (previous.upload.uploadUrl) {
    void fetch(previous.upload.uploadUrl, {
      method: "DELETE",
      headers: { "Tus-Resumable": "1.0.0" },
      credentials: "same-origin",
    }).catch(() => {});
  }
}
