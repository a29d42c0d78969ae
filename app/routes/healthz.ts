import type { Database, Statement } from "better-sqlite3";
import { sqlite } from "~/db/client.server";

/** The probe's statement, prepared once per database connection. */
const probes = new WeakMap<Database, Statement>();

export function loader() {
  try {
    const db = sqlite();
    let probe = probes.get(db);
    if (!probe) probes.set(db, (probe = db.prepare("select 1")));
    probe.get();
    return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
  } catch {
    return Response.json({ status: "error" }, { status: 503, headers: { "Cache-Control": "no-store" } });
  }
}
