import { randomBytes } from "node:crypto";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The domain modules read their configuration once, so the environment is set first and
// the modules are imported afterwards (real files in a temporary folder, no mocks).
let files: typeof import("~/domain/records/files.server");
let uploads: string;
let tmp: string;
const MB = 1024 * 1024;

beforeAll(async () => {
  const dir = (tmp = mkdtempSync(path.join(os.tmpdir(), "cb-files-")));
  process.env.DATA_DIR = path.join(dir, "data");
  process.env.UPLOADS_DIR = path.join(dir, "uploads");
  process.env.LOG_LEVEL = "silent";
  // The store caps a report file by its type's setting too; these tests pass their own limits.
  process.env.MAX_UPLOAD_MB = "64";
  delete process.env.DATABASE_URL;
  delete process.env.SMTP_URL;
  delete process.env.ENCRYPTION_KEY;
  uploads = process.env.UPLOADS_DIR;
  files = await import("~/domain/records/files.server");
});

afterAll(async () => {
  await (await import("~/db/client.server")).closeDatabase();
  rmSync(tmp, { recursive: true, force: true });
});

const PDF_HEAD = Buffer.from(
  "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
  "latin1",
);
// A real 1x1 PNG.
const PNG_1PX = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

function pdf(size: number) {
  const body = randomBytes(size);
  PDF_HEAD.copy(body, 0);
  return body;
}

async function* chunksOf(buf: Buffer, size = 64 * 1024) {
  for (let i = 0; i < buf.length; i += size) yield new Uint8Array(buf.subarray(i, i + size));
}

async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Everything in the uploads folder (stored and temporary files). */
const listing = () => readdirSync(uploads).sort();

async function rejection(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error("expected a rejection");
}

