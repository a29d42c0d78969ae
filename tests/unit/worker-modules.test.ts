import { verify } from "@node-rs/argon2";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import type { HasherReply, HasherRequest } from "~/domain/accounts/hasher.worker";

/*
 * Worker threads run real modules (decision 0117), type-checked and linted like the rest: the
 * password hasher's program from its TypeScript source, as Node 24 runs it under the tests (the
 * build bundles the same file beside the server; the render threads' own tests are
 * render-pool.test.ts).
 */

let worker: Worker | undefined;
afterEach(async () => {
  await worker?.terminate();
  worker = undefined;
});

function ask(w: Worker, request: HasherRequest): Promise<HasherReply> {
  return new Promise((resolve, reject) => {
    w.once("message", resolve);
    w.once("error", reject);
    w.postMessage(request);
  });
}

describe("the password hasher's thread", () => {
  it("hashes with Argon2id and verifies, from its own module", async () => {
    worker = new Worker(path.resolve("app/domain/accounts/hasher.worker.ts"));
    const options = { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;
    const hashed = await ask(worker, { id: 1, op: "hash", args: ["correct horse", options] });
    expect(hashed.id).toBe(1);
    expect(String(hashed.value)).toMatch(/^\$argon2id\$/);
    expect(await verify(String(hashed.value), "correct horse")).toBe(true);
    expect(await ask(worker, { id: 2, op: "verify", args: [String(hashed.value), "wrong"] })).toEqual({
      id: 2,
      value: false,
    });
    const broken = await ask(worker, { id: 3, op: "verify", args: ["not a hash", "x"] });
    expect(broken.id).toBe(3);
    expect(broken.error).toBeTruthy();
  });
});
