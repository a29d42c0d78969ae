import { describe, expect, it } from "vitest";
import { writesIn } from "../../scripts/table-owners.mjs";

/*
 * The table-owner check (decision 0096) reads writes from the syntax tree: a call over several
 * lines, a table reached through the schema's namespace and raw SQL are all writes; a read, a
 * comment and an unknown name are not.
 */
const sample = `
import * as schema from "~/db/schema";
await db()
  .insert(
    labValues,
  )
  .values(rows);
await tx.update(schema.reports).set({ status: "x" });
await client.query("DELETE FROM sessions WHERE id = $1", [id]);
await exec(sql\`UPDATE "share_links" SET revoked_at = \${now} WHERE id = \${id}\`);
// .delete(users) in a comment is no write
await db().select().from(users);
await db().delete(notATable);
`;

describe("the table-owner check", () => {
  it("finds multi-line, namespaced and raw SQL writes, and nothing else", () => {
    const found = (writesIn("sample.ts", sample) as { verb: string; table: string; line: number }[]).map(
      (w) => `${w.line} ${w.verb} ${w.table}`,
    );
    expect(found).toEqual([
      "3 insert lab_values",
      "8 update reports",
      "9 delete sessions",
      "10 update share_links",
    ]);
  });
});
