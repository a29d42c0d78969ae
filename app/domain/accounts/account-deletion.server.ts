import { and, eq, inArray, isNotNull, isNull, ne, or } from "drizzle-orm";
import { exec, rows, type DB, type TxSteps } from "~/db/client.server";
import {
  imagingInstances,
  imagingPreviews,
  patientConsents,
  patientManagers,
  patients,
  reports,
  uploadSessions,
  users,
  verificationCodes,
  voiceNotes,
  type UserRow,
} from "~/db/schema";
import { forgetPersonCounts } from "../platform/index.server";
import { validE164 } from "~/lib/phone.server";
import { phoneCandidate } from "~/lib/phone-shape";

/** Family members only `managerId` can reach: no own login, no centre with access, no other manager. */
function* orphanedDependants(tx: DB, managerId: string): TxSteps<string[]> {
  const managed = yield* rows(
    tx
      .select({
        id: patients.id,
        accountId: patients.accountId,
        centreId: patients.centreId,
        revoked: patients.centreAccessRevokedAt,
      })
      .from(patientManagers)
      .innerJoin(patients, eq(patients.id, patientManagers.patientId))
      .where(and(eq(patientManagers.managerId, managerId), isNull(patientManagers.revokedAt))),
  );
  const out: string[] = [];
  for (const p of managed) {
    if (p.accountId || (p.centreId && !p.revoked)) continue;
    const others = yield* rows(
      tx
        .select({ id: patientManagers.managerId })
        .from(patientManagers)
        .where(
          and(
            eq(patientManagers.patientId, p.id),
            isNull(patientManagers.revokedAt),
            ne(patientManagers.managerId, managerId),
          ),
        )
        .limit(1),
    );
    if (!others.length) out.push(p.id);
  }
  return out;
}

/**
 * Inside a transaction: deletes the user row (profile, sessions, tokens, reports, consents,
 * nominee, two-step factor and unfinished uploads go with it by foreign key) and the codes sent to
 * the person's e-mail or numbers (a pending code or a sign-up's payload names them), blanks an
 * expert's name and registration on the letters they signed, and gives
 * what the store must remove after the commit: the file keys (reports, display picture) and the
 * ids of unfinished resumable uploads, whose encrypted segments are named by them. Used by the
 * erasure (rights/erasure.server.ts), the one way an account is deleted.
 */
export function* accountDeletionSteps(
  tx: DB,
  userId: string,
): TxSteps<{ fileKeys: string[]; uploadIds: string[] }> {
  // The profiles that go with the account (decision 0030): its own, and the family members it
  // manages who have no login of their own, no centre acting for them and no other manager — no
  // one else could ever reach them again.
  const profileIds = [userId, ...(yield* orphanedDependants(tx, userId))];
  const fileKeys = (yield* rows(
    tx.select({ key: reports.fileKey }).from(reports).where(inArray(reports.patientId, profileIds)),
  )).map((r) => r.key);
  // Voice notes on those reports (their rows go with the reports by cascade).
  for (const v of yield* rows(
    tx
      .select({ key: voiceNotes.fileKey, phone: voiceNotes.phoneFileKey })
      .from(voiceNotes)
      .innerJoin(reports, eq(reports.id, voiceNotes.reportId))
      .where(inArray(reports.patientId, profileIds)),
  )) {
    fileKeys.push(v.key);
    if (v.phone) fileKeys.push(v.phone);
  }
  for (const c of yield* rows(
    tx
      .select({ key: patientConsents.evidenceKey })
      .from(patientConsents)
      .where(and(inArray(patientConsents.patientId, profileIds), isNotNull(patientConsents.evidenceKey))),
  ))
    fileKeys.push(c.key!);
  // Medical images: each instance of a ZIP and each cached preview is an object of its own (a single
  // .dcm's instance is the report's file, named once).
  for (const i of yield* rows(
    tx
      .select({ key: imagingInstances.fileKey })
      .from(imagingInstances)
      .innerJoin(reports, eq(imagingInstances.reportId, reports.id))
      .where(inArray(reports.patientId, profileIds)),
  ))
    if (!fileKeys.includes(i.key)) fileKeys.push(i.key);
  for (const v of yield* rows(
    tx
      .select({ key: imagingPreviews.key })
      .from(imagingPreviews)
      .innerJoin(imagingInstances, eq(imagingPreviews.instanceId, imagingInstances.id))
      .innerJoin(reports, eq(imagingInstances.reportId, reports.id))
      .where(inArray(reports.patientId, profileIds)),
  ))
    fileKeys.push(v.key);
  if (profileIds.length > 1)
    yield* exec(tx.delete(patients).where(inArray(patients.id, profileIds.slice(1))));
  // A health worker's name as copied onto the consents they recorded goes with them.
  yield* exec(
    tx.update(patientConsents).set({ recordedByName: "" }).where(eq(patientConsents.recordedBy, userId)),
  );
  const [user] = yield* rows(
    tx
      .select({
        image: users.image,
        email: users.email,
        phone: users.phone,
        countryCode: users.countryCode,
        contactNumber: users.contactNumber,
      })
      .from(users)
      .where(eq(users.id, userId)),
  );
  if (!user) return { fileKeys: [], uploadIds: [] };
  if (user.image) fileKeys.push(user.image);
  const uploadIds = (yield* rows(
    tx.select({ id: uploadSessions.id }).from(uploadSessions).where(eq(uploadSessions.ownerId, userId)),
  )).map((u) => u.id);
  const numbers = personNumbers(user);
  const codeTargets = [
    ...(user.email ? [eq(verificationCodes.email, user.email)] : []),
    ...(numbers.length ? [inArray(verificationCodes.phone, numbers)] : []),
  ];
  if (codeTargets.length) yield* exec(tx.delete(verificationCodes).where(or(...codeTargets)));
  // An expert's name and registration as copied onto the letters they signed (decision 0023) go with
  // them: the letters stay the patients' records, and /verify then says the signer is no longer
  // registered (as for any deleted expert) — it never names someone whose data was erased.
  yield* exec(
    tx
      .update(reports)
      .set({
        signerFirstName: null,
        signerLastName: null,
        signerRegistrationNumber: null,
        signerRegistrationCouncil: null,
      })
      .where(eq(reports.expertId, userId)),
  );
  yield* exec(tx.delete(users).where(eq(users.id, userId)));
  yield* exec(forgetPersonCounts(tx, userId, profileIds));
  return { fileKeys, uploadIds };
}

/**
 * Every number of a person, for the erasure (decision 0022): the sign-in number and the contact number,
 * each as stored ("+" and the digits, with the account's dial code for the contact number) and as
 * valid E.164 when it is one. Any number, not only those SMS may go to today: a fixed line, a
 * country since removed from SMS_COUNTRIES, or a number the full metadata now calls invalid may
 * still have SMS rows, codes and callbacks naming it.
 */
export function personNumbers(user: Pick<UserRow, "phone" | "countryCode" | "contactNumber">): string[] {
  const contact = phoneCandidate(user.contactNumber ?? "", user.countryCode || "+91");
  const forms = [
    user.phone,
    user.phone ? validE164(user.phone) : null,
    contact,
    contact ? validE164(contact) : null,
  ];
  return [...new Set(forms.filter((n): n is string => !!n))];
}
