import {
  announce,
  currentSession,
  deleteItemIf,
  getItem,
  isUnlocked,
  itemsOf,
  openPayload,
  sealPayload,
  updateItem,
} from "./store";
import type { ItemPayload, ItemReason, ItemResult, StoredItem } from "./types";

/**
 * Sends the signed-in account's outbox (decision 0063), from a page ("Send now", going online,
 * opening the app) or from the service worker's Background Sync. One sender at a time per browser
 * (a Web Lock); items go oldest first, an item waits for the one it comes `after` (a registration
 * before that patient's uploads). Every request carries the item's id as its `Idempotency-Key`, so
 * an item sent twice (an answer lost on the way, page and worker racing) is created once. An item
 * is "sent" only when the server answered with the created record.
 */

export const OUTBOX_HEADERS = { "X-CareBridge-Outbox": "1" } as const;
/** tus chunks: small enough for a slow link, each one kept by the server once it arrived. */
export const CHUNK_BYTES = 512 * 1024;
/** Sent items stay listed this long ("sent"), without their files. */
const KEEP_SENT_MS = 7 * 24 * 60 * 60 * 1000;

/** The link is down, the session ended or the server asks to wait: stop for now, keep the item waiting. */
class Pause extends Error {
  constructor(readonly reason?: ItemReason) {
    super("pause");
  }
}
/** The server refused the item itself: it needs the person. */
class Refused extends Error {
  constructor(readonly reason: ItemReason) {
    super("refused");
  }
}

type Body = {
  success?: boolean;
  message?: string;
  errors?: Record<string, string[]>;
  data?: unknown;
  held?: boolean;
  /** A resumable upload a suspended or moved worker cannot make: send it whole here to be kept. */
  holdAt?: string;
};

/** The item must be sent whole, as multipart, to this endpoint (which keeps it for the centre). */
class SendWhole extends Error {
  constructor(readonly url: string) {
    super("send-whole");
  }
}

async function readBody(res: Response): Promise<Body> {
  try {
    return (await res.json()) as Body;
  } catch {
    return {};
  }
}

/** A non-2xx answer: wait (401, 408, 423, 429, a busy 409, 5xx) or refused (any other 4xx). */
async function fail(res: Response): Promise<never> {
  const body = await readBody(res);
  if (body.holdAt?.startsWith("/api/v1/")) throw new SendWhole(body.holdAt);
  const reason: ItemReason = {
    status: res.status,
    message: body.message ?? "",
    errors: body.errors,
    held: body.held === true ? true : undefined,
  };
  // 409 with Retry-After: the same key's first request is still at work (decision 0062).
  const busy = res.status === 409 && res.headers.has("Retry-After") && body.held === undefined;
  if ([401, 408, 423, 429].includes(res.status) || res.status >= 500 || busy) throw new Pause(reason);
  throw new Refused(reason);
}

/**
 * How the sender reaches the server: the page's or the service worker's `fetch`, and its origin
 * (a tus upload's address is resolved against it). Tests below the browser pass their own server
 * (tests/unit/offline-send.test.ts).
 */
export type Net = { fetch: typeof fetch; origin: string };

/** This realm's: the page's or the worker's (`self` is either). */
function realmNet(): Net {
  return { fetch: (input, init) => fetch(input, init), origin: self.location.origin };
}

/** The centre a worker's items were recorded for (the server refuses and keeps them if it is not theirs). */
let centreHeader: Record<string, string> = {};

async function call(net: Net, url: string, init: RequestInit): Promise<Response> {
  try {
    const headers = { ...(init.headers as Record<string, string>), ...centreHeader };
    return await net.fetch(url, { ...init, headers, credentials: "same-origin", cache: "no-store" });
  } catch {
    throw new Pause(); // offline, or the connection dropped
  }
}

function resultOf(data: unknown): ItemResult {
  const d = (data ?? {}) as Record<string, unknown>;
  const id = String(d._id ?? d.id ?? "");
  return {
    id,
    shortId: typeof d.shortId === "string" ? d.shortId : undefined,
    patientId: typeof d.patientId === "string" ? d.patientId : undefined,
  };
}

function form(payload: ItemPayload, fileField: string, extra: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries({ ...payload.fields, ...extra })) fd.set(k, v);
  if (payload.file)
    fd.set(fileField, new Blob([payload.file.bytes], { type: payload.file.type }), payload.file.name);
  return fd;
}

