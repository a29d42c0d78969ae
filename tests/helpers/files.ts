import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

export { samplePdf, samplePng } from "../../scripts/samples";

/** Runs `fn` with a new folder under the system's temporary one, removed afterwards whatever happens. */
export async function inTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function uploadForm(
  fields: Record<string, string>,
  file?: { name: string; data: Buffer; type?: string; field?: string },
) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  if (file)
    fd.append(
      file.field ?? "report",
      new Blob([new Uint8Array(file.data)], { type: file.type ?? "application/octet-stream" }),
      file.name,
    );
  return fd;
}

/** An image a hand-made PDF draws: `data` is its raw samples (grey, or RGB when `rgb`). */
export type PdfImage = { name: string; width: number; height: number; rgb?: boolean; data: Buffer };

/**
 * A PDF written by hand (A4 pages), for files built to take the machine (decision 0100): each page's
 * content stream as given, drawing the images (stored once, Flate-compressed) by name — a 4,000 px
 * image drawn four hundred times is a file of a few KB that takes a renderer a minute. A page may
 * write text in Helvetica as `/F1`.
 */
export function drawnPdf(images: PdfImage[], pages: string[]): Buffer {
  const objects: (string | Buffer)[] = [];
  const add = (body: string | Buffer) => objects.push(body);
  add(""); // 1: the catalog, written last
  add(""); // 2: the page tree, written last
  const xobjects = images.map((im) => {
    const z = deflateSync(im.data);
    const head = `<< /Type /XObject /Subtype /Image /Width ${im.width} /Height ${im.height} /ColorSpace /${
      im.rgb ? "DeviceRGB" : "DeviceGray"
    } /BitsPerComponent 8 /Filter /FlateDecode /Length ${z.length} >>\nstream\n`;
    return `/${im.name} ${add(Buffer.concat([Buffer.from(head), z, Buffer.from("\nendstream")]))} 0 R`;
  });
  const kids = pages.map((content) => {
    const c = Buffer.from(content);
    const stream = add(
      Buffer.concat([Buffer.from(`<< /Length ${c.length} >>\nstream\n`), c, Buffer.from("\nendstream")]),
    );
    return add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << ${xobjects.join(" ")} >> /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents ${stream} 0 R >>`,
    );
  });
  objects[0] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n")];
  let offset = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    const b = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.from(o), Buffer.from("\nendobj\n")]);
    offsets.push(offset);
    offset += b.length;
    parts.push(b);
  });
  const rows = offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  parts.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}
