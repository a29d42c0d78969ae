// Draws the web app's PNG icons (public/icons/) from the logo's shapes in public/favicon.svg: a
// #0b5f56 rounded square with a white cross. Run once by hand (`node scripts/make-icons.mjs`) when
// the logo changes; the PNGs are committed. The maskable icon fills the whole square and keeps the
// cross inside the central safe zone (a circle of 80 % of the width), as launchers crop it.
import { PNG } from "pngjs";
import { writeFileSync } from "node:fs";

const TEAL = [0x0b, 0x5f, 0x56];
const WHITE = [0xff, 0xff, 0xff];

/** The favicon's cross on a 32-unit grid: arms 6 wide from 7 to 25. */
function inCross(u, v) {
  return (u >= 13 && u < 19 && v >= 7 && v < 25) || (v >= 13 && v < 19 && u >= 7 && u < 25);
}

function draw(size, { maskable }) {
  const png = new PNG({ width: size, height: size });
  const radius = maskable ? 0 : (8 / 32) * size;
  // The maskable cross is drawn at 70 % of its full size, centred, so it stays in the safe zone.
  const scale = maskable ? 0.7 : 1;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      const cx = Math.min(x + 0.5, size - x - 0.5);
      const cy = Math.min(y + 0.5, size - y - 0.5);
      const outside = cx < radius && cy < radius && Math.hypot(radius - cx, radius - cy) > radius;
      const u = (((x + 0.5) / size - 0.5) / scale) * 32 + 16;
      const v = (((y + 0.5) / size - 0.5) / scale) * 32 + 16;
      const [r, g, b] = inCross(u, v) ? WHITE : TEAL;
      png.data[i] = r;
      png.data[i + 1] = g;
      png.data[i + 2] = b;
      png.data[i + 3] = outside ? 0 : 255;
    }
  }
  return PNG.sync.write(png);
}

writeFileSync("public/icons/icon-192.png", draw(192, { maskable: false }));
writeFileSync("public/icons/icon-512.png", draw(512, { maskable: false }));
writeFileSync("public/icons/icon-maskable-512.png", draw(512, { maskable: true }));
console.log("public/icons/: icon-192.png, icon-512.png, icon-maskable-512.png");
