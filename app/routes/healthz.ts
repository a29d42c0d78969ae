import { pingDatabase } from "~/db/client.server";
import { blobStore } from "~/storage/blob.server";

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

/** Liveness of this node's dependencies: the database and the file store (local folder or bucket). */
export async function loader() {
  const [database, storage] = await Promise.all([check(pingDatabase), check(() => blobStore().ping())]);
  const ok = database === "ok" && storage === "ok";
  return Response.json(
    { status: ok ? "ok" : "error", database, storage },
    { status: ok ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
}
