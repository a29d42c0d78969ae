import type { AppLoadContext } from "@remix-run/node";
import type { Upload } from "@tus/server";
import type { Readable } from "node:stream";
import type { Client } from "~/domain/platform/client";
import { DomainError, HTTP_STATUS, isDomainError } from "~/domain/platform/errors";
import {
  abandonUpload,
  appendToUpload,
  assertCanUpload,
  beginUpload,
  finishUpload,
  FINISHING,
  getUpload,
  type UploadSession,
} from "~/domain/consultation/index.server";
import type { Actor } from "~/domain/accounts/index.server";
import { reportUploadMaxBytes } from "~/domain/records/index.server";
import { tFor } from "~/i18n/i18n.server";
import { newId } from "~/lib/ids.server";
import { errorResponse, jsonResponse } from "./api.server";
import { fileActor } from "./file-access.server";
import { asRefusal } from "./faults.server";
import { log } from "~/lib/log.server";
import { clientOf } from "./request.server";

/**
 * The tus 1.0.0 protocol (https://tus.io/protocols/resumable-upload) for report uploads, spoken by
 * @tus/server's web-request handler (`handleWeb`) over our own store (decision 0015). The store
 * keeps nothing itself: every call goes to domain/records/uploads.server.ts, which keeps the upload in
 * `upload_sessions` and its bytes as encrypted segments, so any process or node can continue any
 * upload. Endpoints: POST /api/v1/uploads (create; OPTIONS there tells the protocol's settings),
 * HEAD / PATCH / DELETE /api/v1/uploads/:uploadId.
 */
export const TUS_PATH = "/api/v1/uploads";

/**
 * @tus/server and what this module builds on it, loaded by the first resumable upload, not when the
 * server starts (decision 0111).
 */
let kit: Promise<ReturnType<typeof buildKit>> | undefined;
const tusKit = () => (kit ??= import("@tus/server").then(buildKit));

function buildKit(tus: typeof import("@tus/server")) {
  /**
   * tus's own lock, per process: a request for an upload that another request of this process still
   * holds (a connection that died without closing) asks that one to stop, and what it had received
   * is stored before the lock passes on. Between processes and nodes the conditional updates of
   * the domain keep two requests from counting the same bytes.
   */
  const locker = new tus.MemoryLocker({ acquireLockTimeout: 15_000 });

  const toTusUpload = (s: UploadSession): Upload =>
    new tus.Upload({
      id: s.id,
      size: s.length,
      offset: s.received,
      metadata: { ...s.fields, ...(s.fileName ? { filename: s.fileName } : {}) },
      creation_date: s.createdAt.toISOString(),
    });

  /** The store @tus/server drives, bound to one request's patient. */
  class SegmentStore extends tus.DataStore {
    /** The session as this request left it when it stored the upload's last byte: it makes the report. */
    completedHere: UploadSession | undefined;

    constructor(
      private readonly actor: Actor,
      private readonly client: Client,
      private readonly method: string,
    ) {
      super();
      this.extensions = ["creation", "creation-with-upload", "termination"];
    }

    override async create(upload: Upload) {
      await beginUpload(
        this.actor,
        { id: upload.id, length: upload.size, metadata: upload.metadata },
        this.client,
      );
      return upload;
    }

    override async getUpload(id: string): Promise<Upload> {
      let session = await getUpload(this.actor, id);
      if (this.method === "HEAD" && session.received === session.length && !session.reportId) {
        // Every byte is here but no report yet: another request is making it (423, ask again), or it
        // died doing so and this request takes over. An offset equal to the length tells a client "done".
        await finishUpload(this.actor, id, this.client.ip);
        session = await getUpload(this.actor, id);
      }
      return toTusUpload(session);
    }

    override async write(stream: Readable, id: string, offset: number): Promise<number> {
      const session = await appendToUpload(this.actor, id, offset, stream);
      if (session.received === session.length && session.received > offset) this.completedHere = session;
      return session.received;
    }

    override async remove(id: string) {
      await abandonUpload(this.actor, id);
    }
  }
  return { tus, locker, SegmentStore };
}

/**
 * A request body that ends, instead of failing, when the connection is cut: tus counts bytes, not
 * requests, so what arrived is stored and the client continues from there. A body over the
 * server's limit still fails.
 */
