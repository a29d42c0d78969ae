import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { eventually } from "./processes";
import { spawnScript } from "./scripts";

/** A second process running `tests/helpers/jobs-worker.ts` with `args`, beside the test's own. */
export type JobsWorker = ChildProcess & { out: () => string; exited: Promise<number | null> };

export async function jobsWorker(...args: string[]): Promise<JobsWorker> {
  const child = await spawnScript("tests/helpers/jobs-worker.ts", args, {
    cwd: path.resolve("."),
    env: { ...process.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (b) => (out += b));
  child.stderr!.on("data", (b) => (err += b));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  void exited.then((code) => {
    if (code) console.error(err);
  });
  return Object.assign(child, { out: () => out, exited });
}

/** Waits until `what` holds, looking every 20 ms; fails after `ms`. */
export async function until(what: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  if (!(await eventually(what, ms, 20))) throw new Error("waited too long");
}
