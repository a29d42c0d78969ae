import { unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import { DomainError } from "~/domain/errors";
import { storeUpload, deleteStored, type StoredFile, type UploadKind } from "~/domain/files.server";

const MAX_TEXT_PART = 64 * 1024;
const MAX_PARTS = 20;

export type ParsedUpload = { fields: Record<string, string>; file: StoredFile | null };

/**
 * Reads a multipart request, streaming the one file field straight into the encrypted file
 * store (never held whole in memory) and the other fields as short text. A file that fails
 * (too large, wrong type, empty) has the rest of its bytes read and dropped, so the client
 * gets the clear error response instead of a reset connection. The caller owns the stored
 * file afterwards and must delete it if it does not keep it (see `discardUpload`).
 */
export async function parseUpload(
  request: Request,
  opts: { fileField: string; kind: UploadKind; maxBytes: number },
): Promise<ParsedUpload> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data/i.test(type)) {
    throw new DomainError("invalid", "files.expectedMultipart");
  }
  const fields: Record<string, string> = {};
  let file: StoredFile | null = null;
  let failure: unknown = null;
  let parts = 0;

  const handler: UploadHandler = async ({ name, filename, data }) => {
    parts++;
    const it = data[Symbol.asyncIterator]();
    const drain = async () => {
      for (let r = await it.next(); !r.done; r = await it.next()) {
        /* discard */
      }
    };
    // A view of the part that cannot end the underlying stream early.
    const view: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({ next: () => it.next() }),
    };
    if (parts > MAX_PARTS || failure) {
      await drain();
      return undefined;
    }
    if (name === opts.fileField && filename !== undefined) {
      if (file) {
        await drain();
        return undefined;
      }
      try {
        // An empty file input sends a part with no name and no bytes: treat it as "no file".
        file = await storeUpload(view, { maxBytes: opts.maxBytes, allowed: opts.kind, fileName: filename });
      } catch (err) {
        if (err instanceof DomainError && err.message === "files.empty" && !filename) {
          return undefined;
        }
        failure = err;
        await drain();
      }
      return undefined;
    }
    let size = 0;
    const chunks: Buffer[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) {
      size += r.value.byteLength;
      if (size <= MAX_TEXT_PART) chunks.push(Buffer.from(r.value));
    }
    if (size > MAX_TEXT_PART) {
      failure = new DomainError("invalid", "files.fieldTooLong", {
        fieldErrors: { [name]: ["files.fieldTooLong"] },
      });
      return undefined;
    }
    if (filename === undefined && !(name in fields)) fields[name] = Buffer.concat(chunks).toString("utf8");
    return undefined;
  };

  try {
    await unstable_parseMultipartFormData(request, handler);
  } catch (err) {
    failure ??= err instanceof DomainError ? err : new DomainError("invalid", "files.uploadInterrupted");
  }
  if (failure) {
    if (file) await deleteStored((file as StoredFile).key).catch(() => {});
    throw failure;
  }
  return { fields, file };
}

export async function discardUpload(file: StoredFile | null) {
  if (file) await deleteStored(file.key).catch(() => {});
}
