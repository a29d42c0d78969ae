import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
