import { readdirSync, readFileSync } from "node:fs";

/**
 * What /proc says of the machine's processes, for tests that check what a server left running
 * (decision 0103). A zombie (ended, waiting for its reaper) counts as gone: it runs nothing and
 * holds no port.
 */
export type Proc = { pid: number; comm: string; state: string; ppid: number; pgid: number };

function read(pid: number): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const [state, ppid, pgid] = stat.slice(close + 2).split(" ");
    return { pid, comm, state, ppid: Number(ppid), pgid: Number(pgid) };
  } catch {
    return null;
  }
}

/** Every process running now (zombies left out). */
export function processes(): Proc[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map((n) => read(Number(n)))
    .filter((p): p is Proc => p !== null && p.state !== "Z");
}

/** The process and its descendants (a server's cluster workers, the programs they run), from /proc. */
export function processTree(pid: number): number[] {
  const out = [pid];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const kids = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (kids) for (const k of kids.split(/\s+/)) out.push(...processTree(Number(k)));
    }
  } catch {
    /* gone */
  }
  return out;
}

/** CPU time (ms, user + system) a process and its descendants have used so far. */
export function treeCpuMs(pid: number): number {
  let ms = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ms += ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
    } catch {
      /* gone */
    }
  }
  return ms;
}

/** The processes whose environment holds `name=value` (a server and its workers share their DATA_DIR). */
export const withEnvironment = (name: string, value: string) =>
  processes().filter((p) => {
    try {
      return readFileSync(`/proc/${p.pid}/environ`, "utf8").split("\0").includes(`${name}=${value}`);
    } catch {
      return false; // ended meanwhile
    }
  });

/** Whether the process runs (not gone, not a zombie). */
export const running = (pid: number) => {
  const p = read(pid);
  return p !== null && p.state !== "Z";
};

/** The processes `pid` started that still run. */
export const childrenOf = (pid: number) => processes().filter((p) => p.ppid === pid);

/** The processes of a process group that still run. */
export const groupMembers = (pgid: number) => processes().filter((p) => p.pgid === pgid);

/** Waits for `check` to be true (every `everyMs`), at most `ms`; returns whether it became true. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms: number,
  everyMs = 50,
): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
