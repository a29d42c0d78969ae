import { diskSpace } from "~/storage/disk.server";
import type { Actor } from "../platform/index.server";

export type DiskWarning = { state: "low" | "full"; part: "database" | "uploads"; freeMb: number };

/**
 * What the admin's home warns of before the disk is full (decision 0060): the fullest folder whose free
 * space is under DISK_LOW_MB ("low") or under DISK_RESERVE_MB ("full": new files are refused).
 * Nothing for anyone else, nor when there is room.
 */
export async function diskWarning(actor: Actor): Promise<DiskWarning | null> {
  if (actor.accountType !== "Admin") return null;
  const readings = await diskSpace().catch(() => []);
  const worst = readings.filter((r) => r.state !== "ok").sort((a, b) => a.freeBytes - b.freeBytes)[0];
  if (!worst || worst.state === "ok") return null;
  return { state: worst.state, part: worst.part, freeMb: Math.floor(worst.freeBytes / (1024 * 1024)) };
}
