import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Uploads pass every byte through short-lived buffers (the socket's chunks, the cipher's
 * output). V8 frees buffers only when it collects their small JavaScript wrappers, and it
 * starts doing that for memory outside its heap only after tens of megabytes — so one 9 MB
 * upload used to raise a worker's memory by 20–30 MB of garbage. A young-generation collection
 * (about a millisecond: only short-lived objects are visited) every few megabytes of upload
 * keeps that garbage small. See docs/performance.md.
 */
type Gc = (options?: { type?: "minor" | "major"; execution?: "sync" | "async" }) => void;

let collect: Gc | null | undefined;

function gcFunction(): Gc | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as Gc;
  } catch {
    collect = null;
  }
  return collect;
}

/** Called by streaming writers every few megabytes. */
export function releaseUploadGarbage() {
  gcFunction()?.({ type: "minor" });
}
