import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_DIR, clientFiles } from "../../scripts/client-schema";

describe("the TypeScript API client (clients/typescript)", () => {
  it("has types generated from the current OpenAPI document", async () => {
    const files = await clientFiles();
    expect(Object.keys(files)).toEqual(["src/schema.d.ts"]);
    for (const [file, text] of Object.entries(files)) {
      const committed = readFileSync(path.join(CLIENT_DIR, file), "utf8");
      // Not toEqual on the text: a diff of thousands of lines says less than the fix.
      expect(
        committed === text,
        `clients/typescript/${file} is out of date: run npm run client:generate`,
      ).toBe(true);
    }
  }, 60_000);
});
