/**
 * Test audio made in code (no files fetched, no ffmpeg needed): a PCM WAV of a tone, and a WebM
 * holding Opus silence frames — the container Chromium's MediaRecorder writes, with the
 * duration in its Info element as Chromium writes it when the recording stops.
 */

/** A mono 16-bit PCM WAV of `n` samples at `rate`, each `sample(i)` (−32768…32767). */
export function pcmWav(n: number, rate: number, sample: (i: number) => number): Buffer {
  const b = Buffer.alloc(44 + n * 2);
  b.write("RIFF", 0, "ascii");
  b.writeUInt32LE(36 + n * 2, 4);
  b.write("WAVE", 8, "ascii");
  b.write("fmt ", 12, "ascii");
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36, "ascii");
  b.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(sample(i)), 44 + i * 2);
  return b;
}

/** A mono 16-bit PCM WAV of `seconds` of a 440 Hz tone. */
export function wav(seconds: number, rate = 8000): Buffer {
  return pcmWav(Math.round(seconds * rate), rate, (i) => 6000 * Math.sin((2 * Math.PI * 440 * i) / rate));
}

function id(hex: number): Buffer {
  const bytes: number[] = [];
  for (let v = hex; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from(bytes);
}

/** An EBML element with an 8-byte size. */
function el(elementId: number, ...children: Buffer[]): Buffer {
  const data = Buffer.concat(children);
  const size = Buffer.alloc(8);
  size.writeUInt32BE(0x01000000 + Math.floor(data.length / 2 ** 32), 0);
  size.writeUInt32BE(data.length >>> 0, 4);
  return Buffer.concat([id(elementId), size, data]);
}
const uint = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v);
  return b;
};
const float = (v: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  return b;
};
const str = (s: string) => Buffer.from(s, "ascii");

/** A WebM/Opus file of `seconds` of silence (20 ms Opus frames, one cluster a second). */
export function webmOpus(seconds: number): Buffer {
  const head = Buffer.alloc(19);
  head.write("OpusHead", 0, "ascii");
  head.writeUInt8(1, 8);
  head.writeUInt8(1, 9);
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(48000, 12);
  const silence = Buffer.from([0xf8, 0xff, 0xfe]);
  const clusters: Buffer[] = [];
  const frames = Math.round((seconds * 1000) / 20);
  for (let start = 0; start < frames; start += 50) {
    const blocks: Buffer[] = [];
    for (let f = start; f < Math.min(frames, start + 50); f++) {
      const rel = Buffer.alloc(2);
      rel.writeInt16BE((f - start) * 20);
      blocks.push(el(0xa3, Buffer.from([0x81]), rel, Buffer.from([0x80]), silence));
    }
    clusters.push(el(0x1f43b675, el(0xe7, uint(start * 20)), ...blocks));
  }
  return Buffer.concat([
    el(
      0x1a45dfa3,
      el(0x4286, uint(1)),
      el(0x42f7, uint(1)),
      el(0x42f2, uint(4)),
      el(0x42f3, uint(8)),
      el(0x4282, str("webm")),
      el(0x4287, uint(4)),
      el(0x4285, uint(2)),
    ),
    el(
      0x18538067,
      el(
        0x1549a966,
        el(0x2ad7b1, uint(1_000_000)),
        el(0x4d80, str("test")),
        el(0x5741, str("test")),
        el(0x4489, float(seconds * 1000)),
      ),
      el(
        0x1654ae6b,
        el(
          0xae,
          el(0xd7, uint(1)),
          el(0x73c5, uint(1)),
          el(0x83, uint(2)),
          el(0x86, str("A_OPUS")),
          el(0x63a2, head),
          el(0xe1, el(0xb5, float(48000)), el(0x9f, uint(1))),
        ),
      ),
      ...clusters,
    ),
  ]);
}
