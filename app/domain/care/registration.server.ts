import { and, desc, eq } from "drizzle-orm";
import { db, exec, first, isUniqueViolation, transaction } from "~/db/client.server";
import { centres, patientConsents, patients, type PatientRow } from "~/db/schema";
import { checkConsentShown, parseShownAt } from "~/schemas/consent-versions";
import {
  CONSENT_TEXT_VERSION,
  EVIDENCE_METHODS,
  registrationSchema,
  type RegistrationData,
} from "~/schemas/registration";
import { formSchema } from "~/schemas/strict";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { phoneCandidate } from "~/lib/phone-shape";
import { smsNumber } from "~/lib/phone.server";
import type { Actor, Client } from "../platform/index.server";
import { auditInsert, forgive, limit } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { deleteStored, type StoredFile } from "../records/index.server";
import {
  newShortId,
  requirePatientAccess,
  toApiPatient,
  traceAccess,
  workerCentreId,
  type ApiPatientProfile,
  type PatientAccessKind,
} from "./patients.server";
import { toPublicCentre, type PublicCentre } from "./centres.server";

/**
 * Registering a patient at a centre (decision 0030). The health worker reads the facilitated-consent
 * text aloud in the patient's language first; only a patient who agrees is registered, and then in
 * one transaction: the profile (the worker's centre, a short ID for the slip), the consent (method,
 * witness or the photo of the signature or thumbprint, who recorded it) and the "registered" event
 * of the profile's access trail. A refusal saves nothing.
 */

export type ApiFacilitatedConsent = {
  _id: string;
  kind: string;
  granted: boolean;
  textVersion: string;
  locale: string;
  method: string;
  witnessName: string | null;
  hasEvidence: boolean;
  recordedByName: string;
  /** When the text was read aloud, when that was before it was recorded (offline); null: at createdAt. */
  shownAt: string | null;
  createdAt: string;
};

export type PublicCentrePatient = ApiPatientProfile & {
  centre: PublicCentre | null;
  consent: ApiFacilitatedConsent | null;
};

/** The approved health worker's centre (id and name), or 403 for anyone else. */
export async function requireWorkerCentre(actor: Actor): Promise<PublicCentre> {
  const centreId = await workerCentreId(actor);
  if (!centreId) {
    throw new DomainError(
      "forbidden",
      actor.accountType === "HealthWorker" ? "care.awaitApproval" : "registration.healthWorkersOnly",
    );
  }
  const centre = await first(db().select().from(centres).where(eq(centres.id, centreId)));
  if (!centre) throw new DomainError("forbidden", "registration.healthWorkersOnly");
  return toPublicCentre(centre);
}

/**
 * Runs one registration (reading the photo and `registerPatient`) under the `registration` budget,
 * apart from uploads (decision 0059): the point is taken before a byte is read, so parallel posts
 * cannot slip through, and the account's point comes back when the form's answers are refused
 * (checks failed, consent refused) — a camp's corrections never lock the worker out.
 */
export async function withRegistrationBudget<T>(
  actor: Actor,
  client: Client,
  run: () => Promise<T>,
): Promise<T> {
  await limit("registration", actor.id, client);
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError && err.code === "invalid")
      await forgive("registration", actor.id, client, { accountOnly: true });
    throw err;
  }
}

async function discard(file: StoredFile | null | undefined) {
  if (!file) return;
  await deleteStored(file.key).catch((e) =>
    log("error", "could not remove a consent photo that was not kept", { key: file.key, error: String(e) }),
  );
}

/** The number notices may go to (an SMS-capable mobile), or a 400 on the phone field. */
function noticePhone(data: RegistrationData): string | null {
  if (data.phoneOwner === "none") return null;
  const candidate = phoneCandidate(data.phone, data.countryCode);
  const checked = candidate ? smsNumber(candidate) : null;
  if (!checked?.ok) {
    throw new DomainError("invalid", "registration.checkFields", {
      fieldErrors: { phone: ["registration.phoneInvalid"] },
    });
  }
  return checked.e164;
}

/**
 * Registers a patient at the actor's centre. `input` is text (a form or multipart fields);
 * `evidence` is the stored photo of the signature or thumbprint (kept only for those methods). Any
 * refusal — not an approved health worker, bad fields, the patient refused — removes the photo and
 * saves nothing.
 */
