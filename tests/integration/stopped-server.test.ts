import { createSocket } from "node:dgram";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withScratch } from "~/lib/programs.server";
import { apiClient, signupViaApi } from "../helpers/api";
import { slowPdf, uploadForm } from "../helpers/files";
import { childrenOf, eventually, groupMembers, running, type Proc } from "../helpers/processes";
import { requireTool } from "../helpers/requires";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * A stopped server leaves nothing running (decision 0103), on the built server: a report whose
 * reading keeps pdftotext busy for minutes (tests/helpers/files.ts `slowPdf`) is uploaded, and the
 * server is stopped while the program runs and the decrypted copy lies in its scratch folder.
 * SIGTERM: the program's process group ends and the folder is removed before the server exits.
 * SIGKILL: nothing of the server can clean, yet the program and both baresip processes of its SIP
 * line die with it (the parent-death signal), the SIP ports are free, and the next start removes the
 * folder — and not the scratch of a live process (this test's own) in the same folder.
 */
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let root: string;
const servers: TestServer[] = [];
/** Process groups the servers started: killed by their number at the end, should any be left. */
const groups = new Set<number>();

/** The two servers stopped below, started side by side (most of this file's time is their start). */
let term: Awaited<ReturnType<typeof serverWith>>;
let kill: Awaited<ReturnType<typeof serverWith>>;
/** The SIP line's first port (the "in" line; "out" is + 2, each also takes its + 1), or 0 without baresip. */
let sipPort = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  root = mkdtempSync(path.join(os.tmpdir(), "cb-stopped-"));
  if (requireTool("baresip", "baresip-core")) sipPort = await sipPorts();
  [term, kill] = await Promise.all([
    serverWith(path.join(root, "term")),
    serverWith(
      path.join(root, "kill"),
      sipPort
        ? {
            VOICE_URL: `sip://clinic@127.0.0.1:${sipPort + 50}?register=no`,
            VOICE_SIP_LISTEN: `127.0.0.1:${sipPort}`,
            VOICE_RTP_PORTS: `${sipPort + 100}-${sipPort + 139}`,
          }
        : {},
    ),
  ]);
}, 90_000);

afterAll(async () => {
  for (const g of groups)
    try {
      process.kill(-g, "SIGKILL");
    } catch {
      /* gone, as it should be */
    }
  await Promise.all(servers.map((s) => s.stop()));
  await smtp?.close();
  rmSync(root, { recursive: true, force: true });
});

/** The programs a server started (each leads its own process group), still running. */
const programsOf = (pid: number) => childrenOf(pid).filter((p) => p.pgid === p.pid);

/** A server (SCRATCH_DIR `scratch`) with a patient signed in. */
async function serverWith(scratch: string, env: Record<string, string> = {}) {
  const server = await startServer({
    SCRATCH_DIR: scratch,
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ...env,
  });
  servers.push(server);
  const api = apiClient(server.url);
  const { token } = await signupViaApi(api, smtp, codeFrom, { email: `p${servers.length}@stopped.test` });
  return { server, api, token, scratch };
}

/**
 * The server reads a report that keeps pdftotext busy: resolves once pdftotext runs and the
 * scratch folder holds the decrypted copy.
 */
async function readSlowReport({ server, api, token, scratch }: Awaited<ReturnType<typeof serverWith>>) {
  const form = uploadForm(
    { reportType: "Blood Test", phoneNumber: "9876543210", consent: "true" },
    { name: "scan.pdf", data: slowPdf(), type: "application/pdf" },
  );
  const res = await api.call("POST", "/report/upload-report", form, token);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  let reader: Proc | undefined;
  const reading = await eventually(() => {
    reader = programsOf(server.pid).find((p) => p.comm === "pdftotext");
    return !!reader && readdirSync(scratch).some((f) => existsSync(path.join(scratch, f, "r.pdf")));
  }, 20_000);
  expect(reading, `pdftotext reading, its decrypted copy in ${scratch}:\n${server.output()}`).toBe(true);
  for (const p of programsOf(server.pid)) groups.add(p.pgid);
  const [folder] = readdirSync(scratch);
  return { reader: reader!, folder: path.join(scratch, folder) };
}

/** Whether `port` is free on 127.0.0.1 for TCP and UDP. */
async function free(port: number): Promise<boolean> {
  const tcp = await new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
  if (!tcp) return false;
  return new Promise<boolean>((resolve) => {
    const u = createSocket("udp4");
    u.once("error", () => resolve(false));
    u.bind(port, "127.0.0.1", () => u.close(() => resolve(true)));
  });
}

/** Four free ports in a row below the kernel's ephemeral range (as calls-sip.test.ts draws them). */
async function sipPorts(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if ((await Promise.all([0, 1, 2, 3].map((i) => free(port + i)))).every(Boolean)) return port;
  }
}

describe("a stopped server leaves nothing running", () => {
  it("SIGTERM mid-read: the reading program's process group ends and no scratch folder remains", async () => {
    const { server, scratch } = term;
    const { reader, folder } = await readSlowReport(term);
    expect(existsSync(path.join(folder, "r.pdf"))).toBe(true);
    process.kill(server.pid, "SIGTERM");
    expect(await eventually(() => !running(server.pid), 25_000), "the server exits").toBe(true);
    expect.soft(groupMembers(reader.pgid), "processes of the reading program's group").toEqual([]);
    expect.soft(readdirSync(scratch), "scratch folders left").toEqual([]);
  }, 60_000);

  let killed: { folder: string; scratch: string } | undefined;

  it("SIGKILL: the reading program and both baresip processes die with the server, and the SIP ports are free", async () => {
    const { server, scratch } = kill;
    const { reader, folder } = await readSlowReport(kill);
    const baresip = programsOf(server.pid).filter((p) => p.comm === "baresip");
    if (sipPort) expect(baresip, server.output()).toHaveLength(2);
    const started = [reader, ...baresip];
    process.kill(server.pid, "SIGKILL");
    const gone = await eventually(() => started.every((p) => !running(p.pid)), 2_000);
    expect
      .soft(gone, `still running 2 s after: ${started.filter((p) => running(p.pid)).map((p) => p.comm)}`)
      .toBe(true);
    if (sipPort) {
      const ports = await Promise.all([0, 1, 2, 3].map((i) => free(sipPort + i)));
      expect.soft(ports, `SIP ports ${sipPort}–${sipPort + 3} free`).toEqual([true, true, true, true]);
    }
    // Nobody could remove the decrypted copy: that is the next start's to do.
    expect(existsSync(path.join(folder, "r.pdf"))).toBe(true);
    killed = { folder, scratch };
  }, 60_000);

  it("the next start removes the killed server's scratch folder, not a live process's", async () => {
    expect(killed, "the killed server's folder (the test before)").toBeDefined();
    const { folder, scratch } = killed!;
    const before = process.env.SCRATCH_DIR;
    process.env.SCRATCH_DIR = scratch;
    try {
      // This test's process is a live user of the same folder, in the middle of a job.
      await withScratch("labread", 1 << 20, async (live) => {
        const next = await startServer({ SCRATCH_DIR: scratch });
        servers.push(next);
        expect(await eventually(() => !existsSync(folder), 10_000), `${folder} removed`).toBe(true);
        expect(existsSync(live.dir), "a live process's scratch is kept").toBe(true);
      });
    } finally {
      if (before === undefined) delete process.env.SCRATCH_DIR;
      else process.env.SCRATCH_DIR = before;
    }
  }, 60_000);
});
