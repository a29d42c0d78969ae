import { log } from "~/lib/log.server";
import { runProgram } from "~/lib/programs.server";

/**
 * Telephone audio (decision 0080): a call carries 8 kHz mono, so every sound a call plays is an 8 kHz
 * mono 16-bit PCM WAV — a voice note's telephone copy (made once, when it is stored), the spoken
 * prompts (espeak-ng) and the silences between them. This module converts with Debian's sox (WAV)
 * and ffmpeg (WebM/Ogg Opus, MP4/AAC, MP3: what browsers and phones record), and joins WAVs in
 * memory. A missing tool is a logged refusal (null), never a crash: calls then leave the note out.
 */

export const PHONE_RATE = 8000;

/** The samples (16-bit little-endian) of a 16-bit PCM WAV, or null when it is not one. */
export function wavSamples(wav: Buffer): Buffer | null {
  if (wav.length < 12 || wav.toString("ascii", 0, 4) !== "RIFF" || wav.toString("ascii", 8, 12) !== "WAVE")
    return null;
  let at = 12;
  let bits = 0;
  while (at + 8 <= wav.length) {
    const id = wav.toString("ascii", at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === "fmt ") bits = wav.readUInt16LE(at + 22);
    // A stream that never learnt its length says 0 or 0xffffffff: the data runs to the end.
    if (id === "data")
      return bits === 16 ? wav.subarray(at + 8, Math.min(wav.length, at + 8 + (size || wav.length))) : null;
    at += 8 + size + (size % 2);
  }
  return null;
}

/** A WAV file of 8 kHz mono 16-bit `samples`. */
export function phoneWav(samples: Buffer): Buffer {
  const head = Buffer.alloc(44);
  head.write("RIFF", 0, "ascii");
  head.writeUInt32LE(36 + samples.length, 4);
  head.write("WAVEfmt ", 8, "ascii");
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(PHONE_RATE, 24);
  head.writeUInt32LE(PHONE_RATE * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write("data", 36, "ascii");
  head.writeUInt32LE(samples.length, 40);
  return Buffer.concat([head, samples]);
}

/** `ms` of silence as 8 kHz 16-bit samples. */
export function silence(ms: number): Buffer {
  return Buffer.alloc(Math.round((PHONE_RATE * ms) / 1000) * 2);
}

/**
 * A recording (any type a voice note may have) as an 8 kHz mono 16-bit WAV: sox reads WAV itself;
 * everything else goes through ffmpeg. Null when it cannot be converted (tool missing, bad audio).
 */
export async function toPhoneAudio(bytes: Buffer, mimeType: string): Promise<Buffer | null> {
  try {
    const wav =
      mimeType === "audio/wav"
        ? await toPhoneWav(bytes)
        : await runProgram("ffmpeg", {
            options: ["-hide_banner", "-loglevel", "error", "-i", "pipe:0"],
            trailing: ["-ac", "1", "-ar", "8000", "-sample_fmt", "s16", "-f", "wav", "pipe:1"],
            input: bytes,
          });
    const samples = wavSamples(wav);
    return samples ? phoneWav(samples) : null;
  } catch (err) {
    log("warn", "a recording could not be converted for the phone", {
      mimeType,
      error: String((err as Error)?.message ?? err).slice(0, 300),
    });
    return null;
  }
}

const VOICES: Record<string, string> = { en: "en", hi: "hi", bn: "bn", ta: "ta" };

/** sox: any WAV on stdin as an 8 kHz mono 16-bit WAV on stdout. */
function toPhoneWav(wav: Buffer): Promise<Buffer> {
  return runProgram("sox", {
    options: ["-t", "wav"],
    operands: ["-"],
    trailing: ["-t", "wav", "-r", "8000", "-c", "1", "-b", "16", "-e", "signed-integer", "-"],
    input: wav,
  });
}

/**
 * `text` spoken by espeak-ng in `locale`'s voice, as 8 kHz samples (16-bit). The text (an
 * expert's opinion, a phrase) goes on espeak-ng's stdin, never on its command line, where a text
 * such as `-f<path>` would be read as an option (decision 0086). Throws when the tools are missing.
 */
export async function speak(text: string, locale: string): Promise<Buffer> {
  const voice = VOICES[locale] ?? "en";
  const spoken = await runProgram("espeak-ng", {
    options: ["-v", voice, "-s", "140", "--stdout", "--stdin"],
    input: Buffer.from(text, "utf8"),
  });
  const samples = wavSamples(await toPhoneWav(spoken));
  if (!samples) throw new Error("espeak-ng gave no audio");
  return samples;
}
