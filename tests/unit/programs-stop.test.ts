import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  endOutsidePrograms,
  ProgramStopped,
  removeDeadScratch,
  runProgram,
  withScratch,
} from "~/lib/programs.server";
import { childrenOf, eventually, running } from "../helpers/processes";
import { spawnScript } from "../helpers/scripts";

/**
 * A stopped server leaves nothing running (decision 0103): the door ends every program it started
 * and removes every scratch folder at shutdown; a child dies with the process that started it even
 * when that process is killed with SIGKILL; the next start removes the scratch of a process that
 * is gone, never a live one's.
 */
let root: string;
const before = process.env.SCRATCH_DIR;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "door-stop-"));
  process.env.SCRATCH_DIR = root;
});
afterAll(() => {
  process.env.SCRATCH_DIR = before;
  if (before === undefined) delete process.env.SCRATCH_DIR;
  rmSync(root, { recursive: true, force: true });
});

/** The PID of a process that has ended (and was reaped). */
async function deadPid(): Promise<number> {
  const child = spawn("true", { stdio: "ignore" });
  await new Promise((r) => child.once("exit", r));
  return child.pid!;
}

describe("a stopped server leaves nothing running", () => {
  it("the start removes the scratch of a process that is gone, never a live one's", async () => {
    const live = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const folder = (name: string, ageMs = 0) => {
        const dir = join(root, name);
        mkdirSync(dir);
        writeFileSync(join(dir, "r.pdf"), "a decrypted report");
        if (ageMs) utimesSync(dir, new Date(Date.now() - ageMs), new Date(Date.now() - ageMs));
        return dir;
      };
      const crashed = folder(`cb-${await deadPid()}-labread-AbC123`);
      const otherServer = folder(`cb-${live.pid}-labread-XyZ789`);
      // This very process's name, made before it started: a container's server is often PID 1 again
      // after a restart. One made since is a job's (in use, or not yet known to the door): kept.
      const ownLeftover = folder(`cb-${process.pid}-pdfpage-Qw3rty`, 3600_000);
      const ownJustMade = folder(`cb-${process.pid}-pdfpage-N0wN0w`);
      const oldRelease = folder("cb-labread-0ldOne", 2 * 24 * 3600_000);
      const oldReleaseToday = folder("cb-labread-n3wOne");
      const notOurs = folder("cb-sip-Ab12Cd", 2 * 24 * 3600_000);
      await withScratch("labread", 1 << 20, async (inUse) => {
        writeFileSync(join(inUse.dir, "r.pdf"), "being read");
        const removed = await removeDeadScratch();
        expect(removed.sort()).toEqual([crashed, ownLeftover, oldRelease].sort());
        for (const kept of [otherServer, ownJustMade, oldReleaseToday, notOurs, inUse.dir])
          expect(existsSync(kept)).toBe(true);
      });
    } finally {
      live.kill("SIGKILL");
    }
  });

  it("a program dies with the process that started it, even one killed with SIGKILL", async () => {
    // A Node process with the door loaded, killed by its PID.
    const parent = await spawnScript("tests/fixtures/door-parent.ts", [], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      await new Promise<void>((ok, fail) => {
        parent.stdout!.on("data", (d: Buffer) => d.toString().includes("started") && ok());
        parent.once("exit", () => fail(new Error("the parent ended early")));
      });
      // prlimit and setpriv exec the program: the parent's children that lead their own process
      // group are the programs themselves — once they no longer run as prlimit or setpriv, so that
      // the parent-death signal is set (killed before, a loaded machine's program would outlive it).
      const programs = () =>
        childrenOf(parent.pid!).filter(
          (p) => p.pgid === p.pid && p.comm !== "prlimit" && p.comm !== "setpriv",
        );
      expect(await eventually(() => programs().length === 2, 5000)).toBe(true);
      const pids = programs().map((p) => p.pid);
      parent.kill("SIGKILL");
      const gone = await eventually(() => pids.every((pid) => !running(pid)), 2000);
      expect(gone, "both programs ended within 2 s of their parent's SIGKILL").toBe(true);
    } finally {
      parent.kill("SIGKILL");
    }
  }, 30_000);

  // Last: after it the door of this test file's process is closed, as a stopped server's is.
  it("at shutdown every program's process group is ended and every scratch folder removed", async () => {
    const pids = join(root, "pids");
    mkdirSync(pids);
    // A program that started a child of its own (same process group), and one that ignores SIGTERM.
    const withChild = `
      const c = require("node:child_process").spawn("sleep", ["60"], { stdio: "ignore" });
      require("node:fs").writeFileSync(${JSON.stringify(join(pids, "a"))}, process.pid + " " + c.pid);
      setTimeout(() => {}, 60000);`;
    const stubborn = `
      process.on("SIGTERM", () => {});
      require("node:fs").writeFileSync(${JSON.stringify(join(pids, "b"))}, String(process.pid));
      setTimeout(() => {}, 60000);`;
    let reading = "";
    let waiting = "";
    const read = withScratch("labread", 1 << 20, async (s) => {
      reading = s.dir;
      writeFileSync(join(s.dir, "r.pdf"), "a decrypted report");
      return runProgram("node", { options: ["-e", withChild], scratch: s });
    }).catch((e: unknown) => e);
    const stubbornRun = runProgram("node", { options: ["-e", stubborn] }).catch((e: unknown) => e);
    // A job between two programs (its decrypted copy written, nothing running yet) that never ends.
    void withScratch("labocr", 1 << 20, async (s) => {
      waiting = s.dir;
      writeFileSync(join(s.dir, "r.img"), "a decrypted picture");
      await new Promise(() => {});
    });
    // A pid file is whole once it holds its numbers: writeFileSync creates it empty first.
    const written = (name: string, form: RegExp) =>
      existsSync(join(pids, name)) && form.test(readFileSync(join(pids, name), "utf8"));
    expect(
      await eventually(() => written("a", /^\d+ \d+$/) && written("b", /^\d+$/) && waiting !== "", 10_000),
    ).toBe(true);
    const started = readFileSync(join(pids, "a"), "utf8").split(" ").map(Number);
    started.push(Number(readFileSync(join(pids, "b"), "utf8")));
    expect(started.every(running)).toBe(true);

    const t0 = Date.now();
    await endOutsidePrograms(500);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(started.filter(running), "no program, nor a child of one, still runs").toEqual([]);
    expect(await read).toMatchObject({ reason: "interrupted" }); // read again later, not failed
    expect(await stubbornRun).toMatchObject({ reason: "interrupted" });
    expect(existsSync(reading)).toBe(false);
    expect(existsSync(waiting), "the folder of a job still under way is removed too").toBe(false);
    // Nothing starts after it.
    await expect(runProgram("node", { options: ["-e", "1"] })).rejects.toBeInstanceOf(ProgramStopped);
    await expect(withScratch("labread", 1 << 20, async () => 1)).rejects.toMatchObject({
      reason: "interrupted",
    });
  }, 20_000);
});
