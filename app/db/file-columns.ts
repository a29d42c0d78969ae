import { getTableName, type AnyColumn, type Table } from "drizzle-orm";
import {
  heldItems,
  imagingInstances,
  imagingPreviews,
  patientConsents,
  reports,
  users,
  voiceNotes,
} from "./schema";

/**
 * Every column that names a stored object (an encrypted file in the store), once: the file sweep
 * keeps what they name (records/files.server.ts), a backup copies it and its verification reads it
 * back (backup-copy.server.ts, decision 0067), a restore and the restore test check that each is
 * in the backup (decision 0091). A new file-bearing column is added here and nowhere else.
 */
export const FILE_COLUMNS: readonly {
  table: Table;
  column: AnyColumn;
  /** A table whose presence says a database has this column (it came with that table's migration). */
  since?: string;
}[] = [
  { table: reports, column: reports.fileKey },
  { table: users, column: users.image },
  // Photos of a signature or thumbprint given as consent at a centre.
  { table: patientConsents, column: patientConsents.evidenceKey },
  // Medical images: each instance of a ZIP and each cached preview is an object of its own.
  { table: imagingInstances, column: imagingInstances.fileKey },
  { table: imagingPreviews, column: imagingPreviews.key },
  { table: voiceNotes, column: voiceNotes.fileKey },
  // A voice note's telephone copy (decision 0080): the column came with the phone_calls table.
  { table: voiceNotes, column: voiceNotes.phoneFileKey, since: "phone_calls" },
  // What a suspended or moved worker recorded offline, kept for the centre (decision 0065).
  { table: heldItems, column: heldItems.fileKey },
];

/** The columns by their SQL names, for statements on a copy of any version's database. */
export const FILE_COLUMN_NAMES = FILE_COLUMNS.map((c) => ({
  table: getTableName(c.table),
  column: c.column.name,
  since: c.since,
}));
