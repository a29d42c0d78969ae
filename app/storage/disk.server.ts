import { existsSync } from "node:fs";
import { open, statfs, unlink } from "node:fs/promises";
import path from "node:path";
import { config } from "~/config.server";
import { log } from "~/lib/log.server";

/**
 * Free space where this node keeps data (decision 0060): the SQLite database's folder and
 * the local file store's. Below DISK_LOW_MB /healthz says "degraded", /metrics and the admin's home
 * show it; below DISK_RESERVE_MB new files are refused (507) so that what is left serves sign-in,
 * reading and deleting, whose rows (sessions, the access trail) must still be written. For a disk
 * filled by something else, the node also holds a reserve file of DISK_RESERVE_MB next to the
 * database, given back the moment the disk is found full and made again once there is room.
 */
export type DiskPart = "database" | "uploads";
export type DiskState = "ok" | "low" | "full";
export type DiskReading = {
  part: DiskPart;
  dir: string;
  freeBytes: number;
  totalBytes: number;
  state: DiskState;
};

const RESERVE_FILE = "space-reserve";
/** The reserve is made again once this many times its size is free. */
const REMAKE_AT = 3;
const FRESH_MS = 2_000;
let last: { at: number; readings: Promise<DiskReading[]> } | undefined;

function folders(): { part: DiskPart; dir: string }[] {
  const c = config();
  const out: { part: DiskPart; dir: string }[] = [];
  if (c.databaseKind === "sqlite") out.push({ part: "database", dir: path.dirname(c.databaseUrl) });
  if (c.storage.kind === "local") out.push({ part: "uploads", dir: c.storage.dir });
  return out;
}

/** The free space of each folder, read at most every 2 s; keeps the reserve file as it goes. */
export function diskSpace(opts: { fresh?: boolean } = {}): Promise<DiskReading[]> {
  const now = Date.now();
  if (!opts.fresh && last && now - last.at < FRESH_MS) return last.readings;
  const readings = read();
  last = { at: now, readings };
  readings.catch(() => (last = undefined));
  return readings;
}

async function read(): Promise<DiskReading[]> {
  const { diskLowBytes, diskReserveBytes } = config();
  const where = folders();
  const database = where.find((f) => f.part === "database");
  if (database) await keepReserve(database.dir, diskReserveBytes);
  // While the reserve is given back (until there is room to make it again), the node counts as full:
  // a new file would eat the space kept for sign-in, reading and deleting.
  const reserveOut = !!database && diskReserveBytes > 0 && !existsSync(path.join(database.dir, RESERVE_FILE));
  return Promise.all(
    where.map(async ({ part, dir }) => {
      const s = await statfs(dir);
      const freeBytes = s.bavail * s.bsize;
      const full = freeBytes < diskReserveBytes || (reserveOut && freeBytes < REMAKE_AT * diskReserveBytes);
      const state: DiskState = full ? "full" : freeBytes < diskLowBytes ? "low" : "ok";
      return { part, dir, freeBytes, totalBytes: s.blocks * s.bsize, state };
    }),
  );
}

/** The worst state of all the folders. */
export async function diskState(): Promise<DiskState> {
  const states = (await diskSpace()).map((r) => r.state);
  return states.includes("full") ? "full" : states.includes("low") ? "low" : "ok";
}

/** True when a new file may not be stored in `part`'s folder (less than the reserve is free). */
export async function diskFull(part: DiskPart): Promise<boolean> {
  return (await diskSpace()).some((r) => r.part === part && r.state === "full");
}

/** Called when a write failed for want of space: look again now (and give back the reserve). */
export function diskFilledUp(): void {
  void diskSpace({ fresh: true }).catch(() => {});
}

let reserveBusy = false;
async function keepReserve(dir: string, bytes: number) {
  if (bytes <= 0 || reserveBusy) return;
  const file = path.join(dir, RESERVE_FILE);
  reserveBusy = true;
  try {
    const s = await statfs(dir);
    const freeBytes = s.bavail * s.bsize;
    const present = existsSync(file);
    if (present && freeBytes < bytes) {
      await unlink(file);
      log("warn", "disk full: the space reserve is given back for sign-in, reading and deleting", { dir });
      last = undefined;
    } else if (!present && freeBytes > REMAKE_AT * bytes) {
      // Written, not only sized: a sparse file would keep nothing.
      const fh = await open(file, "wx", 0o600);
      try {
        const chunk = Buffer.alloc(1024 * 1024);
        for (let written = 0; written < bytes; written += chunk.length)
          await fh.write(chunk, 0, Math.min(chunk.length, bytes - written));
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
  } catch (err) {
    // A reserve that could not be made (the disk filled meanwhile) is not kept half-made.
    await unlink(file).catch(() => {});
    log("warn", "space reserve not kept", { error: String((err as Error)?.message ?? err) });
  } finally {
    reserveBusy = false;
  }
}
