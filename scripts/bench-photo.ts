/**
 * The effect of making photos smaller in the browser: how long a phone photo
 * of a report takes to upload at 400 kbit/s as taken, and after the upload page's own code
 * (app/components/reports/photo.ts, bundled with esbuild and run in Chromium) has made it smaller.
 *
 * In Debian's Chromium (flags as in playwright.config.ts) it renders a camera-like 4000×3000
 * photo of a printed lab report lying on a table — paper, text, shadow, vignetting and sensor
 * noise — and encodes it as JPEG at quality 0.92 (about 4 MB, like a phone's camera); then it runs
 * `shrinkPhoto` on it. Upload times are computed from the sizes (payload only: bytes × 8 / rate)
 * and, unless `measure: false`, measured once each: Chromium sends the bytes with XMLHttpRequest to
 * a local sink over a link throttled with CDP (Network.emulateNetworkConditions, 100 ms latency).
 *
 *   npx tsx scripts/bench-photo.ts            # prints the figures and the JSON
 *   BENCH_PHOTO_MEASURE=0 npx tsx scripts/bench-photo.ts   # sizes and computed times only
 *   BENCH_PHOTO_OUT=bench/results/photo npx tsx scripts/bench-photo.ts   # also writes the images
 *
 * `benchPhoto()` is what scripts/bench.ts calls.
 */
import { build } from "esbuild";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type PhotoBench = {
  photo: { width: number; height: number; bytes: number; type: string; jpegQuality: number };
  shrunk: { width: number; height: number; bytes: number; type: string; changed: boolean };
  /** How long the page's code took in Chromium (decode, downscale, encode). */
  shrinkMs: number;
  /** Shrunk size / original size. */
  ratio: number;
  linkKbps: number;
  computedSeconds: { before: number; after: number };
  measuredSeconds?: { before: number; after: number };
  chromium: string;
};

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PHOTO_MODULE = path.resolve(HERE, "../app/components/reports/photo.ts");
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The upload page's photo code as a browser script exposing `window.CareBridgePhoto`. */
async function photoScript(): Promise<string> {
  const out = await build({
    entryPoints: [PHOTO_MODULE],
    bundle: true,
    format: "iife",
    globalName: "CareBridgePhoto",
    target: "es2020",
    write: false,
    logLevel: "warning",
  });
  return out.outputFiles[0].text;
}

