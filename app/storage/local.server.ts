import { createReadStream } from "node:fs";
import { access, constants, open, readdir, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { BlobStore } from "./blob.server";

const OBJECT_RE = /^([a-f0-9]{32})\.enc$/;
const PART_RE = /^[a-f0-9]{32}\.part$/;
const PAGE = 500;

async function unlinkQuiet(file: string) {
  try {
    await unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

async function fsyncDir(dir: string) {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, "r");
    await fh.sync();
  } catch {
    // Not supported on every platform (e.g. Windows); the rename itself is still atomic.
  } finally {
    await fh?.close().catch(() => {});
  }
}

/**
 * Objects as files `<dir>/<key>.enc` (mode 0600). A write goes to `<key>.part`, is fsynced and
 * renamed when complete (and the folder fsynced), so a crash leaves at most a `.part` file.
 */
export class LocalBlobStore implements BlobStore {
  readonly kind = "local" as const;
  constructor(private readonly dir: string) {}

  private file(key: string) {
    return path.join(this.dir, `${key}.enc`);
  }

  async put(key: string, body: AsyncIterable<Buffer>): Promise<void> {
    const partPath = path.join(this.dir, `${key}.part`);
    let fh: FileHandle | undefined;
    try {
      for await (const chunk of body) {
        // Opened at the first byte: a body refused before it (wrong type) leaves no file at all.
        fh ??= await open(partPath, "wx", 0o600);
        await fh.write(chunk);
      }
      fh ??= await open(partPath, "wx", 0o600);
      await fh.sync();
      await fh.close();
      fh = undefined;
      await rename(partPath, this.file(key));
      await fsyncDir(this.dir);
    } catch (err) {
      await fh?.close().catch(() => {});
      await unlinkQuiet(partPath).catch(() => {});
      throw err;
    }
  }

  async get(key: string) {
    const file = this.file(key);
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
    return { stream: createReadStream(file), size };
  }

  async delete(key: string) {
    await unlinkQuiet(this.file(key));
  }

  async exists(key: string) {
    try {
      await stat(this.file(key));
      return true;
    } catch {
      return false;
    }
  }

  private async names(): Promise<string[]> {
    try {
      return await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
  }

  private async mtime(name: string): Promise<number | null> {
    try {
      return (await stat(path.join(this.dir, name))).mtimeMs;
    } catch {
      return null; // removed meanwhile
    }
  }

  async *list(prefix = "") {
    let page: { key: string; modifiedMs: number }[] = [];
    for (const name of await this.names()) {
      const m = OBJECT_RE.exec(name);
      if (!m || !m[1].startsWith(prefix)) continue;
      const modifiedMs = await this.mtime(name);
      if (modifiedMs === null) continue;
      page.push({ key: m[1], modifiedMs });
      if (page.length >= PAGE) {
        yield page;
        page = [];
      }
    }
    if (page.length) yield page;
  }

  async sweepIncomplete({ idleBefore }: { idleBefore: number; startedBefore: number }) {
    let removed = 0;
    for (const name of await this.names()) {
      if (!PART_RE.test(name)) continue;
      const m = await this.mtime(name);
      // A .part file is written to as bytes arrive, so an old mtime means an abandoned upload.
      if (m !== null && m < idleBefore) {
        await unlinkQuiet(path.join(this.dir, name));
        removed++;
      }
    }
    return removed;
  }

  async ping() {
    await access(this.dir, constants.R_OK | constants.W_OK);
  }
}