function endOnCut(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        if ((err as { code?: string })?.code === "BODY_TOO_LARGE") controller.error(err);
        else controller.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The message key of a tus protocol refusal (the protocol's own texts are English only). */
function protocolMessage(status: number): string {
  if (status === 404 || status === 410) return "uploads.notFound";
  if (status === 409) return "uploads.offsetConflict";
  if (status === 412) return "uploads.versionRequired";
  if (status === 413) return "api.bodyTooLarge";
  if (status === 423) return FINISHING;
  if (status >= 500 && status !== 501) return "errors.serverError";
  return "uploads.badRequest";
}

const KEEP_HEADERS = ["tus-resumable", "tus-version", "tus-max-size", "tus-extension", "upload-offset"];

/**
 * Handles one tus request for /api/v1/uploads[/:uploadId]. Patients only, with a bearer token or
 * the browser session on a same-site request; an upload is only ever seen by its owner (404 for
 * anyone else). Refusals use the API's JSON error shape (`{ success: false, message, errors }`).
 */
export async function handleTus(
  request: Request,
  uploadId: string | undefined,
  context: AppLoadContext,
): Promise<Response> {
  const { tus, locker, SegmentStore } = await tusKit();
  const { t } = await tFor(request);
  const method = request.method.toUpperCase();
  const client = clientOf(context);
  const withTus = (response: Response) => {
    response.headers.set("Tus-Resumable", tus.TUS_RESUMABLE);
    response.headers.set("Cache-Control", "no-store");
    return response;
  };

  let actor: Actor | undefined;
  if (method !== "OPTIONS") {
    try {
      actor = await fileActor(request);
      assertCanUpload(actor);
    } catch (err) {
      const refusal = asRefusal(err);
      if (isDomainError(refusal)) return withTus(errorResponse(refusal, t));
      throw err;
    }
  }

  const store = actor ? new SegmentStore(actor, client, method) : new tus.DataStore();
  if (!actor) store.extensions = ["creation", "creation-with-upload", "termination"];
  let failure: DomainError | undefined;
  const server = new tus.Server({
    path: TUS_PATH,
    datastore: store,
    locker,
    relativeLocation: true,
    maxSize: reportUploadMaxBytes(),
    // Same-origin only: no CORS headers for other sites.
    allowedOrigins: () => false,
    namingFunction: () => newId(),
    getFileIdFromRequest: () => uploadId,
    async onUploadFinish(_req, upload) {
      const report = await finishUpload(
        actor!,
        upload.id,
        client.ip,
        store instanceof SegmentStore ? store.completedHere : undefined,
      );
      // Made by an earlier request: the protocol's plain 204.
      if (!report) return {};
      return {
        status_code: method === "POST" ? 201 : 200,
        headers: { "Content-Type": "application/json; charset=utf-8" },
        body: JSON.stringify({ success: true, message: t("reports.uploadSuccess"), data: report }),
      };
    },
    onResponseError(_req, thrown) {
      const err = asRefusal(thrown); // the store or database down: 503 with Retry-After, the offset kept
      if (isDomainError(err)) {
        failure = err;
        return { status_code: err.message === FINISHING ? 423 : HTTP_STATUS[err.code], body: err.message };
      }
      if (err === tus.ERRORS.ERR_MAX_SIZE_EXCEEDED || (err as { status_code?: number }).status_code === 413) {
        failure = new DomainError("too_large", "files.tooLarge", {
          values: { max: Number((reportUploadMaxBytes() / (1024 * 1024)).toFixed(1)) },
        });
        return { status_code: 413, body: failure.message };
      }
      if (typeof (err as { status_code?: number }).status_code === "number") return undefined; // tus's own refusal
      log("error", "upload fault", { error: String((err as Error)?.stack ?? err) });
      return { status_code: 500, body: "errors.serverError" };
    },
  });

  const hasBody = (method === "PATCH" || method === "POST") && request.body;
  const tusRequest = new Request(request.url, {
    method,
    headers: request.headers,
    body: hasBody ? endOnCut(request.body!) : undefined,
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
  const response = await server.handleWeb(tusRequest);
  if (method === "HEAD" && response.status < 400 && actor && uploadId) {
    // A finished upload names the report it made, so a client whose last answer was lost on the
    // way can still show the created record (the offline outbox, decision 0063).
    const reportId = await getUpload(actor, uploadId).then(
      (s) => s.reportId,
      () => null,
    );
    if (reportId) response.headers.set("CareBridge-Report-Id", reportId);
  }
  if (response.status < 400) return withTus(response);

  // Refusals in the API's shape, keeping the protocol's headers.
  const json = failure
    ? errorResponse(failure, t)
    : jsonResponse({ success: false, message: t(protocolMessage(response.status)) }, response.status);
  const out = new Response(json.body, { status: response.status, headers: json.headers });
  for (const name of KEEP_HEADERS) {
    const v = response.headers.get(name);
    if (v) out.headers.set(name, v);
  }
  return withTus(out);
}
