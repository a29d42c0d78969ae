import { createDeflate } from "node:zlib";
import PDFDocument from "pdfkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { labReadOf } from "../helpers/db";
import { uploadForm } from "../helpers/files";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Files built to take the machine, uploaded by an ordinary patient to the running built server
 * (decision 0086): a PNG that declares 20,000 × 20,000 pixels in a few hundred KB, a PDF of two
 * blank 80-inch pages, and a PDF with one 7,000-pt page asked for six times at once as a preview.
 * Each is refused by its size before anything decodes or renders it, once, with the reason kept;
 * previews are bounded in size, rendered once and served from the cache, and a burst beyond the
 * renders allowed is answered 429 with Retry-After.
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const api = () => apiClient(server.url);
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

/** A greyscale PNG of `side` × `side` zero pixels: 400 MB once inflated, a few hundred KB stored. */
async function pngBomb(side: number): Promise<Buffer> {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on("data", (c: Buffer) => out.push(c));
  const ended = new Promise((r) => deflate.on("end", r));
  const row = Buffer.alloc(side + 1); // filter byte 0, then the row's pixels
  for (let y = 0; y < side; y++) if (!deflate.write(row)) await new Promise((r) => deflate.once("drain", r));
  deflate.end();
  await ended;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.concat(out)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A PDF of blank pages `w` × `h` points (no text layer: the reader would render it for OCR). */
function blankPdf(pages: number, w: number, h: number): Promise<Buffer> {
  const doc = new PDFDocument({ size: [w, h], autoFirstPage: false });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on("end", () => r(Buffer.concat(chunks))));
  for (let i = 0; i < pages; i++) {
    doc.addPage({ size: [w, h], margin: 0 });
    // A faint rule, so the page is drawn at all.
    doc.moveTo(10, 10).lineTo(60, 10).stroke("#eeeeee");
  }
  doc.end();
  return done;
}

const readRow = (reportId: string) => labReadOf(server, reportId);

async function settled(reportId: string, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const row = await readRow(reportId);
    if (row && row.status !== "queued" && row.status !== "reading") return row;
    if (Date.now() > deadline) throw new Error(`the read of ${reportId} did not end: ${JSON.stringify(row)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ LAB_OCR: "1", SMTP_URL: smtp.url, RATE_LIMIT_DISABLED: "1" });
  for (const key of ["patient", "other"]) {
    const r = await signupViaApi(api(), smtp, codeFrom, {
      email: `${key}@door.test`,
      accountType: "Patient",
    });
    tok[key] = r.token;
  }
  for (const [key, name, data, type] of [
    ["bomb", "photo.png", await pngBomb(20_000), "image/png"],
    ["wide", "scan.pdf", await blankPdf(2, 80 * 72, 80 * 72), "application/pdf"],
    ["poster", "poster.pdf", await blankPdf(1, 7000, 7000), "application/pdf"],
  ] as const) {
    const res = await api().call(
      "POST",
      "/report/upload-report",
      uploadForm({ reportType: "Blood Test", phoneNumber: "9876543210" }, { name, data, type }),
      tok.patient,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids[key] = res.body.data._id;
  }
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("files built to take the machine", () => {
  it("a PNG decompression bomb is refused from its header, once, with the reason kept", async () => {
    const started = Date.now();
    const row = await settled(ids.bomb, 20_000);
    expect(row).toMatchObject({ status: "failed", attempts: 1 });
    expect(row.last_error).toMatch(/too large to read: 20000 × 20000 px/);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it("a PDF of 80-inch blank pages is refused from its page sizes, never rendered", async () => {
    const row = await settled(ids.wide, 20_000);
    expect(row).toMatchObject({ status: "failed", attempts: 1 });
    expect(row.last_error).toMatch(/page 1 too large to read: 80 × 80 in/);
  }, 30_000);

  it("page previews: bounded in size, a burst answered 429 with Retry-After, rendered once then cached", async () => {
    const path = `/report/${ids.poster}/pages/1` as never;
    const burst = await Promise.all(Array.from({ length: 6 }, () => api().get(path, tok.patient)));
    const statuses = burst.map((r) => r.status).sort();
    // One render at a time for one account: the others are told to come back, not queued.
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(4);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    for (const r of burst.filter((x) => x.status === 429))
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    // Once rendered, every ask is answered from the cache, however many at once.
    let first = burst.find((r) => r.status === 200);
    if (!first) {
      await new Promise((r) => setTimeout(r, 3000));
      first = await api().get(path, tok.patient);
    }
    const again = await Promise.all(Array.from({ length: 6 }, () => api().get(path, tok.patient)));
    expect(again.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const jpeg = Buffer.from(
      await (
        await fetch(`${server.url}/api/v1${path as string}`, {
          headers: { Authorization: `Bearer ${tok.patient}` },
        })
      ).arrayBuffer(),
    );
    expect(jpeg.subarray(0, 2).toString("hex")).toBe("ffd8");
    // The frame header's size: the page claims 97 inches a side; its preview is 1,500 px.
    let i = 2;
    let size: [number, number] | null = null;
    while (i + 9 < jpeg.length) {
      const m = jpeg[i + 1];
      if (m >= 0xc0 && m <= 0xc3) {
        size = [jpeg.readUInt16BE(i + 7), jpeg.readUInt16BE(i + 5)];
        break;
      }
      i += 2 + jpeg.readUInt16BE(i + 2);
    }
    expect(size).not.toBeNull();
    expect(Math.max(...size!)).toBeLessThanOrEqual(1500);
    // Another patient cannot have it, cached or not.
    expect((await api().get(path, tok.other)).status).toBe(403);
  }, 60_000);
});
