import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { speak } from "~/domain/records/index.server";
import { ProgramFailed, ProgramStopped, runProgram, withScratch } from "~/lib/programs.server";
import { inTempDir } from "../helpers/files";

/**
 * The one door for outside programs (decision 0086), tried as an attacker would: text that looks
 * like an option, a program that runs forever and leaves a child behind, one that eats memory,
 * one that fills its scratch folder. Each is stopped, said once in the log, and leaves nothing.
 */
let logged: string[] = [];
beforeEach(() => {
  logged = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => void logged.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());

const refusals = () => logged.filter((l) => l.includes("outside program refused or stopped"));

/** Whether a process still runs (a zombie waiting for its reaper does not). */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
};

describe("the one door for outside programs", () => {
  // T5-4: an expert's opinion `-f<path>` made espeak-ng read that file aloud (161 s of a secret).
  it("speaks a text that looks like an option as words, never reading the file it names", async () => {
    await inTempDir("door-speak-", async (dir) => {
      const secret = join(dir, "session-secret");
      writeFileSync(secret, "the secret word is ".repeat(300));
      const samples = await speak(`-f${secret}`, "en");
      const seconds = samples.length / 2 / 8000;
      // The words "-f/tmp/…/session-secret" spelled out take a few seconds; the file, minutes.
      expect(seconds).toBeGreaterThan(0.5);
      expect(seconds).toBeLessThan(15);
    });
  }, 30_000);

  it("refuses an operand that could be read as an option, where the program has no `--`", async () => {
    await expect(runProgram("tesseract", { operands: ["-f/etc/passwd", "-"] })).rejects.toMatchObject({
      reason: "refused argument",
    });
    await expect(runProgram("sox", { operands: ["--help"] })).rejects.toBeInstanceOf(ProgramStopped);
    expect(refusals()).toHaveLength(2);
    expect(refusals()[0]).not.toContain("/etc/passwd"); // the log names the program and the reason only
  });

  it("puts `--` before operands where the program reads it", async () => {
    // pdfinfo given a file named like an option reads it as a file (and fails: there is none).
    const err = await runProgram("pdfinfo", { operands: ["-v"] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProgramFailed);
    expect((err as ProgramFailed).said).toMatch(/Couldn't open file '-v'/);
  });

  it("stops a program at its wall-clock limit with everything it started", async () => {
    await inTempDir("door-time-", async (dir) => {
      const pidFile = join(dir, "grandchild");
      const program = `
        const { spawn } = require("node:child_process");
        const c = spawn("sleep", ["30"], { stdio: "ignore" });
        require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));
        setTimeout(() => {}, 30000);`;
      const started = Date.now();
      await expect(
        runProgram("node", { options: ["-e", program], limits: { timeoutMs: 1500 } }),
      ).rejects.toMatchObject({ reason: "time limit" });
      expect(Date.now() - started).toBeLessThan(5000);
      const grandchild = Number(readFileSync(pidFile, "utf8"));
      await new Promise((r) => setTimeout(r, 200));
      expect(alive(grandchild)).toBe(false);
      expect(refusals()).toHaveLength(1);
      expect(JSON.parse(refusals()[0])).toMatchObject({ program: "node", reason: "time limit" });
    });
  }, 20_000);

  it("bounds a Node child's memory, not only its heap", async () => {
    // Typed arrays live outside V8's heap limit: 2 GB of them is stopped by the data-segment limit.
    const program = `const a = []; for (let i = 0; i < 32; i++) a.push(new Uint8Array(64 * 1024 * 1024).fill(1));`;
    const err = await runProgram("node", { options: ["-e", program], limits: { timeoutMs: 20_000 } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toMatch(/memory limit|exited with/);
  }, 30_000);

  it("stops a program that fills its scratch folder, and removes the folder", async () => {
    let seen = "";
    const err = await withScratch("doortest", 8 * 1024 * 1024, async (scratch) => {
      seen = scratch.dir;
      const program = `
        const fs = require("node:fs");
        const chunk = Buffer.alloc(1024 * 1024, 1);
        for (let i = 0; i < 6; i++) fs.appendFileSync(${JSON.stringify(join(scratch.dir, "a"))}, chunk);
        for (let i = 0; i < 6; i++) fs.appendFileSync(${JSON.stringify(join(scratch.dir, "b"))}, chunk);
        setTimeout(() => {}, 10000);`;
      return runProgram("node", { options: ["-e", program], scratch, limits: { timeoutMs: 8000 } }).catch(
        (e: unknown) => e,
      );
    });
    expect(err).toMatchObject({ reason: "scratch limit" });
    expect(existsSync(seen)).toBe(false);
  }, 20_000);

  it("caps the size of any one file a program writes", async () => {
    await inTempDir("door-fsize-", async (dir) => {
      const program = `require("node:fs").writeFileSync(${JSON.stringify(join(dir, "big"))}, Buffer.alloc(4 * 1024 * 1024));`;
      const err = await runProgram("node", {
        options: ["-e", program],
        limits: { fileBytes: 1024 * 1024 },
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error).message)).toMatch(/file size limit|exited with/);
    });
  }, 20_000);

  it("leaves no scratch folder behind after a job that threw", async () => {
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith("cb-leftover-")).length;
    await expect(
      withScratch("leftover", 1024, async () => {
        throw new Error("the job failed");
      }),
    ).rejects.toThrow("the job failed");
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith("cb-leftover-")).length).toBe(before);
  });
});
