/**
 * A photo or scan made ready for Tesseract (decision 0082): evened light, straightened, cleaned.
 * These are the pure pixel functions (no imports, no I/O); the child program
 * `lab-clean.child.ts` decodes a picture and runs them in a child Node process started by path
 * through the one door (decision 0086): the pixel work never holds the server's event loop, and a
 * hostile image can only kill its own child.
 *
 * 1. Light: the paper's brightness is estimated per 32-px block (the brightest of a lightly
 *    blurred block, smoothed over its neighbours) and divided out, so a shadow in one corner and
 *    glare in another both become white paper.
 * 2. Noise: the 3×3 mean taken for the light estimate is the picture Tesseract reads (JPEG and
 *    sensor speckle fall below the ink threshold).
 * 3. Straightening: the ink of a quarter-size copy is projected on rows at angles from −8° to 8°;
 *    text lines give the most peaked profile (the largest sum of squares) at the page's skew, found in 0.25° then 0.05° steps.
 *    The page is turned back by bilinear interpolation, white outside.
 * 4. Contrast: the result is stretched so ink is black and paper white (Otsu's threshold splits
 *    them); grey edges are kept, Tesseract binarises again. What is still lighter than PAPER_FROM
 *    is paper: a light watermark and the paper's grain become white (decision 0112).
 *
 * Large pictures are first reduced (box average) to at most MAX_SIDE pixels on their long side
 * (a 12-MP phone photo, 4,000 px, is read at its own size: halved, its print was too small).
 */
