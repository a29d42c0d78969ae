import { createRequire } from "node:module";
import path from "node:path";
import { Writable } from "node:stream";
import { createElement, type ReactNode } from "react";
import { describe, expect, it } from "vitest";

// The production build the server runs (NODE_ENV=production), patched by
// patches/react-dom+18.3.1.patch: short strings are written into React's 2 KiB chunks without a
// TextEncoder call each, and no string is split across two chunks (decision 0049).
const require = createRequire(import.meta.url);
const cjs = path.join(path.dirname(require.resolve("react-dom/package.json")), "cjs");
const server = require(
  path.join(cjs, "react-dom-server.node.production.min.js"),
) as typeof import("react-dom/server");
// React's string renderer builds its output as JS strings: no byte chunks to compare against.
const legacy = require(
  path.join(cjs, "react-dom-server-legacy.node.production.min.js"),
) as typeof import("react-dom/server");

function streamed(node: ReactNode): Promise<{ bytes: Buffer; chunks: number }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        parts.push(Buffer.from(chunk));
        done();
      },
    });
    sink.once("finish", () => resolve({ bytes: Buffer.concat(parts), chunks: parts.length }));
    const { pipe } = server.renderToPipeableStream(node, {
      onAllReady: () => pipe(sink),
      onShellError: reject,
    });
  });
}

/** Text of every kind a page carries: ASCII, Devanagari, Bengali, Tamil, emoji, lone surrogates, long runs. */
function texts(seed: number): string[] {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) >>> 0);
  const pieces = [
    "Start review",
    "परिणाम",
    "রিপোর্ট",
    "அறிக்கை",
    "🩺",
    "\ud800",
    "a&b<c>\"d'",
    "x".repeat(700),
    "ह".repeat(690),
  ];
  const out: string[] = [];
  for (let i = 0; i < 400; i++) {
    const n = 1 + (next() % 4);
    let t = "";
    for (let j = 0; j < n; j++) t += pieces[next() % pieces.length].slice(0, 1 + (next() % 80));
    out.push(t);
  }
  return out;
}

describe("React's streamed output (patched writeChunk)", () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`gives the same page as renderToString, with no NUL bytes (seed ${seed})`, async () => {
      const list = texts(seed);
      const tree = createElement(
        "ul",
        { className: "rows" },
        list.map((t, i) =>
          createElement("li", { key: i, title: t, "data-i": i }, t, createElement("b", null, i), t),
        ),
      );
      const { bytes, chunks } = await streamed(tree);
      expect(chunks).toBeGreaterThan(10); // the page really crossed many 2 KiB chunk edges
      expect(bytes.indexOf(0)).toBe(-1);
      // Compared as bytes: a lone surrogate is written as U+FFFD either way.
      expect(bytes.equals(Buffer.from(legacy.renderToString(tree), "utf8"))).toBe(true);
    });
  }
});
