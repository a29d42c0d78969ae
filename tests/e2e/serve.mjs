// Starts the built app for the Playwright run on 127.0.0.1 with a fresh temporary data folder.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = mkdtempSync(path.join(os.tmpdir(), "carebridge-e2e-"));
const port = process.env.E2E_PORT ?? "4310";
const child = spawn(
  process.execPath,
  // Our production server with two workers, as `npm start` runs it on a 2-core machine.
  [path.join(process.env.BUILD_DIR || "build", "main.js")],
  {
    stdio: "inherit",
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: port,
      DATA_DIR: path.join(root, "data"),
      UPLOADS_DIR: path.join(root, "uploads"),
      APP_URL: `http://127.0.0.1:${port}`,
      ADMIN_EMAIL: "admin@carebridge.test",
      ADMIN_PASSWORD: "Admin-pass-123",
      BCRYPT_COST: "4",
      ARGON2_MEMORY_KIB: "1024",
      ARGON2_TIME_COST: "1",
      WEB_CONCURRENCY: "2",
      RATE_LIMIT_DISABLED: "1",
      // Two-step login for admins is off for the e2e server unless the run turns it on.
      MFA_REQUIRED_FOR_ADMINS: process.env.MFA_REQUIRED_FOR_ADMINS || "false",
      BACKUP_AT: process.env.BACKUP_AT || "off",
      // The lab reader reads text-layer PDFs (the lab-values flow); pictures are not OCR'd here:
      // the reader's OCR is tested over HTTP (lab-upload-read) and on its corpus.
      LAB_OCR: process.env.LAB_OCR || "0",
      E2E_ROOT: root,
    },
  },
);
const stop = (sig) => {
  child.kill(sig);
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
child.on("exit", (code) => {
  rmSync(root, { recursive: true, force: true });
  process.exit(code ?? 0);
});
