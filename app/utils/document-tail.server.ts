import { Transform } from "node:stream";

const END = Buffer.from("</body></html>");

/**
 * Single fetch streams the loader data as inline `<script>`s that React writes after the document
 * (RemixServer renders them beside the router, so after `</html>`). Browsers put them into the
 * body anyway, but the HTML spec calls a tag there a parse error and the W3C validator stops at it.
 * This moves everything that follows `</body></html>` in front of it, so the document ends with
 * `</html>` and the browser builds exactly the same tree. Everything before the end tags still
 * streams as it comes; only the short tail is held until the render ends. `extra` is asked for
 * at the end, for markup that depends on the whole render (the page's strings).
 */
export function tailInsideBody(extra?: () => string) {
  let held: Buffer = Buffer.alloc(0);
  let found = false;
  const tail: Buffer[] = [];
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (found) {
        tail.push(chunk);
        return done();
      }
      const data = held.length ? Buffer.concat([held, chunk]) : chunk;
      const at = data.indexOf(END);
      if (at !== -1) {
        found = true;
        held = Buffer.alloc(0);
        tail.push(data.subarray(at + END.length));
        return done(null, data.subarray(0, at));
      }
      // Keep what could be the start of the end tags split across two chunks.
      const keep = Math.min(END.length - 1, data.length);
      held = Buffer.from(data.subarray(data.length - keep));
      done(null, data.subarray(0, data.length - keep));
    },
    flush(done) {
      if (!found) return done(null, held);
      done(null, Buffer.concat([...tail, Buffer.from(extra?.() ?? ""), END]));
    },
  });
}
