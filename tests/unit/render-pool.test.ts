import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { DomainError } from "~/domain/platform/errors";
import { renderInWorker, type RenderJob } from "~/domain/records/render-pool.server";
import { jpegLsGarbageInstance, rleInstance } from "../helpers/dicom";

/*
 * The render threads of previews (decision 0056), from the source as vitest runs it: the worker's
 * program is found here as in the build, a frame that traps the decoder fails alone, and one
 * account's renders are budgeted without holding back another's. Over HTTP: tests/integration/dicom.test.ts.
 */

const job = (bytes: Buffer): RenderJob => ({ bytes, frame: 0, window: null, maxPixels: 4096 * 4096 });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => "rendered",
    (err: unknown) => (err instanceof DomainError ? `${err.code} ${err.message}` : String(err)),
  );

describe("render threads", () => {
  it("render a frame off the event loop, and a decoder trap fails alone", async () => {
    const png = PNG.sync.read(await renderInWorker("unit-a", job(rleInstance({ rows: 40, columns: 40 }))));
    expect([png.width, png.height]).toEqual([40, 40]);
    for (let i = 0; i < 3; i++)
      expect(await failure(renderInWorker("unit-a", job(jpegLsGarbageInstance())))).toBe(
        "unsupported_type imaging.cannotRender",
      );
    expect(PNG.sync.read(await renderInWorker("unit-a", job(rleInstance()))).width).toBe(32);
  });

  it("budget renders per account: the surplus is refused at once with a time to retry, others go on", async () => {
    const mine = Array.from({ length: 8 }, () =>
      renderInWorker("unit-b", job(rleInstance({ rows: 256, columns: 256 }))).then(
        () => null,
        (err: DomainError) => err,
      ),
    );
    const theirs = renderInWorker("unit-c", job(rleInstance()));
    const refused = (await Promise.all(mine)).filter((e): e is DomainError => e !== null);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    for (const err of refused) {
      expect(err.code).toBe("rate_limited");
      expect(err.extra.retryAfterSeconds).toBeGreaterThan(0);
    }
    expect(PNG.sync.read(await theirs).width).toBe(32);
  });

  it("drop a waiting render whose client left, which frees the account's budget", async () => {
    const big = rleInstance({ rows: 512, columns: 512 });
    const controllers = Array.from({ length: 8 }, () => new AbortController());
    const mine = controllers.map((c) =>
      renderInWorker("unit-d", job(big), c.signal).then(
        () => "rendered",
        (err: DomainError) => err.code,
      ),
    );
    // Some were refused at once; the client of every render still in hand leaves now.
    for (const c of controllers) c.abort();
    const ended = await Promise.all(mine);
    // Whatever had not started decoding left the queue (refused, never rendered).
    expect(ended.filter((e) => e === "rendered").length).toBeLessThanOrEqual(2);
    // And the account may ask again at once.
    expect(PNG.sync.read(await renderInWorker("unit-d", job(rleInstance()))).width).toBe(32);
  });
});
