import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3_CREDENTIALS, startS3, type S3Server } from "../helpers/backends";

/*
 * The encrypted file store on an S3-compatible bucket (a real s3rver over HTTP, the official SDK):
 * what reaches the bucket is ciphertext, a refused or broken upload leaves no object (also one cut
 * off after several multipart parts), a tampered object fails, and the sweep removes orphans but
 * keeps young objects. The domain runs on SQLite here; only the file store is S3.
 */

let s3: S3Server;
let files: typeof import("~/domain/records/files.server");
let tmp: string;
const BUCKET = "cb-files-test";
const PREFIX = "clinic-7/";
const MB = 1024 * 1024;

beforeAll(async () => {
  s3 = await startS3();
  const storage = await s3.createBucket(BUCKET);
  tmp = mkdtempSync(path.join(os.tmpdir(), "cb-files-s3-"));
  Object.assign(process.env, {
    DATA_DIR: path.join(tmp, "data"),
    UPLOADS_DIR: path.join(tmp, "uploads"),
    LOG_LEVEL: "silent",
    // The store caps a report file by its type's setting too; these tests pass their own limits.
    MAX_UPLOAD_MB: "64",
    STORAGE_URL: storage.replace(`s3://${BUCKET}?`, `s3://${BUCKET}/${PREFIX}?`),
    AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    SESSION_SECRET: randomBytes(32).toString("hex"),
  });
  delete process.env.DATABASE_URL;
  files = await import("~/domain/records/files.server");
}, 60_000);