async function post(
  net: Net,
  item: StoredItem,
  url: string,
  body: BodyInit,
  json = false,
): Promise<ItemResult> {
  const headers: Record<string, string> = { ...OUTBOX_HEADERS, "Idempotency-Key": item.id };
  if (json) headers["Content-Type"] = "application/json";
  const res = await call(net, url, { method: "POST", headers, body });
  if (!res.ok) await fail(res);
  const result = resultOf((await readBody(res)).data);
  if (!result.id) throw new Pause();
  return result;
}

function b64(s: string): string {
  let bin = "";
  for (const byte of new TextEncoder().encode(s)) bin += String.fromCharCode(byte);
  return btoa(bin);
}

/**
 * A report through the resumable upload (tus 1.0.0): created once (Idempotency-Key), then sent in
 * chunks from where the server says it is; a dropped connection resumes at the server's offset.
 */
async function sendUpload(net: Net, item: StoredItem, payload: ItemPayload): Promise<ItemResult> {
  const file = payload.file;
  if (!file) throw new Refused({ status: 400, message: "" });
  const tus = { ...OUTBOX_HEADERS, "Tus-Resumable": "1.0.0" };
  let url = item.uploadUrl;
  let offset = 0;
  if (url) {
    const head = await call(net, url, { method: "HEAD", headers: tus });
    if (head.status === 404 || head.status === 410)
      url = undefined; // swept: start again
    else if (!head.ok) await fail(head);
    else {
      offset = Number(head.headers.get("Upload-Offset") ?? 0);
      const reportId = head.headers.get("CareBridge-Report-Id");
      if (reportId) return { id: reportId }; // finished; the answer was lost on the way
    }
  }
  if (!url) {
    const meta = { ...payload.fields, filename: file.name, filetype: file.type };
    const res = await call(net, "/api/v1/uploads", {
      method: "POST",
      headers: {
        ...tus,
        "Idempotency-Key": item.id,
        "Upload-Length": String(file.bytes.byteLength),
        "Upload-Metadata": Object.entries(meta)
          .map(([k, v]) => `${k} ${b64(v)}`)
          .join(","),
      },
    });
    if (!res.ok) await fail(res);
    const location = res.headers.get("Location");
    if (!location) throw new Pause();
    url = new URL(location, net.origin).pathname;
    const at = url;
    await updateItem(item.id, (i) => ({ ...i, uploadUrl: at }));
    offset = 0;
  }
  const total = file.bytes.byteLength;
  for (;;) {
    const end = Math.min(total, offset + CHUNK_BYTES);
    const res = await call(net, url, {
      method: "PATCH",
      headers: { ...tus, "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" },
      body: file.bytes.slice(offset, end),
    });
    if (res.status === 409) {
      // The server has a different offset (a chunk arrived whose answer was lost): ask it.
      const head = await call(net, url, { method: "HEAD", headers: tus });
      if (!head.ok) await fail(head);
      offset = Number(head.headers.get("Upload-Offset") ?? 0);
      continue;
    }
    if (!res.ok) await fail(res);
    offset = Number(res.headers.get("Upload-Offset") ?? end);
    await updateItem(item.id, (i) => ({ ...i, progress: { sent: offset, total } }));
    announce();
    if (offset >= total) {
      const body = await readBody(res);
      if (body.data) return resultOf(body.data);
      const head = await call(net, url, { method: "HEAD", headers: tus });
      const reportId = head.headers.get("CareBridge-Report-Id");
      if (reportId) return { id: reportId };
      throw new Pause();
    }
  }
}

/** Fills in what an item takes from the one before it (the patient just registered, the report just sent). */
async function resolved(item: StoredItem, payload: ItemPayload): Promise<ItemPayload> {
  if (!item.after) return payload;
  const before = await getItem(item.after);
  const id = before?.result?.id;
  if (!id) throw new Pause();
  if (before.kind === "register") return { ...payload, fields: { ...payload.fields, patientId: id } };
  return { ...payload, reportId: id };
}

