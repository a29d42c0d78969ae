import busboy from "busboy";
import { Readable } from "node:stream";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import { DomainError } from "~/domain/platform/errors";
import { storeUpload, deleteStored, type StoredFile, type UploadKind } from "~/domain/records/index.server";

const MAX_TEXT_PART = 64 * 1024;
const MAX_PARTS = 20;

export type ParsedUpload = { fields: Record<string, string>; file: StoredFile | null };

function tooLarge(maxBytes: number) {
  return new DomainError("too_large", "files.tooLarge", {
    values: { max: Number((maxBytes / (1024 * 1024)).toFixed(1)) },
  });
}

/**
 * Reads a multipart request with busboy (a streaming parser), the one file field going
 * straight into the encrypting writer of the file store (never whole in memory) and the other
 * fields as short text. The first failure — a file over the limit, a wrong type, a body cut
 * off before its closing boundary, a body over the server's limit — stops reading at once:
 * nothing more is copied through the parser and the stored part is removed. The caller owns
 * the stored file afterwards and must delete it if it does not keep it (see `discardUpload`).
 */
export async function parseUpload(
  request: Request,
  opts: { fileField: string; kind: UploadKind; maxBytes: number },
): Promise<ParsedUpload> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data/i.test(type) || !request.body) {
    throw new DomainError("invalid", "files.expectedMultipart");
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": type },
      limits: { parts: MAX_PARTS, fields: MAX_PARTS, fieldSize: MAX_TEXT_PART, fileSize: opts.maxBytes + 1 },
      defParamCharset: "utf8",
    });
  } catch {
    throw new DomainError("invalid", "files.expectedMultipart"); // e.g. no boundary
  }
  const source = Readable.fromWeb(request.body as unknown as NodeWebStream<Uint8Array>);
  const fields: Record<string, string> = {};
  let file: StoredFile | null = null;
  let fileTask: Promise<void> | null = null;
  let failure: unknown = null;

  return new Promise<ParsedUpload>((resolve, reject) => {
    let settled = false;
    const settle = async () => {
      if (settled) return;
      settled = true;
      await fileTask?.catch(() => {});
      if (failure) {
        if (file) await deleteStored(file.key).catch(() => {});
        reject(failure);
      } else resolve({ fields, file });
    };
    const fail = (err: unknown) => {
      failure ??= err;
      // Stop reading: the rest of the body is not copied through the parser.
      source.unpipe(parser);
      source.destroy();
      parser.removeAllListeners("file");
      parser.removeAllListeners("field");
      void settle();
    };

    parser.on("file", (name, stream, info) => {
      // busboy also reports a cut-off body on the file's stream; the parser's own "error" handles
      // it, and the store may have stopped listening already (wrong type): never unhandled.
      stream.on("error", () => {});
      if (failure || name !== opts.fileField || fileTask) {
        stream.resume(); // an extra or unknown file part: dropped
        return;
      }
      stream.once("limit", () => fail(tooLarge(opts.maxBytes)));
      fileTask = storeUpload(stream, { maxBytes: opts.maxBytes, allowed: opts.kind, fileName: info.filename })
        .then((stored) => {
          if (failure) void deleteStored(stored.key).catch(() => {});
          else file = stored;
        })
        .catch((err) => {
          // An empty file input sends a part with no file name and no bytes: "no file".
          if (err instanceof DomainError && err.message === "files.empty" && !info.filename) return;
          fail(err);
        });
    });
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) {
        fail(
          new DomainError("invalid", "files.fieldTooLong", {
            fieldErrors: { [name]: ["files.fieldTooLong"] },
          }),
        );
        return;
      }
      if (!(name in fields)) fields[name] = value;
    });
    parser.once("error", () => fail(new DomainError("invalid", "files.uploadInterrupted")));
    parser.once("close", () => void settle());
    source.once("error", (err) => {
      fail(
        (err as { code?: string })?.code === "BODY_TOO_LARGE"
          ? tooLarge(opts.maxBytes)
          : new DomainError("invalid", "files.uploadInterrupted"),
      );
    });
    source.pipe(parser);
  });
}

export async function discardUpload(file: StoredFile | null) {
  if (file) await deleteStored(file.key).catch(() => {});
}
