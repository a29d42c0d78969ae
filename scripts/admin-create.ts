/**
 * npm run admin:create -- --email E --password P [--first-name F --last-name L]
 * Creates an Admin account in the configured database (DATA_DIR / DATABASE_URL).
 */
import { parseArgs } from "node:util";
import { z } from "zod";

const { values } = parseArgs({
  options: {
    email: { type: "string" },
    password: { type: "string" },
    "first-name": { type: "string" },
    "last-name": { type: "string" },
  },
});

const parsed = z
  .object({
    email: z
      .string({ required_error: "--email is required" })
      .email("--email must be a valid e-mail address"),
    password: z
      .string({ required_error: "--password is required" })
      .min(8, "--password must be at least 8 characters")
      .max(128),
    firstName: z.string().min(1).max(50).default("Admin"),
    lastName: z.string().max(50).default(""),
  })
  .safeParse({
    email: values.email,
    password: values.password,
    firstName: values["first-name"],
    lastName: values["last-name"],
  });

if (!parsed.success) {
  console.error(parsed.error.issues.map((i) => i.message).join("\n"));
  console.error("Usage: npm run admin:create -- --email E --password P [--first-name F --last-name L]");
  process.exit(2);
}

const { ensureAdmin } = await import("../app/domain/accounts/users.server");
const { closeDatabase, migrateDatabase } = await import("../app/db/client.server");
await migrateDatabase();
const created = await ensureAdmin(parsed.data);
await closeDatabase();
if (created) {
  console.log(`Admin ${parsed.data.email.toLowerCase()} created.`);
} else {
  console.error(`A user with the e-mail ${parsed.data.email.toLowerCase()} already exists; nothing changed.`);
  process.exit(1);
}