export function cleanPage(
  src: Uint8Array,
  width: number,
  height: number,
): { px: Uint8Array; w: number; h: number; angle: number; cv: number; inkShare: number } {
  const MAX_SIDE = 4100;
  // Reduced straight from the bytes: no full-size float copy of a large photo.
  const f = Math.ceil(Math.max(width, height) / MAX_SIDE);
  const w = Math.floor(width / f);
  const h = Math.floor(height / f);
  const px = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let j = 0; j < f; j++) for (let i = 0; i < f; i++) s += src[(y * f + j) * width + x * f + i];
      px[y * w + x] = s / (f * f);
    }
  // 3×3 mean (separable).
  const tmp = new Float32Array(w * h);
  const mean = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const a = px[y * w + Math.max(0, x - 1)];
      const c = px[y * w + Math.min(w - 1, x + 1)];
      tmp[y * w + x] = (a + px[y * w + x] + c) / 3;
    }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const a = tmp[Math.max(0, y - 1) * w + x];
      const c = tmp[Math.min(h - 1, y + 1) * w + x];
      mean[y * w + x] = (a + tmp[y * w + x] + c) / 3;
    }
  // Paper brightness per block, smoothed, then divided out.
  const B = 32;
  const gw = Math.ceil(w / B);
  const gh = Math.ceil(h / B);
  const grid = new Float32Array(gw * gh);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const k = Math.floor(y / B) * gw + Math.floor(x / B);
      if (mean[y * w + x] > grid[k]) grid[k] = mean[y * w + x];
    }
  const smooth = new Float32Array(gw * gh);
  for (let gy = 0; gy < gh; gy++)
    for (let gx = 0; gx < gw; gx++) {
      // The brightest neighbour stands in for a block that is all ink (a heading bar, a logo).
      let m = 0;
      for (let j = -1; j <= 1; j++)
        for (let i = -1; i <= 1; i++) {
          const yy = gy + j;
          const xx = gx + i;
          if (yy >= 0 && xx >= 0 && yy < gh && xx < gw) m = Math.max(m, grid[yy * gw + xx]);
        }
      smooth[gy * gw + gx] = Math.max(m, 16);
    }
  const norm = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const fy = Math.min(gh - 1, Math.max(0, (y + 0.5) / B - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(gh - 1, y0 + 1);
    const ty = fy - y0;
    for (let x = 0; x < w; x++) {
      const fx = Math.min(gw - 1, Math.max(0, (x + 0.5) / B - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(gw - 1, x0 + 1);
      const tx = fx - x0;
      const bg =
        smooth[y0 * gw + x0] * (1 - tx) * (1 - ty) +
        smooth[y0 * gw + x1] * tx * (1 - ty) +
        smooth[y1 * gw + x0] * (1 - tx) * ty +
        smooth[y1 * gw + x1] * tx * ty;
      norm[y * w + x] = Math.min(255, (mean[y * w + x] * 255) / bg);
    }
  }
  // Otsu's threshold of the evened page.
  const hist = new Float64Array(256);
  for (let i = 0; i < norm.length; i++) hist[Math.round(norm[i])]++;
  let sum = 0;
  for (let t = 0; t < 256; t++) sum += t * hist[t];
  let wB = 0;
  let sB = 0;
  let best = 0;
  let thr = 128;
  for (let t = 0; t < 256; t++) {
    wB += hist[t];
    if (wB === 0) continue;
    const wF = norm.length - wB;
    if (wF === 0) break;
    sB += t * hist[t];
    const d = sB / wB - (sum - sB) / wF;
    const between = wB * wF * d * d;
    if (between > best) {
      best = between;
      thr = t;
    }
  }
  // Skew: the ink of a quarter-size copy (ink pixels per 4×4 cell), projected on rows.
  const qw = Math.floor(w / 4);
  const qh = Math.floor(h / 4);
  const cells = new Float32Array(qw * qh);
  for (let y = 0; y < qh * 4; y++)
    for (let x = 0; x < qw * 4; x++) if (norm[y * w + x] < thr) cells[(y >> 2) * qw + (x >> 2)]++;
  const ink: number[] = [];
  for (let y = 0; y < qh; y++)
    for (let x = 0; x < qw; x++) if (cells[y * qw + x] > 0) ink.push(x, y, cells[y * qw + x]);
  const score = (deg: number) => {
    const t = Math.tan((deg * Math.PI) / 180);
    const off = Math.ceil(Math.abs(t) * qw) + 2;
    const bins = new Float64Array(qh + 2 * off + 2);
    for (let i = 0; i < ink.length; i += 3) {
      // Each cell's ink is shared between the two rows its projected centre falls between.
      const p = ink[i + 1] - ink[i] * t + off;
      const b = Math.floor(p);
      bins[b] += ink[i + 2] * (1 - (p - b));
      bins[b + 1] += ink[i + 2] * (p - b);
    }
    let s = 0;
    for (let i = 0; i < bins.length; i++) s += bins[i] * bins[i];
    return s;
  };
  let angle = 0;
  let top = score(0);
  for (let d = -8; d <= 8; d += 0.25) {
    const s = score(d);
    if (s > top) {
      top = s;
      angle = d;
    }
  }
  const coarse = angle;
  for (let d = coarse - 0.2; d <= coarse + 0.2; d += 0.05) {
    const s = score(d);
    if (s > top) {
      top = s;
      angle = d;
    }
  }
  angle = Math.round(angle * 100) / 100;
  // Is it a page of text at all? Text lines make the row profile at the skew peaked (rows of ink,
  // rows of paper): its coefficient of variation over the inked span is high. A photo of skin, an
  // X-ray or noise has ink everywhere or nowhere, and a flat profile.
  const t = Math.tan((angle * Math.PI) / 180);
  const off = Math.ceil(Math.abs(t) * qw) + 2;
  const prof = new Float64Array(qh + 2 * off + 2);
  let total = 0;
  for (let i = 0; i < ink.length; i += 3) {
    prof[Math.round(ink[i + 1] - ink[i] * t + off)] += ink[i + 2];
    total += ink[i + 2];
  }
  let firstRow = 0;
  while (firstRow < prof.length && prof[firstRow] === 0) firstRow++;
  let lastRow = prof.length - 1;
  while (lastRow > firstRow && prof[lastRow] === 0) lastRow--;
  const span = Math.max(1, lastRow - firstRow + 1);
  let sq = 0;
  for (let i = firstRow; i <= lastRow; i++) sq += prof[i] * prof[i];
  const cv = total > 0 ? Math.sqrt(Math.max(0, (span * sq) / (total * total) - 1)) : 0;
  const inkShare = total / (qw * qh * 16);
  // Turn back by the skew (rows at angle `angle` become level), stretching ink to black, paper to white.
  const lo = Math.max(0, thr - 2 * (255 - thr));
  const stretch = (v: number) => Math.max(0, Math.min(255, ((v - lo) * 255) / (255 - lo)));
  const out = new Uint8Array(w * h);
  const a = (angle * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const cx = w / 2;
  const cy = h / 2;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const dx = x - cx;
      const dy = y - cy;
      const sx = cos * dx - sin * dy + cx;
      const sy = sin * dx + cos * dy + cy;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= w || y0 + 1 >= h) {
        out[y * w + x] = 255;
        continue;
      }
      const fx = sx - x0;
      const fy = sy - y0;
      const v =
        norm[y0 * w + x0] * (1 - fx) * (1 - fy) +
        norm[y0 * w + x0 + 1] * fx * (1 - fy) +
        norm[(y0 + 1) * w + x0] * (1 - fx) * fy +
        norm[(y0 + 1) * w + x0 + 1] * fx * fy;
      const shade = stretch(v);
      out[y * w + x] = shade > PAPER_FROM ? 255 : shade;
    }
  return {
    px: out,
    w,
    h,
    angle,
    cv: Math.round(cv * 100) / 100,
    inkShare: Math.round(inkShare * 10_000) / 10_000,
  };
}

/**
 * The shade (0 ink – 255 paper, after the stretch) above which a pixel is paper (decision 0112): a
 * light watermark drawn across the table and the grain of scanned paper sit above it, the cores of
 * printed strokes far below. Left grey, Tesseract's local threshold (Sauvola) made words of the
 * grain and of the watermark's edges, and lost rows under it ("3.5 - 7.2" read "SHOE IAP").
 */
export const PAPER_FROM = 200;

/**
 * The EXIF orientation of a JPEG (1–8; 1 when none): phones store the picture as the sensor saw
 * it and say in this tag how to turn it, and browsers show it turned. (It runs in the child.)
 */
export function exifOrientation(jpg: Uint8Array): number {
  let i = 2;
  while (i + 4 < jpg.length && jpg[i] === 0xff) {
    const marker = jpg[i + 1];
    const len = (jpg[i + 2] << 8) | jpg[i + 3];
    if (marker === 0xda) break; // image data: no more headers
    const tiff = i + 10;
    const isExif =
      marker === 0xe1 &&
      jpg[i + 4] === 0x45 &&
      jpg[i + 5] === 0x78 &&
      jpg[i + 6] === 0x69 &&
      jpg[i + 7] === 0x66;
    if (isExif && tiff + 8 <= jpg.length) {
      const le = jpg[tiff] === 0x49;
      const u16 = (o: number) => (le ? jpg[o] | (jpg[o + 1] << 8) : (jpg[o] << 8) | jpg[o + 1]);
      const u32 = (o: number) => (le ? u16(o) + u16(o + 2) * 65536 : u16(o) * 65536 + u16(o + 2));
      const ifd = tiff + u32(tiff + 4);
      if (ifd + 2 > jpg.length) return 1;
      const n = u16(ifd);
      for (let k = 0; k < n; k++) {
        const e = ifd + 2 + k * 12;
        if (e + 10 > jpg.length) return 1;
        if (u16(e) === 0x0112) {
          const o = u16(e + 8);
          return o >= 1 && o <= 8 ? o : 1;
        }
      }
      return 1;
    }
    i += 2 + len;
  }
  return 1;
}

/**
 * A page picture under 300 dpi for an A4 page (a long side under 3,400 px) enlarged (bilinear) to
 * 3,860 px, about 330 dpi, at most threefold (decision 0089): Tesseract loses small print's decimal
 * points below that. On the corpus, phone photos at 220 dpi (2,573 px) read 241 of 273 values as
 * they were and 254 at 3,860 px; photos as the upload screen then sent them (2,000 px; 1,800 since
 * decision 0109) 248 at 3,300 px and 255 at 3,860 px. A 300-dpi scan (3,508 px) read 255 of 278
 * both at its size and at 3,860 px, and 245 at 1.5×: it is left as it is, as are larger pictures (a
 * phone's own 12-MP photo). It runs in the child.
 */
export function enlarge(px: Uint8Array, w: number, h: number): { px: Uint8Array; w: number; h: number } {
  const long = Math.max(w, h);
  if (long >= 3400) return { px, w, h };
  const f = Math.min(3, 3860 / long);
  const W = Math.round(w * f);
  const H = Math.round(h * f);
  const out = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    const sy = Math.min(h - 1, Math.max(0, (y + 0.5) / f - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(h - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < W; x++) {
      const sx = Math.min(w - 1, Math.max(0, (x + 0.5) / f - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(w - 1, x0 + 1);
      const fx = sx - x0;
      const top = px[y0 * w + x0] * (1 - fx) + px[y0 * w + x1] * fx;
      const bottom = px[y1 * w + x0] * (1 - fx) + px[y1 * w + x1] * fx;
      out[y * W + x] = top * (1 - fy) + bottom * fy + 0.5;
    }
  }
  return { px: out, w: W, h: H };
}

/** The picture turned as its EXIF orientation says (what a browser shows); 1 leaves it as it is. */
export function orient(
  px: Uint8Array,
  w: number,
  h: number,
  o: number,
): { px: Uint8Array; w: number; h: number } {
  if (o <= 1 || o > 8) return { px, w, h };
  const swap = o >= 5;
  const nw = swap ? h : w;
  const nh = swap ? w : h;
  const out = new Uint8Array(nw * nh);
  for (let y = 0; y < nh; y++)
    for (let x = 0; x < nw; x++) {
      // The source pixel shown at (x, y), per the eight EXIF orientations.
      let sx = x;
      let sy = y;
      if (o === 2) sx = w - 1 - x;
      else if (o === 3) {
        sx = w - 1 - x;
        sy = h - 1 - y;
      } else if (o === 4) sy = h - 1 - y;
      else if (o === 5) {
        sx = y;
        sy = x;
      } else if (o === 6) {
        sx = y;
        sy = h - 1 - x;
      } else if (o === 7) {
        sx = w - 1 - y;
        sy = h - 1 - x;
      } else if (o === 8) {
        sx = w - 1 - y;
        sy = x;
      }
      out[y * nw + x] = px[sy * w + sx];
    }
  return { px: out, w: nw, h: nh };
}
