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

/**
 * A small PDF that keeps poppler busy for minutes (decision 0103's tests of a server stopped
 * mid-read): its one page draws a form that draws another `fan` times, `depth` forms deep, the last
 * drawing `fan` lines, so `pdftotext` walks fan^(depth+1) operators (10^8 at depth 7: minutes, far
 * past a read's time limit) for a file of 2 KB. It has no text layer.
 */
export function slowPdf(depth = 7, fan = 10): Buffer {
  const stream = (dict: string, body: string) =>
    `<< ${dict} /Length ${body.length} >>\nstream\n${body}\nendstream`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /XObject << /F 5 0 R >> >> >>",
    stream("", "/F Do\n".repeat(fan)),
  ];
  for (let i = 0; i < depth; i++) {
    const last = i === depth - 1;
    const resources = last ? "" : `/Resources << /XObject << /F ${6 + i} 0 R >> >>`;
    const body = last ? "0 0 m 1 1 l S\n".repeat(fan) : "/F Do\n".repeat(fan);
    objects.push(stream(`/Type /XObject /Subtype /Form /BBox [0 0 10 10] ${resources}`, body));
  }
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
