import { createDecipheriv, type DecipherGCM } from "node:crypto";
import { Readable } from "node:stream";
import { config } from "~/config.server";
import { blobStore } from "~/storage/factory.server";
import { DomainError } from "../platform/errors";

/**
 * What both encrypted formats share (a stored file, files.server.ts; a segment of a resumable
 * upload, upload-segments.server.ts): AES-256-GCM with a random IV per object, the shape of an
 * object's key, and opening an object — header checked first, plaintext decrypted as it is read.
 */

export const IV_BYTES = 12;
export const TAG_BYTES = 16;
export const ALGORITHM = "aes-256-gcm";
/** Ciphertext is written in pieces of about this size (fewer, larger writes). */
export const WRITE_BATCH_BYTES = 256 * 1024;

const KEY_RE = /^[a-f0-9]{32}$/;

export function isValidKey(key: unknown): key is string {
  return typeof key === "string" && KEY_RE.test(key);
}

export function assertKey(key: string) {
  if (!isValidKey(key)) throw new DomainError("not_found", "files.notFound");
}

type OpenedObject = {
  /** The header bytes after magic and IV (a segment's start offset; empty for a report file). */
  extra: Buffer;
  /** Plaintext size in bytes. */
  size: number;
  /** The plaintext (decrypted lazily; errors when the tag does not match). */
  stream: Readable;
  /** Releases the underlying object stream when the plaintext is not read to its end. */
  close(): Promise<void>;
};

/**
 * Opens an encrypted object of either format: reads magic, IV and `extraBytes` more header bytes
 * before anything is handed out (so an unknown format fails cleanly), then decrypts lazily with
 * the AAD magic + key + extra header, holding back the last 16 bytes as the GCM tag.
 */
export async function openObject(key: string, magic: Buffer, extraBytes: number): Promise<OpenedObject> {
  const object = await blobStore().get(key);
  if (!object) throw new DomainError("not_found", "files.notFound");
  const { stream, size } = object;
  const headerBytes = magic.length + IV_BYTES + extraBytes;
  if (size < headerBytes + TAG_BYTES + 1) {
    stream.destroy();
    throw new Error(`stored file ${key} is truncated`);
  }
  const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let buffered = Buffer.alloc(0);
  try {
    while (buffered.length < headerBytes) {
      const next = await source.next();
      if (next.done) throw new Error(`stored file ${key} is truncated`);
      buffered = Buffer.concat([buffered, next.value]);
    }
    if (!buffered.subarray(0, magic.length).equals(magic))
      throw new Error(`stored file ${key} has an unknown format`);
  } catch (err) {
    await source.return?.();
    throw err;
  }
  const extra = Buffer.from(buffered.subarray(magic.length + IV_BYTES, headerBytes));
  const decipher = createDecipheriv(
    ALGORITHM,
    config().encryptionKey,
    buffered.subarray(magic.length, magic.length + IV_BYTES),
  ) as DecipherGCM;
  decipher.setAAD(Buffer.concat([magic, Buffer.from(key, "ascii"), extra]));
  const cipherEnd = size - TAG_BYTES; // ciphertext is bytes [headerBytes, cipherEnd)

  async function* plaintext(): AsyncGenerator<Buffer> {
    let pos = buffered.length; // bytes of the object read so far
    let tail: Buffer = buffered.subarray(headerBytes); // read but not yet decrypted (may hold tag bytes)
    try {
      for (;;) {
        // Everything before cipherEnd is ciphertext; the rest is (part of) the tag.
        const cipherInTail = Math.max(0, tail.length - Math.max(0, pos - cipherEnd));
        if (cipherInTail > 0) {
          const out = decipher.update(tail.subarray(0, cipherInTail));
          tail = tail.subarray(cipherInTail);
          if (out.length) yield out;
        }
        const next = await source.next();
        if (next.done) break;
        pos += next.value.length;
        tail = tail.length ? Buffer.concat([tail, next.value]) : next.value;
      }
      if (pos !== size || tail.length !== TAG_BYTES) throw new Error(`stored file ${key} is truncated`);
      decipher.setAuthTag(tail);
      const last = decipher.final(); // throws when the tag does not match: tampered or wrong key
      if (last.length) yield last;
    } finally {
      await source.return?.();
    }
  }
  const plain = Readable.from(plaintext(), { objectMode: false });
  return {
    extra,
    size: size - headerBytes - TAG_BYTES,
    stream: plain,
    close: async () => {
      plain.destroy();
      await source.return?.();
    },
  };
}
