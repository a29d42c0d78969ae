/**
 * The password hasher's thread (decision 0009): Argon2id at a low CPU priority (nice 10), so a
 * stream of logins never takes the cores serving needs. Started by passwords.server.ts as a worker
 * thread from this file (Node 24 runs the TypeScript as it is) or from its bundle beside the
 * server build (`<build>/hasher-worker.mjs`, decision 0117). Only erasable TypeScript here.
 */
import type { Options } from "@node-rs/argon2";
import { createRequire } from "node:module";
import os from "node:os";
import { parentPort } from "node:worker_threads";

export type HasherRequest =
  | { id: number; op: "hash"; args: [password: string, options: Options] }
  | { id: number; op: "verify"; args: [stored: string, password: string] };
export type HasherReply = { id: number; value?: unknown; error?: string };

try {
  os.setPriority(0, 10); // on Linux the nice value is per thread: this one only
} catch {
  /* not allowed here: a normal priority */
}
const argon2 = createRequire(import.meta.url)("@node-rs/argon2") as typeof import("@node-rs/argon2");
const port = parentPort!;

port.on("message", (call: HasherRequest) => {
  try {
    const value =
      call.op === "hash"
        ? argon2.hashSync(call.args[0], call.args[1])
        : argon2.verifySync(call.args[0], call.args[1]);
    port.postMessage({ id: call.id, value } satisfies HasherReply);
  } catch (err) {
    port.postMessage({ id: call.id, error: String((err as Error)?.message ?? err) } satisfies HasherReply);
  }
});
