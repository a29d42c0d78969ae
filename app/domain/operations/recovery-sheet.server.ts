import { and, desc, eq } from "drizzle-orm";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { recoverySheets, users } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import { hasTwoFactor, reauthenticate } from "../accounts/index.server";
import { audit, DomainError, type Actor, type Client } from "../platform/index.server";
import { restoreSteps, type RestoreStep } from "./restore-steps";

/**
 * The recovery sheet (decision 0068): without the repository's password a backup is worthless
 * once the machine is gone, so an admin prints it on one page — the clinic and server it is for,
 * where the copy is, the password and the steps of a restore (decision 0091). Only after the password and the second factor again (a session
 * alone never shows it); each printing is recorded and audited. Until someone has printed the
 * sheet for the repository and password in effect, the admins' home asks for it.
 */

export type RecoverySheet = {
  /** Whose data it brings back: the clinic (CLINIC_NAME or the address's host), its address, the server. */
  clinic: { name: string; url: string; server: string };
  /** Where the copy elsewhere is; null when the backups stay on this machine (then it says so, not where). */
  repository: string | null;
  password: string;
  /** What to do on a new machine, with the commands to type (restore-steps.ts). */
  steps: RestoreStep[];
  offMachine: boolean;
  printedAt: Date;
  printedBy: string;
};

function readPassword(): string {
  return readFileSync(config().backup.passwordFile, "utf8").trim();
}

/** A keyed hash of the password in effect: a sheet with another password is not this one. */
function passwordTag(password: string): string {
  return createHmac("sha256", config().sessionSecret)
    .update(`backup-password:${password}`)
    .digest("hex")
    .slice(0, 32);
}

/** The sheet, after the admin's password and second factor; records and audits the printing. */
export async function printRecoverySheet(
  actor: Actor,
  input: { password: string; code?: string | null; recoveryCode?: string | null },
  client: Client,
): Promise<RecoverySheet> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  // The second factor is required here even where admins may sign in without one.
  if (!(await hasTwoFactor(actor.id))) throw new DomainError("conflict", "backups.sheetNeedsTwoStep");
  await reauthenticate(actor, input, client);
  const b = config().backup;
  const password = readPassword();
  const printedAt = new Date();
  await db()
    .insert(recoverySheets)
    .values({
      id: newId(),
      printedBy: actor.id,
      repository: b.repository,
      passwordTag: passwordTag(password),
      createdAt: printedAt,
    });
  await audit(
    actor,
    "backup.recovery_sheet_printed",
    "backup",
    null,
    { repository: b.repository },
    client.ip,
  );
  const c = config();
  return {
    clinic: { name: c.clinic.name, url: c.appUrl, server: hostname() },
    // A path on the very machine the sheet is for would bring nothing back once it is lost.
    repository: b.configured ? b.repository : null,
    password,
    steps: b.configured ? restoreSteps({ command: c.operatorCommand, repository: b.repository }) : [],
    offMachine: b.configured,
    printedAt,
    printedBy: [actor.firstName, actor.lastName].filter(Boolean).join(" ") || actor.email,
  };
}

export type BackupNotice = {
  repository: string;
  /** No BACKUP_REPOSITORY: backups stay on this machine. */
  localOnly: boolean;
  /** The repository and password in effect have no printed sheet yet. */
  sheetNeeded: boolean;
  lastSheet: { at: Date; by: string } | null;
};

/** What the admins' home and the Service screen say about backups; null for anyone else. */
export async function backupNotice(actor: Actor): Promise<BackupNotice | null> {
  if (actor.accountType !== "Admin") return null;
  const b = config().backup;
  let tag: string | null = null;
  try {
    tag = passwordTag(readPassword());
  } catch {
    /* no password file: there is nothing to print yet */
  }
  const last = tag
    ? await first(
        db()
          .select({
            at: recoverySheets.createdAt,
            first: users.firstName,
            last: users.lastName,
            email: users.email,
          })
          .from(recoverySheets)
          .leftJoin(users, eq(users.id, recoverySheets.printedBy))
          .where(and(eq(recoverySheets.repository, b.repository), eq(recoverySheets.passwordTag, tag)))
          .orderBy(desc(recoverySheets.createdAt)),
      )
    : undefined;
  return {
    repository: b.repository,
    localOnly: !b.configured,
    sheetNeeded: b.configured && !!tag && !last,
    lastSheet: last
      ? { at: last.at, by: [last.first, last.last].filter(Boolean).join(" ") || (last.email ?? "") }
      : null,
  };
}
