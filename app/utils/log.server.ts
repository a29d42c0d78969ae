import { config } from "~/config.server";

/** One structured JSON line per event. Never pass report contents, names or tokens. */
export function log(level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown> = {}) {
  if (config().logLevel === "silent" && level === "info") return;
  const line = JSON.stringify({ t: new Date().toISOString(), level, msg, ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
}
