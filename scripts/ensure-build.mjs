// `npm start` on a fresh clone: build once if there is no build yet.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("build/server/index.js") || !existsSync("build/main.js") || process.env.FORCE_BUILD === "1") {
  console.log("No build found: running `npm run build` first...");
  execSync("npm run build", { stdio: "inherit" });
}