export async function registerPatient(
  actor: Actor,
  input: Record<string, unknown>,
  evidence: StoredFile | null | undefined,
  opts: {
    ip?: string | null;
    /** A held registration handed over (decision 0065): who recorded it offline, and the held item. */
    recordedOffline?: { workerId: string | null; workerName: string; heldItemId: string };
  } = {},
): Promise<PublicCentrePatient> {
  const offline = opts.recordedOffline;
  let kept: StoredFile | null = null;
  try {
    const centre = await requireWorkerCentre(actor);
    const parsed = formSchema(registrationSchema).safeParse(input);
    if (parsed.success && parsed.data.consent === "refused") {
      throw new DomainError("invalid", "registration.notRegistered", {
        fieldErrors: { consent: ["registration.refusedWhatToDo"] },
      });
    }
    const errors = parsed.success ? {} : zodFieldErrors(parsed.error);
    const method = parsed.success ? parsed.data.consentMethod : String(input.consentMethod ?? "");
    if (EVIDENCE_METHODS.includes(method) && !evidence) errors.evidence = ["registration.evidenceRequired"];
    if (!parsed.success || errors.evidence) {
      throw new DomainError("invalid", "registration.checkFields", { fieldErrors: errors });
    }
    const data = parsed.data;
    const phone = noticePhone(data);
    const now = new Date();
    const thisYear = now.getUTCFullYear();
    if (data.birthYear !== undefined && data.birthYear > thisYear) {
      throw new DomainError("invalid", "registration.checkFields", {
        fieldErrors: { birthYear: ["registration.birthYearInvalid"] },
      });
    }
    if (EVIDENCE_METHODS.includes(data.consentMethod)) kept = evidence ?? null;
    else await discard(evidence);

    const patientId = newId();
    const base: Omit<PatientRow, "shortId"> = {
      id: patientId,
      accountId: null,
      firstName: data.firstName,
      lastName: data.lastName,
      sex: data.sex,
      birthYear: data.birthYear ?? thisYear - data.age!,
      birthYearEstimated: data.birthYear === undefined,
      locality: data.locality,
      locale: data.preferredLanguage,
      phone,
      phoneOwner: data.phoneOwner,
      phoneRelationship: data.phoneOwner === "family" ? data.phoneRelationship : "",
      centreId: centre._id,
      centreAccessRevokedAt: null,
      registeredBy: actor.id,
      takenOverAt: null,
      // No slip printed yet: the slip screen prints it with its take-over code (decision 0073).
      slipCodeHash: null,
      slipPrintedAt: null,
      slipPrintedBy: null,
      slipPrints: 0,
      noticeBy: "sms",
      callWindow: "morning",
      remindBy: "sms",
      remindHour: 9,
      createdAt: now,
      updatedAt: now,
    };
    // Offline (decision 0064): the version that was in use when the text was read, as checked.
    const shownAt = data.consentShownAt ? parseShownAt(data.consentShownAt) : null;
    const shown = checkConsentShown(data.consentTextVersion, shownAt ?? undefined, now);
    const consent: ConsentRow = {
      id: newId(),
      patientId,
      kind: "facilitated",
      granted: true,
      textVersion: shown.ok ? shown.version : CONSENT_TEXT_VERSION,
      shownAt: shownAt && shownAt < now ? shownAt : null,
      locale: data.preferredLanguage,
      method: data.consentMethod,
      witnessName: data.consentMethod === "witnessed" ? data.witnessName : null,
      evidenceKey: kept?.key ?? null,
      // The worker who read the consent aloud, also when another was handed the registration.
      recordedBy: offline?.workerId ?? actor.id,
      recordedByName: offline?.workerName ?? `${actor.firstName} ${actor.lastName}`.trim(),
      centreId: centre._id,
      relationship: "",
      createdAt: now,
    };
    // A short ID that another profile already has is drawn again (the unique index decides).
    for (let attempt = 0; ; attempt++) {
      const row: PatientRow = { ...base, shortId: newShortId() };
      try {
        await transaction(function* (tx) {
          yield* exec(tx.insert(patients).values(row));
          yield* exec(tx.insert(patientConsents).values(consent));
          yield* exec(
            auditInsert(
              tx,
              actor,
              "patient.registered",
              "patient",
              patientId,
              {
                by: "centre",
                centreId: centre._id,
                centreName: centre.name,
                workerName: consent.recordedByName,
                consentMethod: consent.method,
                ...(offline ? { heldItemId: offline.heldItemId, handedTo: actorName(actor) } : {}),
              },
              opts.ip,
            ),
          );
        });
        return { ...toApiPatient(row), centre, consent: toApiConsent(consent) };
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= 4) throw err;
      }
    }
  } catch (err) {
    await discard(kept ?? evidence);
    throw err;
  }
}

type ConsentRow = typeof patientConsents.$inferSelect;

const actorName = (a: Actor) => `${a.firstName} ${a.lastName}`.trim();

function toApiConsent(c: ConsentRow): ApiFacilitatedConsent {
  return {
    _id: c.id,
    kind: c.kind,
    granted: c.granted,
    textVersion: c.textVersion,
    locale: c.locale,
    method: c.method,
    witnessName: c.witnessName ?? null,
    hasEvidence: !!c.evidenceKey,
    recordedByName: c.recordedByName,
    shownAt: c.shownAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
  };
}

/**
 * One patient as the people who act for them see it: the profile, the centre that registered them
 * and the consent in force. The opening is written into the profile's access trail.
 */
export async function getCarePatient(
  actor: Actor,
  patientId: string,
  opts: { ip?: string | null; trace?: boolean } = {},
): Promise<PublicCentrePatient & { access: PatientAccessKind }> {
  const access = await requirePatientAccess(actor, patientId, "registration.notYourPatient");
  const p = access.patient;
  const [centre, consent] = await Promise.all([
    p.centreId ? first(db().select().from(centres).where(eq(centres.id, p.centreId))) : undefined,
    first(
      db()
        .select()
        .from(patientConsents)
        .where(and(eq(patientConsents.patientId, p.id)))
        .orderBy(desc(patientConsents.createdAt), desc(patientConsents.id)),
    ),
  ]);
  if (opts.trace !== false) await traceAccess(actor, access, "patient.opened", {}, opts.ip);
  return {
    ...toApiPatient(p),
    centre: centre ? toPublicCentre(centre) : null,
    consent: consent ? toApiConsent(consent) : null,
    access: access.kind,
  };
}
