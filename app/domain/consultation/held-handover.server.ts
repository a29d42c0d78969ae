import { and, eq } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { heldItems, type HeldItemRow } from "~/db/schema";
import { HELD_KIND_KEYS } from "~/schemas/centres";
import { log } from "~/lib/log.server";
import { audit, type Actor } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { notify } from "../messaging/index.server";
import { findUserById } from "../accounts/index.server";
import { findHealthWorker, registerPatient, requireCentre, requireCentreAdmin } from "../care/index.server";
import {
  deleteStored,
  openDecrypted,
  storeUpload,
  type StoredFile,
  type UploadKind,
} from "../records/index.server";
import { createReport } from "./report-upload.server";
import { addVoiceNote } from "./voice-notes.server";
import { askFollowUp } from "./followups.server";
import { toApiHeldItem, type ApiHeldItem, type HeldKind } from "./held-items.server";

/**
 * Handing a held item over (decision 0065): an admin gives what a suspended or moved worker
 * recorded offline to another approved, unsuspended worker of the same centre, and the original
 * action runs as that worker — once. The item is claimed with one conditional update (held →
 * handing), so of two admins at once one hands it and the other is told it is gone (409); a
 * refused action puts it back to held, a done one marks it handed with the record it made.
 */

const FILE_KIND: Record<HeldKind, UploadKind | null> = {
  register: "image",
  upload: "report",
  voice: "audio",
  "follow-up": null,
};

function refuseWorker(key: string): never {
  throw new DomainError("invalid", key, { fieldErrors: { workerId: [key] } });
}

/** A copy of the held file for the action (which owns and may delete it); the held one stays until done. */
async function copyOf(row: HeldItemRow): Promise<StoredFile | null> {
  if (!row.fileKey) return null;
  const kind = FILE_KIND[row.kind as HeldKind];
  if (!kind) return null;
  return storeUpload(await openDecrypted(row.fileKey), {
    maxBytes: Math.max(row.fileSize ?? 0, 1),
    allowed: kind,
    fileName: row.fileName,
  });
}

async function perform(row: HeldItemRow, receiver: Actor, file: StoredFile | null, ip: string | null) {
  const fields = JSON.parse(row.fields) as Record<string, string>;
  switch (row.kind as HeldKind) {
    case "register":
      return (
        await registerPatient(receiver, fields, file, {
          ip,
          recordedOffline: { workerId: row.workerId, workerName: row.workerName, heldItemId: row.id },
        })
      )._id;
    case "upload":
      return (await createReport(receiver, fields, file, { ip }))._id;
    case "voice":
      return (await addVoiceNote(receiver, fields.reportId ?? "", fields, file, { ip }))._id;
    case "follow-up": {
      const { reportId, ...question } = fields;
      return (await askFollowUp(receiver, reportId ?? "", question, { ip }))._id;
    }
  }
  throw new DomainError("invalid", "held.notFound");
}

export async function handOverHeldItem(
  actor: Actor,
  centreId: string,
  heldId: string,
  input: unknown,
  opts: { ip?: string | null } = {},
): Promise<ApiHeldItem> {
  requireCentreAdmin(actor);
  const centre = await requireCentre(centreId);
  const workerId = (input as { workerId?: unknown } | null)?.workerId;
  if (typeof workerId !== "string" || !workerId || workerId.length > 64) refuseWorker("held.chooseWorker");
  const row =
    typeof heldId === "string" && heldId.length <= 64
      ? await first(
          db()
            .select()
            .from(heldItems)
            .where(and(eq(heldItems.id, heldId), eq(heldItems.centreId, centre.id))),
        )
      : undefined;
  if (!row) throw new DomainError("not_found", "held.notFound");
  if (row.status !== "held") throw new DomainError("conflict", "held.alreadyHanded");
  const worker = await findHealthWorker(workerId);
  if (!worker || worker.centre._id !== centre.id) refuseWorker("held.workerNotHere");
  if (worker.status === "suspended") refuseWorker("held.workerSuspended");
  if (worker.status !== "approved") refuseWorker("held.workerNotApproved");
  const user = await findUserById(worker._id);
  if (!user || user.suspendedAt) refuseWorker("held.workerSuspended");
  const receiver: Actor = {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    accountType: user.accountType,
    approved: user.approved,
    image: user.image,
    locale: user.locale,
    sessionId: "",
  };

  const handedAt = new Date();
  const claimed = await db()
    .update(heldItems)
    .set({ status: "handing", handedTo: user.id, handedBy: actor.id, handedAt })
    .where(and(eq(heldItems.id, row.id), eq(heldItems.status, "held")))
    .returning({ id: heldItems.id });
  if (claimed.length !== 1) throw new DomainError("conflict", "held.alreadyHanded");

  let copy: StoredFile | null = null;
  let resultId: string;
  try {
    copy = await copyOf(row);
    resultId = await perform(row, receiver, copy, opts.ip ?? null);
  } catch (err) {
    if (copy) await deleteStored(copy.key).catch(() => {});
    await db()
      .update(heldItems)
      .set({ status: "held", handedTo: null, handedBy: null, handedAt: null })
      .where(eq(heldItems.id, row.id));
    throw err;
  }
  // The record owns its copy; the held file goes (a failed delete is left to the leftover sweep).
  const done = { status: "handed", resultId, fileKey: null } as const;
  await db().update(heldItems).set(done).where(eq(heldItems.id, row.id));
  // Done: nothing below may turn it into a refusal (the record exists).
  const receiverName = `${user.firstName} ${user.lastName}`.trim();
  await audit(
    actor,
    "centre.held_handed",
    "centre",
    centre.id,
    { heldItemId: row.id, kind: row.kind, recordedBy: row.workerName, handedTo: receiverName, resultId },
    opts.ip,
  ).catch((e) => log("error", "could not audit a hand-over", { error: String(e) }));
  if (row.fileKey) await deleteStored(row.fileKey).catch(() => {});
  notify(user, {
    subject: "held.mailSubject",
    body: "held.mailBody",
    action: "held.mailAction",
    path: row.kind === "register" ? `/dashboard/centre/patients/${resultId}` : "/dashboard/centre",
    vars: { centre: centre.name, worker: row.workerName },
    lines: (t) => [t(HELD_KIND_KEYS[row.kind] ?? "held.listed")],
  });
  return toApiHeldItem({ ...row, ...done, handedTo: user.id, handedBy: actor.id, handedAt }, centre.name);
}