/** A page to run in, and a sink that reads an upload's body and says when it has all of it. */
async function startSink(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method === "POST") {
      let n = 0;
      req.on("data", (c: Buffer) => (n += c.length));
      req.on("end", () => {
        res.writeHead(200, { "Content-Type": "text/plain" });
        res.end(String(n));
      });
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>photo bench</title><body></body>");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

export async function benchPhoto(
  opts: {
    measure?: boolean;
    linkKbps?: number;
    chromiumPath?: string;
    /** Writes the photo, the smaller one and a 1:1 PNG crop of its text there, for people to look at. */
    outDir?: string;
  } = {},
): Promise<PhotoBench> {
  const measure = opts.measure ?? true;
  const linkKbps = opts.linkKbps ?? 400;
  const { chromium } = await import("@playwright/test");
  const script = await photoScript();
  const sink = await startSink();
  const browser = await chromium.launch({
    executablePath: opts.chromiumPath ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await browser.newPage();
    await page.goto(sink.url);
    await page.addScriptTag({ content: script });

    // A phone photo of a printed report: 12 MP, JPEG 0.92.
    const photo = await page.evaluate(async () => {
      const w = 4000;
      const h = 3000;
      const canvas = document.createElement("canvas");
      canvas.width = w;
      canvas.height = h;
      const ctx = canvas.getContext("2d")!;
      // The table.
      const table = ctx.createLinearGradient(0, 0, w, h);
      table.addColorStop(0, "#7a5c3e");
      table.addColorStop(0.5, "#5e4630");
      table.addColorStop(1, "#3b2c1f");
      ctx.fillStyle = table;
      ctx.fillRect(0, 0, w, h);
      for (let i = 0; i < 140; i++) {
        ctx.strokeStyle = `rgba(40,25,12,${0.05 + (i % 7) * 0.02})`;
        ctx.lineWidth = 3 + (i % 5);
        ctx.beginPath();
        ctx.moveTo(0, i * 23);
        ctx.bezierCurveTo(w / 3, i * 23 + 40, (2 * w) / 3, i * 23 - 40, w, i * 23 + 10);
        ctx.stroke();
      }
      // The paper, slightly turned, with its shadow.
      ctx.save();
      ctx.translate(w / 2, h / 2);
      ctx.rotate(-0.035);
      ctx.shadowColor = "rgba(0,0,0,0.45)";
      ctx.shadowBlur = 60;
      ctx.shadowOffsetX = 25;
      ctx.shadowOffsetY = 30;
      ctx.fillStyle = "#f3efe6";
      ctx.fillRect(-1450, -1380, 2900, 2760);
      ctx.shadowColor = "transparent";
      ctx.fillStyle = "#0d6e63";
      ctx.fillRect(-1300, -1250, 160, 160);
      ctx.fillStyle = "#1b2430";
      ctx.font = "bold 96px serif";
      ctx.fillText("CITY DIAGNOSTIC LABORATORY", -1090, -1140);
      ctx.font = "52px sans-serif";
      ctx.fillText("Complete Blood Count · Sample 2026-03-01 08:40 · Ref. Dr. A. Rao", -1300, -960);
      const tests = ["Haemoglobin", "RBC count", "WBC count", "Platelets", "MCV", "MCH", "MCHC", "ESR"];
      for (let i = 0; i < 30; i++) {
        const y = -800 + i * 78;
        ctx.fillStyle = i % 2 ? "#1b2430" : "#27313d";
        ctx.fillText(`${tests[i % tests.length]} ${i + 1}`, -1300, y);
        ctx.fillText(`${(10 + ((i * 37) % 90) / 10).toFixed(1)}`, 100, y);
        ctx.fillText("ref. 12.0 – 16.0 g/dL", 500, y);
      }
      ctx.strokeStyle = "#1b2430";
      ctx.lineWidth = 4;
      ctx.strokeRect(-1320, -870, 2640, 2380);
      ctx.restore();
      // Light falling off to the corners, and the sensor's noise.
      const vignette = ctx.createRadialGradient(w / 2, h / 2, h / 3, w / 2, h / 2, w * 0.7);
      vignette.addColorStop(0, "rgba(0,0,0,0)");
      vignette.addColorStop(1, "rgba(0,0,0,0.35)");
      ctx.fillStyle = vignette;
      ctx.fillRect(0, 0, w, h);
      const img = ctx.getImageData(0, 0, w, h);
      let x = 20260301;
      for (let i = 0; i < img.data.length; i += 4) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        const luma = ((x >>> 24) % 23) - 11;
        img.data[i] += luma + ((x >>> 8) & 3);
        img.data[i + 1] += luma + ((x >>> 12) & 3);
        img.data[i + 2] += luma + ((x >>> 16) & 3);
      }
      ctx.putImageData(img, 0, 0);
      const blob = await new Promise<Blob>((r) => canvas.toBlob((b) => r(b!), "image/jpeg", 0.92));
      (window as unknown as { photo: File }).photo = new File([blob], "IMG_20260301_084012.jpg", {
        type: "image/jpeg",
        lastModified: Date.UTC(2026, 2, 1),
      });
      return { width: w, height: h, bytes: blob.size, type: blob.type, jpegQuality: 0.92 };
    });

    // The upload page's own code.
    const shrunk = await page.evaluate(async () => {
      const w = window as unknown as {
        photo: File;
        shrunk: File;
        CareBridgePhoto: typeof import("../app/components/reports/photo");
      };
      const t0 = performance.now();
      const result = await w.CareBridgePhoto.shrinkPhoto(w.photo);
      const ms = performance.now() - t0;
      w.shrunk = result.file;
      const bitmap = await createImageBitmap(result.file);
      const out = {
        width: bitmap.width,
        height: bitmap.height,
        bytes: result.file.size,
        type: result.file.type,
        changed: result.changed,
        ms,
      };
      bitmap.close();
      return out;
    });

    if (opts.outDir) {
      mkdirSync(opts.outDir, { recursive: true });
      const files = await page.evaluate(async () => {
        const w = window as unknown as { photo: File; shrunk: File };
        // The table of results at the size an expert sees it when zoomed to 100 %.
        const bitmap = await createImageBitmap(w.shrunk);
        const crop = document.createElement("canvas");
        crop.width = 900;
        crop.height = 600;
        crop.getContext("2d")!.drawImage(bitmap, 300, 500, 900, 600, 0, 0, 900, 600);
        bitmap.close();
        const png = await new Promise<Blob>((r) => crop.toBlob((b) => r(b!), "image/png"));
        // (No helper functions in here: the script runner would wrap them in a helper the page lacks.)
        const out: string[] = [];
        for (const blob of [w.photo, w.shrunk, png]) {
          const bytes = new Uint8Array(await blob.arrayBuffer());
          let s = "";
          for (let i = 0; i < bytes.length; i += 0x8000)
            s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
          out.push(btoa(s));
        }
        return { photo: out[0], shrunk: out[1], crop: out[2], type: w.shrunk.type };
      });
      writeFileSync(path.join(opts.outDir, "photo.jpg"), Buffer.from(files.photo, "base64"));
      writeFileSync(
        path.join(opts.outDir, `shrunk.${files.type === "image/webp" ? "webp" : "jpg"}`),
        Buffer.from(files.shrunk, "base64"),
      );
      writeFileSync(path.join(opts.outDir, "shrunk-crop.png"), Buffer.from(files.crop, "base64"));
    }

    const seconds = (bytes: number) => Math.round(((bytes * 8) / (linkKbps * 1000)) * 10) / 10;
    const result: PhotoBench = {
      photo,
      shrunk: {
        width: shrunk.width,
        height: shrunk.height,
        bytes: shrunk.bytes,
        type: shrunk.type,
        changed: shrunk.changed,
      },
      shrinkMs: Math.round(shrunk.ms),
      ratio: Math.round((shrunk.bytes / photo.bytes) * 1000) / 1000,
      linkKbps,
      computedSeconds: { before: seconds(photo.bytes), after: seconds(shrunk.bytes) },
      chromium: browser.version(),
    };

    if (measure) {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: 100,
        downloadThroughput: -1,
        uploadThroughput: (linkKbps * 1000) / 8,
      });
      const send = (which: "photo" | "shrunk") =>
        page.evaluate(async (key) => {
          const file = (window as unknown as Record<string, File>)[key];
          const t0 = performance.now();
          await new Promise<void>((resolve, reject) => {
            const xhr = new XMLHttpRequest();
            xhr.open("POST", "/upload");
            xhr.onload = () =>
              xhr.responseText === String(file.size) ? resolve() : reject(new Error("short"));
            xhr.onerror = () => reject(new Error("upload failed"));
            xhr.send(file);
          });
          return (performance.now() - t0) / 1000;
        }, which);
      const before = await send("photo");
      const after = await send("shrunk");
      result.measuredSeconds = { before: Math.round(before * 10) / 10, after: Math.round(after * 10) / 10 };
      await cdp.detach();
    }
    return result;
  } finally {
    await browser.close();
    await new Promise((r) => sink.server.close(r));
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const r = await benchPhoto({
    measure: process.env.BENCH_PHOTO_MEASURE !== "0",
    outDir: process.env.BENCH_PHOTO_OUT || undefined,
  });
  const mb = (b: number) => `${(b / (1024 * 1024)).toFixed(2)} MB`;
  const kb = (b: number) => `${Math.round(b / 1024)} kB`;
  console.log(`Photo made smaller in ${r.chromium}, upload at ${r.linkKbps} kbit/s`);
  console.log(
    `  taken:   ${r.photo.width}×${r.photo.height} ${r.photo.type} q${r.photo.jpegQuality}  ${mb(r.photo.bytes)}`,
  );
  console.log(
    `  shrunk:  ${r.shrunk.width}×${r.shrunk.height} ${r.shrunk.type}  ${kb(r.shrunk.bytes)}  (${(r.ratio * 100).toFixed(1)} %, ${r.shrinkMs} ms in the browser)`,
  );
  console.log(`  computed upload: ${r.computedSeconds.before} s → ${r.computedSeconds.after} s`);
  if (r.measuredSeconds)
    console.log(
      `  measured upload: ${r.measuredSeconds.before} s → ${r.measuredSeconds.after} s (throttled Chromium)`,
    );
  console.log(JSON.stringify(r, null, 2));
}