async function sendOne(net: Net, item: StoredItem): Promise<ItemResult> {
  const payload = await resolved(item, await openPayload(item));
  switch (item.kind) {
    case "register":
      return post(net, item, "/api/v1/centre/patients", form(payload, "evidence"));
    case "upload":
      try {
        return await sendUpload(net, item, payload);
      } catch (err) {
        if (!(err instanceof SendWhole)) throw err;
        return post(net, item, err.url, form(payload, "report"));
      }
    case "voice":
      return post(
        net,
        item,
        "/api/v1/voice-notes",
        form(payload, "audio", { reportId: payload.reportId ?? "" }),
      );
    case "follow-up":
      return post(
        net,
        item,
        `/api/v1/report/follow-up/${encodeURIComponent(payload.reportId ?? "")}`,
        JSON.stringify(payload.fields),
        true,
      );
  }
}

/** The fields a sent item keeps: a registration's name and number (the forms offer that patient). */
const KEPT_WHEN_SENT = ["firstName", "lastName", "phone"];

/** A sent item keeps its label and result, not its file or other fields. */
async function markSent(item: StoredItem, result: ItemResult): Promise<void> {
  const payload = await openPayload(item);
  const fields: Record<string, string> = {};
  if (item.kind === "register")
    for (const k of KEPT_WHEN_SENT) if (payload.fields[k] !== undefined) fields[k] = payload.fields[k];
  const sealed = await sealPayload(item.accountId, { label: payload.label, fields });
  await updateItem(item.id, (i) => ({
    ...i,
    state: "sent",
    result,
    reason: undefined,
    progress: undefined,
    sealed,
    sentAt: new Date().toISOString(),
  }));
}

async function run(net: Net): Promise<void> {
  const session = await currentSession();
  // Locked (decision 0072): nothing can be opened to be sent until her password unlocks it.
  if (!session || !isUnlocked(session.accountId)) return;
  const items = await itemsOf(session.accountId);
  const now = Date.now();
  // A sent item another one still needs (its patient's or report's id) stays until that one goes.
  const needed = new Set(items.filter((i) => i.state !== "sent" && i.after).map((i) => i.after));
  for (const item of items) {
    const old = item.sentAt && now - Date.parse(item.sentAt) > KEEP_SENT_MS;
    if (item.state === "sent" && old && !needed.has(item.id))
      await deleteItemIf(item.id, (i) => i.state === "sent");
  }
  for (const listed of items) {
    const item = await getItem(listed.id);
    if (!item || (item.state !== "waiting" && item.state !== "sending")) continue;
    if (item.after) {
      const before = await getItem(item.after);
      if (!before) {
        // The one it came after is gone from this phone: it cannot be sent; it stays and says so.
        const reason = { status: 0, message: "", waitsFor: item.after };
        await updateItem(item.id, (i) => ({ ...i, state: "needs-you", reason }));
        announce();
        continue;
      }
      if (before.state === "needs-you") {
        // The one it comes after was refused: this one cannot go either, and says why.
        const reason = { ...before.reason!, errors: undefined, held: undefined, waitsFor: before.id };
        await updateItem(item.id, (i) => ({ ...i, state: "needs-you", reason }));
        announce();
        continue;
      }
      if (before.state !== "sent") continue; // it goes when the one before it has
    }
    // Where and when it was recorded: a moved worker's item is kept for the old centre only if
    // recorded there before the move (decisions 0065, 0073).
    centreHeader = item.centreId
      ? { "X-CareBridge-Centre": item.centreId, "X-CareBridge-Recorded-At": item.createdAt }
      : {};
    await updateItem(item.id, (i) => ({ ...i, state: "sending", reason: undefined }));
    announce();
    try {
      await markSent(item, await sendOne(net, item));
    } catch (err) {
      if (err instanceof Refused) {
        await updateItem(item.id, (i) => ({ ...i, state: "needs-you", reason: err.reason }));
        announce();
        continue;
      }
      const reason = err instanceof Pause ? err.reason : undefined;
      await updateItem(item.id, (i) => ({ ...i, state: "waiting", reason }));
      announce();
      if (err instanceof Pause) return; // offline or told to wait: the rest waits too
      throw err;
    }
    announce();
  }
}

/** Sends what is waiting; resolves when done or when the link is down again. */
export async function sendOutbox(net: Net = realmNet()): Promise<void> {
  if (typeof navigator !== "undefined" && "locks" in navigator) {
    await navigator.locks.request("carebridge-outbox", { ifAvailable: true }, async (lock) => {
      if (lock) await run(net);
    });
    return;
  }
  await run(net);
}