describe("encrypted file store", () => {
  it("round-trips a multi-MB file byte for byte, and stores no plaintext", async () => {
    const plain = pdf(6 * MB + 12345);
    const stored = await files.storeUpload(chunksOf(plain, 50_000), {
      maxBytes: 10 * MB,
      allowed: "report",
      fileName: "blood-test.pdf",
    });
    expect(stored.key).toMatch(/^[a-f0-9]{32}$/);
    expect(stored).toMatchObject({
      mimeType: "application/pdf",
      size: plain.length,
      fileName: "blood-test.pdf",
    });
    expect(listing()).toContain(`${stored.key}.enc`);
    expect(listing().some((n) => n.endsWith(".part"))).toBe(false);

    const onDisk = readFileSync(path.join(uploads, `${stored.key}.enc`));
    expect(onDisk.subarray(0, 4).toString("ascii")).toBe("CBF1");
    expect(onDisk.length).toBe(plain.length + 4 + 12 + 16);
    expect(onDisk.includes(plain.subarray(0, 8))).toBe(false);
    expect(onDisk.includes(plain.subarray(4096, 4160))).toBe(false);

    const back = await collect(await files.openDecrypted(stored.key));
    expect(back.length).toBe(plain.length);
    expect(back.equals(plain)).toBe(true);
  });

  it("stores images too, with the sniffed type deciding the extension", async () => {
    const stored = await files.storeUpload(chunksOf(PNG_1PX), {
      maxBytes: 2 * MB,
      allowed: "image",
      fileName: "me.jpeg",
    });
    expect(stored).toMatchObject({ mimeType: "image/png", size: PNG_1PX.length, fileName: "me.png" });
    expect((await collect(await files.openDecrypted(stored.key))).equals(PNG_1PX)).toBe(true);
  });

  it("fails the stream when the ciphertext, the tag or the key binding is tampered with", async () => {
    const plain = pdf(300_000);
    const opts = { maxBytes: MB, allowed: "report" as const, fileName: "x.pdf" };

    const a = await files.storeUpload(chunksOf(plain), opts);
    const fileA = path.join(uploads, `${a.key}.enc`);
    const bytes = readFileSync(fileA);
    bytes[100_000] ^= 0x01;
    writeFileSync(fileA, bytes);
    expect(await rejection(collect(await files.openDecrypted(a.key)))).toBeInstanceOf(Error);

    const b = await files.storeUpload(chunksOf(plain), opts);
    const fileB = path.join(uploads, `${b.key}.enc`);
    const bytesB = readFileSync(fileB);
    bytesB[bytesB.length - 1] ^= 0x80;
    writeFileSync(fileB, bytesB);
    expect(await rejection(collect(await files.openDecrypted(b.key)))).toBeInstanceOf(Error);

    // A valid file moved to another key (e.g. swapped between reports) does not authenticate.
    const c = await files.storeUpload(chunksOf(plain), opts);
    const otherKey = "0123456789abcdef0123456789abcdef";
    renameSync(path.join(uploads, `${c.key}.enc`), path.join(uploads, `${otherKey}.enc`));
    expect(await rejection(collect(await files.openDecrypted(otherKey)))).toBeInstanceOf(Error);
  });

  it("decides the type by the bytes: HTML named .pdf and a PDF sent as a picture are refused", async () => {
    const before = listing();
    const html = Buffer.from(
      "<!doctype html><html><body><script>alert(1)</script></body></html>".repeat(100),
    );
    const err = await rejection(
      files.storeUpload(chunksOf(html), { maxBytes: MB, allowed: "report", fileName: "report.pdf" }),
    );
    expect(err).toMatchObject({ code: "unsupported_type", message: "files.unsupportedType" });

    const err2 = await rejection(
      files.storeUpload(chunksOf(pdf(10_000)), { maxBytes: MB, allowed: "image", fileName: "me.png" }),
    );
    expect(err2).toMatchObject({ code: "unsupported_type" });

    // A short file (below the sniffing sample) is judged at its end.
    const err3 = await rejection(
      files.storeUpload(chunksOf(Buffer.from("hello")), {
        maxBytes: MB,
        allowed: "report",
        fileName: "a.pdf",
      }),
    );
    expect(err3).toMatchObject({ code: "unsupported_type" });
    expect(listing()).toEqual(before);
  });

  it("refuses an oversize upload, stops reading it and leaves no file behind", async () => {
    const before = listing();
    let pulled = 0;
    async function* big() {
      const chunk = pdf(64 * 1024);
      for (let i = 0; i < 64; i++) {
        pulled++;
        yield chunk;
      }
    }
    const err = await rejection(
      files.storeUpload(big(), { maxBytes: MB, allowed: "report", fileName: "big.pdf" }),
    );
    expect(err).toMatchObject({ code: "too_large", message: "files.tooLarge" });
    expect(pulled).toBeLessThanOrEqual(17);
    expect(listing()).toEqual(before);

    // Exactly the limit is fine.
    const ok = await files.storeUpload(chunksOf(pdf(MB)), {
      maxBytes: MB,
      allowed: "report",
      fileName: "edge.pdf",
    });
    expect(ok.size).toBe(MB);
  });

  it("refuses zero bytes", async () => {
    const before = listing();
    async function* none() {}
    async function* emptyChunks() {
      yield new Uint8Array(0);
      yield new Uint8Array(0);
    }
    for (const src of [none(), emptyChunks()]) {
      const err = await rejection(
        files.storeUpload(src, { maxBytes: MB, allowed: "report", fileName: "e.pdf" }),
      );
      expect(err).toMatchObject({ code: "invalid", message: "files.empty" });
    }
    expect(listing()).toEqual(before);
  });

  it("removes the temporary file when the upload itself fails midway", async () => {
    const before = listing();
    async function* broken() {
      yield pdf(200_000);
      yield pdf(200_000);
      throw new Error("client went away");
    }
    const err = await rejection(
      files.storeUpload(broken(), { maxBytes: MB, allowed: "report", fileName: "a.pdf" }),
    );
    expect(err.message).toBe("client went away");
    expect(listing()).toEqual(before);
  });

  it("sanitises file names: basename only, no control or path characters, 120 characters at most", async () => {
    const stored = await files.storeUpload(chunksOf(pdf(5000)), {
      maxBytes: MB,
      allowed: "report",
      fileName: "../../../etc/passwd.pdf",
    });
    expect(stored.fileName).toBe("passwd.pdf");
    expect(listing()).toContain(`${stored.key}.enc`);

    const s = files.sanitizeFileName;
    expect(s("..\\..\\Windows\\evil.exe", "pdf")).toBe("evil.pdf");
    expect(s("a\u0000b\nc\u202Efdp.pdf", "pdf")).toBe("abcfdp.pdf");
    expect(s('re<po>rt:"1"|?*.pdf', "pdf")).toBe("re_po_rt__1____.pdf");
    expect(s(".htaccess", "pdf")).toBe("htaccess.pdf");
    expect(s("", "png")).toBe("file.png");
    expect(s(null, "gif")).toBe("file.gif");
    expect(s("../", "pdf")).toBe("file.pdf");
    expect(s("scan.JPEG", "jpg")).toBe("scan.jpeg");
    expect(s("scan.png", "jpg")).toBe("scan.jpg");
    const long = s("x".repeat(500) + ".pdf", "pdf");
    expect(long.length).toBe(120);
    expect(long.endsWith(".pdf")).toBe(true);
    const emoji = s("😀".repeat(200) + ".pdf", "pdf");
    expect(Array.from(emoji).length).toBeLessThanOrEqual(120);
    expect(emoji.endsWith(".pdf")).toBe(true);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(emoji)).toBe(false);
  });

  it("validates keys before touching the file system", async () => {
    for (const key of [
      "../../data/app",
      "ABCDEF0123456789abcdef0123456789",
      "abc",
      "0123456789abcdef0123456789abcdef/../x",
    ]) {
      expect(await rejection(files.openDecrypted(key))).toMatchObject({ code: "not_found" });
      await files.deleteStored(key); // ignored, no throw
    }
    expect(await rejection(files.openDecrypted("ffffffffffffffffffffffffffffffff"))).toMatchObject({
      code: "not_found",
    });
  });

  it("deletes stored files (and a second delete is harmless)", async () => {
    const stored = await files.storeUpload(chunksOf(pdf(5000)), {
      maxBytes: MB,
      allowed: "report",
      fileName: "d.pdf",
    });
    expect(await files.storedExists(stored.key)).toBe(true);
    await files.deleteStored(stored.key);
    await files.deleteStored(stored.key);
    expect(await files.storedExists(stored.key)).toBe(false);
    expect(listing()).not.toContain(`${stored.key}.enc`);
  });

  it("sweeps old temporary files and old unreferenced files, and keeps young ones", async () => {
    const old = new Date(Date.now() - 60 * 60 * 1000);
    const oldPart = `${"a".repeat(32)}.part`;
    const youngPart = `${"b".repeat(32)}.part`;
    writeFileSync(path.join(uploads, oldPart), "x");
    utimesSync(path.join(uploads, oldPart), old, old);
    writeFileSync(path.join(uploads, youngPart), "x");
    const orphan = await files.storeUpload(chunksOf(pdf(5000)), {
      maxBytes: MB,
      allowed: "report",
      fileName: "o.pdf",
    });
    const young = await files.storeUpload(chunksOf(pdf(5000)), {
      maxBytes: MB,
      allowed: "report",
      fileName: "y.pdf",
    });
    utimesSync(path.join(uploads, `${orphan.key}.enc`), old, old);
    writeFileSync(path.join(uploads, "README.txt"), "not ours");
    utimesSync(path.join(uploads, "README.txt"), old, old);

    const result = await files.sweepLeftovers();
    expect(result.removedParts).toBeGreaterThanOrEqual(1);
    const names = listing();
    expect(names).not.toContain(oldPart);
    expect(names).toContain(youngPart);
    expect(names).not.toContain(`${orphan.key}.enc`);
    expect(names).toContain(`${young.key}.enc`);
    expect(names).toContain("README.txt");
  });

  it("streams: a 50 MB upload and its download never hold more than a few MB", async () => {
    // Garbage is collected lazily, so "how much is held" is measured after a collection at
    // each sample point: what the store retains, not what the collector has yet to free.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const total = 50 * MB;
    const chunk = pdf(64 * 1024); // one buffer, yielded again and again
    const held = () => {
      gc();
      const m = process.memoryUsage();
      return { rss: m.rss, buffers: m.arrayBuffers };
    };
    const base = held();
    let peak = base;
    const sample = () => {
      const now = held();
      peak = { rss: Math.max(peak.rss, now.rss), buffers: Math.max(peak.buffers, now.buffers) };
    };
    async function* source() {
      let i = 0;
      for (let sent = 0; sent < total; sent += chunk.length) {
        if (i++ % 32 === 0) sample(); // every 2 MB
        yield chunk;
      }
    }
    const stored = await files.storeUpload(source(), {
      maxBytes: 60 * MB,
      allowed: "report",
      fileName: "big.pdf",
    });
    expect(stored.size).toBe(total);
    expect(peak.buffers - base.buffers).toBeLessThan(8 * MB);
    expect(peak.rss - base.rss).toBeLessThan(20 * MB);

    // Reading it back is streamed as well.
    const readBase = held();
    peak = readBase;
    let n = 0;
    let i = 0;
    for await (const c of await files.openDecrypted(stored.key)) {
      n += (c as Buffer).length;
      if (i++ % 32 === 0) sample();
    }
    expect(n).toBe(total);
    expect(peak.buffers - readBase.buffers).toBeLessThan(8 * MB);
    expect(peak.rss - readBase.rss).toBeLessThan(20 * MB);
    await files.deleteStored(stored.key);
  });
});
