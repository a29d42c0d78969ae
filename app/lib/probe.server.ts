/**
 * The one seam through which our own server (server/metrics.ts, server/tracing.ts) watches the
 * database and the file store (decision 0033). The app knows no metrics or tracing library: the
 * server installs a probe through `appHooks.instrument` when metrics or traces are configured.
 * Without one, `probe` stays null and every call site costs one null check — the bench and any
 * deployment without /metrics or OTLP pay nothing else.
 */
export type ProbeKind = "db" | "store";

export type Probe = {
  /**
   * Starts one database statement or store call and returns its end, called exactly once with the
   * error when it failed. `system` is the dialect or store kind (sqlite, postgresql, local, s3),
   * `operation` a short fixed name (never an id), `detail` the SQL text or object key prefix for
   * traces (metrics ignore it).
   */
  start(kind: ProbeKind, system: string, operation: string, detail?: string): (error?: unknown) => void;
};

export let probe: Probe | null = null;

const listeners = new Set<(p: Probe) => void>();

/** Called by the modules that need to patch something once a probe exists (the SQLite statement class). */
export function onProbe(listener: (p: Probe) => void) {
  if (probe) listener(probe);
  else listeners.add(listener);
}

/** Installs the server's probe (once per process; a second call replaces it, for tests of one process). */
export function installProbe(p: Probe) {
  probe = p;
  for (const l of listeners) l(p);
  listeners.clear();
}
