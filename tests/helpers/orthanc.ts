import { spawn, type ChildProcess } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./server";

/*
 * A real PACS for tests (../shared/notes/orthanc-dicom.md): Debian's Orthanc with its DICOMweb
 * plugin, from a generated configuration in a temporary folder, on 127.0.0.1 and free ports,
 * stopped by its PID. Needs `apt-get install -y orthanc orthanc-dicomweb`.
 */
export const ORTHANC = "/usr/sbin/Orthanc";
export const DICOMWEB_PLUGIN = "/usr/share/orthanc/plugins/libOrthancDicomWeb.so";

export type Orthanc = {
  /** The HTTP root (REST API). */
  url: string;
  /** The DICOMweb root: what PACS_URL names. */
  dicomWeb: string;
  logs(): string;
  stop(): Promise<void>;
};

export async function startOrthanc(): Promise<Orthanc> {
  for (const f of [ORTHANC, DICOMWEB_PLUGIN])
    if (!existsSync(f)) throw new Error(`${f} not found: apt-get install -y orthanc orthanc-dicomweb`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "carebridge-orthanc-"));
  mkdirSync(path.join(dir, "db"));
  const httpPort = await freePort();
  const dicomPort = await freePort();
  const configFile = path.join(dir, "orthanc.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      Name: "CareBridgeTest",
      StorageDirectory: path.join(dir, "db"),
      IndexDirectory: path.join(dir, "db"),
      HttpPort: httpPort,
      DicomPort: dicomPort,
      RemoteAccessAllowed: false,
      AuthenticationEnabled: false,
      Plugins: [DICOMWEB_PLUGIN],
      DicomWeb: { Enable: true, Root: "/dicom-web/" },
    }),
  );
  const logFile = path.join(dir, "orthanc.log");
  const fd = openSync(logFile, "a");
  const child: ChildProcess = spawn(ORTHANC, [configFile], { stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const url = `http://127.0.0.1:${httpPort}`;
  const logs = () => {
    try {
      return readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n");
    } catch {
      return "";
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      child.kill("SIGTERM");
      await Promise.race([
        new Promise((r) => child.once("exit", r)),
        new Promise((r) => setTimeout(r, 5000)),
      ]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      const out = logs();
      await stop();
      throw new Error(`Orthanc exited:\n${out}`);
    }
    try {
      const r = await fetch(`${url}/system`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      const out = logs();
      await stop();
      throw new Error(`Orthanc did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, dicomWeb: `${url}/dicom-web`, logs, stop };
}