afterAll(async () => {
  await (await import("~/db/client.server")).closeDatabase();
  await s3?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const PDF_HEAD = Buffer.from(
  "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
  "latin1",
);
function pdf(size: number) {
  const body = randomBytes(size);
  PDF_HEAD.copy(body, 0);
  return body;
}
async function* chunksOf(buf: Buffer, size = 256 * 1024) {
  for (let i = 0; i < buf.length; i += size) yield new Uint8Array(buf.subarray(i, i + size));
}
async function read(stream: Readable) {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

async function objects(): Promise<string[]> {
  const c = s3.client();
  try {
    const out = await c.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    return (out.Contents ?? []).map((o) => o.Key!).sort();
  } finally {
    c.destroy();
  }
}

describe("encrypted files in an S3 bucket", () => {
  it("stores small and multipart files as ciphertext under the prefix and reads them back", async () => {
    for (const size of [5000, 12 * MB + 123]) {
      const plain = pdf(size);
      const stored = await files.storeUpload(chunksOf(plain), {
        maxBytes: 20 * MB,
        allowed: "report",
        fileName: "a.pdf",
      });
      expect(stored).toMatchObject({ mimeType: "application/pdf", size });
      expect(await objects()).toContain(`${PREFIX}${stored.key}.enc`);
      const c = s3.client();
      const raw = Buffer.from(
        await (
          await c.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${stored.key}.enc` }))
        ).Body!.transformToByteArray(),
      );
      c.destroy();
      expect(raw.length).toBe(size + 32);
      expect(raw.subarray(0, 4).toString()).toBe("CBF1");
      expect(raw.includes(plain.subarray(0, 48))).toBe(false);
      expect(sha(await read(await files.openDecrypted(stored.key)))).toBe(sha(plain));
      expect(await files.storedExists(stored.key)).toBe(true);
      await files.deleteStored(stored.key);
      expect(await files.storedExists(stored.key)).toBe(false);
      await expect(files.openDecrypted(stored.key)).rejects.toMatchObject({ code: "not_found" });
    }
  });

  it("a refused or broken upload leaves no object, even after several multipart parts", async () => {
    const before = await objects();
    await expect(
      files.storeUpload(chunksOf(Buffer.from("<html>not a report</html>".repeat(300))), {
        maxBytes: MB,
        allowed: "report",
      }),
    ).rejects.toMatchObject({ code: "unsupported_type" });
    // Too large only after 12 MiB: two 5 MiB parts are already in the bucket's multipart upload.
    await expect(
      files.storeUpload(chunksOf(pdf(16 * MB)), { maxBytes: 12 * MB, allowed: "report" }),
    ).rejects.toMatchObject({ code: "too_large" });
    // The client goes away mid-upload (the request stream errors).
    async function* cut() {
      yield* chunksOf(pdf(11 * MB));
      throw new Error("connection reset");
    }
    await expect(files.storeUpload(cut(), { maxBytes: 20 * MB, allowed: "report" })).rejects.toThrow(
      "connection reset",
    );
    await expect(
      files.storeUpload(chunksOf(Buffer.alloc(0)), { maxBytes: MB, allowed: "report" }),
    ).rejects.toMatchObject({
      code: "invalid",
    });
    expect(await objects()).toEqual(before);
  });

  it("a tampered or swapped object fails to decrypt", async () => {
    const a = await files.storeUpload(chunksOf(pdf(300_000)), { maxBytes: MB, allowed: "report" });
    const b = await files.storeUpload(chunksOf(pdf(300_000)), { maxBytes: MB, allowed: "report" });
    const c = s3.client();
    const keyA = `${PREFIX}${a.key}.enc`;
    const raw = Buffer.from(
      await (await c.send(new GetObjectCommand({ Bucket: BUCKET, Key: keyA }))).Body!.transformToByteArray(),
    );
    raw[1000] ^= 1;
    await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: keyA, Body: raw }));
    // b's bytes under a's key: the key is bound into the authentication, so this fails too.
    const rawB = Buffer.from(
      await (
        await c.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${b.key}.enc` }))
      ).Body!.transformToByteArray(),
    );
    await c.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${b.key}.enc`, Body: raw.subarray(0, 10) }),
    );
    c.destroy();
    await expect(read(await files.openDecrypted(a.key))).rejects.toThrow();
    await expect(files.openDecrypted(b.key)).rejects.toThrow(/truncated/);
    const c2 = s3.client();
    await c2.send(new PutObjectCommand({ Bucket: BUCKET, Key: keyA, Body: rawB }));
    c2.destroy();
    await expect(read(await files.openDecrypted(a.key))).rejects.toThrow();
  });

  it("a reader that pauses longer than the store's limit gets every byte; a store that stops mid-body fails the read within it (decision 0075)", async () => {
    const { S3BlobStore } = await import("~/storage/s3.server");
    const { StoreFault } = await import("~/storage/faults.server");
    const { config } = await import("~/config.server");
    const store = new S3BlobStore(config().storage as never, 1_000);
    const key = "e".repeat(32);
    // Larger than what the sockets between the store and us buffer, so the store must wait for the reader.
    const body = randomBytes(16 * MB);
    await store.put(
      key,
      (async function* () {
        for (let i = 0; i < body.length; i += MB) yield body.subarray(i, i + MB);
      })(),
    );
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    try {
      const slow = (await store.get(key))!.stream[Symbol.asyncIterator]();
      const parts: Buffer[] = [];
      for (let n = await slow.next(); !n.done; n = await slow.next()) {
        parts.push(n.value);
        if (parts.length === 1) await pause(1_500); // a phone on a slow network
      }
      expect(sha(Buffer.concat(parts))).toBe(sha(body));

      const cut = (await store.get(key))!.stream[Symbol.asyncIterator]();
      await cut.next();
      s3.freeze();
      try {
        const started = Date.now();
        const err = await (async () => {
          for (let n = await cut.next(); !n.done; n = await cut.next());
        })().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreFault);
        expect(Date.now() - started).toBeLessThan(4_000);
      } finally {
        s3.thaw();
      }
    } finally {
      await store.delete(key);
    }
  }, 60_000);

  it("the sweep removes old unreferenced objects in the bucket and keeps young ones and foreign keys", async () => {
    const young = await files.storeUpload(chunksOf(pdf(5000)), { maxBytes: MB, allowed: "report" });
    const c = s3.client();
    await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}notes.txt`, Body: "not ours" }));
    await c.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: "other-clinic/" + "f".repeat(32) + ".enc", Body: "x" }),
    );
    c.destroy();
    // Everything now is young: nothing is removed.
    expect((await files.sweepLeftovers()).removedOrphans).toBe(0);
    // An hour later every unreferenced object of ours is an orphan (no report or user refers to them here).
    const later = await files.sweepLeftovers(Date.now() + 60 * 60 * 1000);
    expect(later.removedOrphans).toBeGreaterThanOrEqual(1);
    const left = await objects();
    expect(left).not.toContain(`${PREFIX}${young.key}.enc`);
    expect(left).toContain(`${PREFIX}notes.txt`);
    expect(left).toContain("other-clinic/" + "f".repeat(32) + ".enc");
  });
});
