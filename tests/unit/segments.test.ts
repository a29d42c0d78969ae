import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Segments of resumable uploads (decision 0015) on a real folder store; the environment first,
// then the modules (they read their configuration once).
let files: typeof import("~/domain/records/files.server") &
  typeof import("~/domain/records/upload-segments.server");
let uploads: string;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "cb-segments-"));
  process.env.DATA_DIR = path.join(tmp, "data");
  process.env.UPLOADS_DIR = uploads = path.join(tmp, "uploads");
  process.env.LOG_LEVEL = "silent";
  delete process.env.DATABASE_URL;
  delete process.env.STORAGE_URL;
  delete process.env.ENCRYPTION_KEY;
  files = {
    ...(await import("~/domain/records/files.server")),
    ...(await import("~/domain/records/upload-segments.server")),
  };
  (await import("node:fs")).mkdirSync(uploads, { recursive: true });
});

afterAll(async () => {
  await (await import("~/db/client.server")).closeDatabase();
  rmSync(tmp, { recursive: true, force: true });
});

async function* chunks(buf: Buffer, size = 10_000) {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function read(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

const uploadId = () => randomBytes(12).toString("hex");

describe("upload segments", () => {
  it("round-trip with their start offset; ciphertext only, keys named after the upload", async () => {
    const id = uploadId();
    const plain = randomBytes(150_000);
    const a = await files.storeSegment(id, 0, chunks(plain.subarray(0, 100_000)));
    const b = await files.storeSegment(id, 100_000, chunks(plain.subarray(100_000)));
    expect(a).toMatchObject({ offset: 0, size: 100_000 });
    expect(b).toMatchObject({ offset: 100_000, size: 50_000 });
    expect(a!.key).toMatch(new RegExp(`^${id}[a-f0-9]{8}$`));
    const onDisk = readFileSync(path.join(uploads, `${a!.key}.enc`));
    expect(onDisk.subarray(0, 4).toString("ascii")).toBe("CBS1");
    expect(onDisk.length).toBe(100_000 + 4 + 12 + 8 + 16);
    expect(onDisk.includes(plain.subarray(0, 32))).toBe(false);

    const listed = (await files.listSegments(id)).sort((x, y) => x.offset - y.offset);
    expect(listed).toEqual([a, b]);
    const seg = await files.openSegment(b!.key);
    expect(seg.offset).toBe(100_000);
    expect((await read(seg.stream)).equals(plain.subarray(100_000))).toBe(true);
    expect(await files.deleteSegments(id)).toBe(2);
    expect(await files.listSegments(id)).toEqual([]);
  });

  it("an empty piece stores nothing", async () => {
    const id = uploadId();
    expect(await files.storeSegment(id, 0, chunks(Buffer.alloc(0)))).toBeNull();
    expect(readdirSync(uploads).filter((n) => n.startsWith(id))).toEqual([]);
  });

  it("a piece whose source fails leaves nothing behind", async () => {
    const id = uploadId();
    async function* failing() {
      yield randomBytes(300_000);
      throw new Error("connection reset");
    }
    await expect(files.storeSegment(id, 0, failing())).rejects.toThrow("connection reset");
    expect(readdirSync(uploads).filter((n) => n.startsWith(id))).toEqual([]);
  });

  it("a segment moved to another position or another upload, or changed, fails authentication", async () => {
    const id = uploadId();
    const plain = randomBytes(20_000);
    const seg = (await files.storeSegment(id, 4096, chunks(plain)))!;
    const file = path.join(uploads, `${seg.key}.enc`);
    const original = readFileSync(file);

    // Another start offset written into its header.
    const moved = Buffer.from(original);
    moved.writeBigUInt64BE(0n, 16);
    writeFileSync(file, moved);
    const opened = await files.openSegment(seg.key);
    expect(opened.offset).toBe(0);
    await expect(read(opened.stream)).rejects.toThrow();

    // Renamed into another upload.
    writeFileSync(file, original);
    const other = uploadId() + seg.key.slice(24);
    renameSync(file, path.join(uploads, `${other}.enc`));
    await expect(read((await files.openSegment(other)).stream)).rejects.toThrow();
    renameSync(path.join(uploads, `${other}.enc`), file);

    // One flipped byte of ciphertext.
    const flipped = Buffer.from(original);
    flipped[40] ^= 1;
    writeFileSync(file, flipped);
    await expect(read((await files.openSegment(seg.key)).stream)).rejects.toThrow();

    writeFileSync(file, original);
    expect((await read((await files.openSegment(seg.key)).stream)).equals(plain)).toBe(true);
  });

  it("a report file cannot be read as a segment, nor a segment as a report file", async () => {
    const id = uploadId();
    const seg = (await files.storeSegment(id, 0, chunks(randomBytes(5000))))!;
    await expect(files.openDecrypted(seg.key)).rejects.toThrow(/unknown format/);
  });
});
