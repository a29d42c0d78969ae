import { pingDatabase } from "~/db/client.server";
import { diskState } from "~/storage/disk.server";
import { blobStore } from "~/storage/factory.server";

const TIMEOUT_MS = 3_000;

async function check(probe: () => Promise<void>): Promise<"ok" | "error"> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), TIMEOUT_MS))),
    ]);
    return "ok";
  } catch {
    return "error";
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The store's answer is reused for a few seconds: /healthz is public, and on S3 every check is a
 * signed (billed) request, so a flood of health checks must not become a flood of bucket calls.
 * Concurrent checks share one probe.
 */
const STORAGE_TTL_MS = 5_000;
let storageCheck: { at: number; result: Promise<"ok" | "error"> } | null = null;
function storageStatus() {
  const now = Date.now();
  if (!storageCheck || now - storageCheck.at > STORAGE_TTL_MS) {
    storageCheck = { at: now, result: check(() => blobStore().ping()) };
  }
  return storageCheck.result;
}

/**
 * Liveness of this node's dependencies: the database and the file store (local folder or bucket),
 * and its free disk space (decision 0060): "low" or "full" makes the node "degraded" — it still serves
 * (200), but someone must make room.
 */
export async function loader() {
  const [database, storage, disk] = await Promise.all([
    check(pingDatabase),
    storageStatus(),
    diskState().catch(() => "ok" as const),
  ]);
  const up = database === "ok" && storage === "ok";
  return Response.json(
    { status: !up ? "error" : disk === "ok" ? "ok" : "degraded", database, storage, disk },
    { status: up ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
}
