import { spawn } from "node:child_process";
import { log } from "~/lib/log.server";

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

/** Runs a tool with `input` on stdin and returns its stdout, or throws with its last words. */
export function runTool(
  cmd: string,
  args: string[],
  input: Buffer | null,
  timeoutMs = 60_000,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let err = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => {
      if (err.length < 2000) err += c.toString();
    });
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out));
      else
        reject(
          new Error(`${cmd} ended with ${signal ?? code}: ${err.trim().split("\n").slice(-2).join(" ")}`),
        );
    });
    child.stdin.on("error", () => {}); // a tool that stops reading early reports through its exit code
    child.stdin.end(input ?? undefined);
  });
}

/**
 * A recording (any type a voice note may have) as an 8 kHz mono 16-bit WAV: sox reads WAV itself;
 * everything else goes through ffmpeg. Null when it cannot be converted (tool missing, bad audio).
 */
export async function toPhoneAudio(bytes: Buffer, mimeType: string): Promise<Buffer | null> {
  try {
    const wav =
      mimeType === "audio/wav"
        ? await runTool(
            "sox",
            ["-t", "wav", "-", "-t", "wav", "-r", "8000", "-c", "1", "-b", "16", "-e", "signed-integer", "-"],
            bytes,
          )
        : await runTool(
            "ffmpeg",
            [
              "-hide_banner",
              "-loglevel",
              "error",
              "-i",
              "pipe:0",
              "-ac",
              "1",
              "-ar",
              "8000",
              "-sample_fmt",
              "s16",
              "-f",
              "wav",
              "pipe:1",
            ],
            bytes,
          );
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

/** `text` spoken by espeak-ng in `locale`'s voice, as 8 kHz samples (16-bit). Throws when the tools are missing. */
export async function speak(text: string, locale: string): Promise<Buffer> {
  const voice = VOICES[locale] ?? "en";
  const spoken = await runTool("espeak-ng", ["-v", voice, "-s", "140", "--stdout", text], null, 30_000);
  const wav = await runTool(
    "sox",
    ["-t", "wav", "-", "-t", "wav", "-r", "8000", "-c", "1", "-b", "16", "-e", "signed-integer", "-"],
    spoken,
  );
  const samples = wavSamples(wav);
  if (!samples) throw new Error("espeak-ng gave no audio");
  return samples;
}
