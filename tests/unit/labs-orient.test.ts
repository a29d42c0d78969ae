import { describe, expect, it } from "vitest";
import { enlarge, exifOrientation, orient } from "~/domain/records/lab-pixels";
import { exifHead } from "../helpers/exif";

describe("a phone photo turned as its EXIF orientation says (decision 0082)", () => {
  it("reads the orientation in both byte orders, 1 when there is none or it is garbage", () => {
    expect(exifOrientation(exifHead(6))).toBe(6);
    expect(exifOrientation(exifHead(8, false))).toBe(8);
    expect(exifOrientation(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2]))).toBe(1);
    expect(exifOrientation(exifHead(42))).toBe(1);
    expect(exifOrientation(exifHead(6).subarray(0, 20))).toBe(1); // cut off inside the segment
  });

  it("turns the pixels as a browser shows them", () => {
    // 3 wide, 2 high:  a b c / d e f
    const px = Uint8Array.from([1, 2, 3, 4, 5, 6]);
    // 6: turned 90° clockwise → 2 wide, 3 high: d a / e b / f c
    expect(orient(px, 3, 2, 6)).toEqual({ px: Uint8Array.from([4, 1, 5, 2, 6, 3]), w: 2, h: 3 });
    // 8: turned 90° anticlockwise: c f / b e / a d
    expect(orient(px, 3, 2, 8)).toEqual({ px: Uint8Array.from([3, 6, 2, 5, 1, 4]), w: 2, h: 3 });
    // 3: half a turn: f e d / c b a
    expect(orient(px, 3, 2, 3).px).toEqual(Uint8Array.from([6, 5, 4, 3, 2, 1]));
    expect(orient(px, 3, 2, 1).px).toBe(px);
  });

  it("enlarges a page picture under 300 dpi for A4 to 3,860 px, about 330 dpi (at most threefold), keeps its shades, and leaves a large one alone", () => {
    // 2,000 × 1,500 of one grey with a black half: 3,860 × 2,895, the same grey, the edge kept.
    const w = 2000;
    const h = 1500;
    const px = new Uint8Array(w * h).map((_, i) => (i % w < w / 2 ? 0 : 200));
    const big = enlarge(px, w, h);
    expect([big.w, big.h]).toEqual([3860, 2895]);
    expect(big.px[0]).toBe(0);
    expect(big.px[big.w * 1000 + 3000]).toBe(200);
    // A phone photo at 220 dpi (2,573 px): its small print lost decimal points at that size.
    expect(enlarge(new Uint8Array(1819 * 2573), 1819, 2573)).toMatchObject({ w: 2729, h: 3860 });
    expect(enlarge(new Uint8Array(700 * 500), 700, 500)).toMatchObject({ w: 2100, h: 1500 });
    // A 300-dpi scan of an A4 page (3,508 px) is left as it is.
    const large = new Uint8Array(2481 * 3508);
    expect(enlarge(large, 2481, 3508).px).toBe(large);
  });
});
