/**
 * The facilitated-consent texts and when each was the one in use (decision 0064). A consent read
 * aloud offline reaches the server later with the version that was shown and when; it is accepted
 * if that version was current at that time. One list, oldest first; a new wording gets a new entry
 * (its text in every language under `registration.consentText`) and ends the previous one at the
 * same instant. Browser-safe: the register screen and the outbox read it too.
 */
export type ConsentTextVersion = {
  version: string;
  /** When it became the text in use (inclusive). */
  from: string;
  /** When the next one replaced it (exclusive); null while it is in use. */
  until: string | null;
};

export const FACILITATED_CONSENT_VERSIONS: readonly ConsentTextVersion[] = [
  // The first wording, November 2026 (decision 0030), in use since the month began in India.
  { version: "facilitated-2026-11", from: "2026-11-01T00:00:00+05:30", until: null },
];

/** The version in use now (the last entry). */
export const CONSENT_TEXT_VERSION =
  FACILITATED_CONSENT_VERSIONS[FACILITATED_CONSENT_VERSIONS.length - 1].version;

/** A phone's clock may run this far ahead of the server's. */
export const CONSENT_CLOCK_SKEW_MS = 5 * 60 * 1000;
/** A consent read longer ago than this is not accepted: it is read to the patient again. */
export const CONSENT_SHOWN_MAX_DAYS = 30;

/** The i18n key (registration section) of why a shown consent is refused, on field `consentShownAt` or `consentTextVersion`. */
export type ConsentShownRefusal = {
  field: "consentTextVersion" | "consentShownAt";
  message:
    | "registration.consentTextChanged"
    | "registration.consentShownAtInvalid"
    | "registration.consentShownFuture"
    | "registration.consentShownTooOld"
    | "registration.consentShownNotCurrent";
};

/** The version that was in use at `at`, if any. */
export function consentVersionAt(
  at: Date,
  versions: readonly ConsentTextVersion[] = FACILITATED_CONSENT_VERSIONS,
): string | undefined {
  const t = at.getTime();
  return versions.find((v) => Date.parse(v.from) <= t && (v.until === null || t < Date.parse(v.until)))
    ?.version;
}

/** An ISO 8601 date and time with its zone (Z or ±hh:mm), as `consentShownAt` is sent. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `consentShownAt` as a time, or null when it is not an ISO 8601 date and time with a zone. */
export function parseShownAt(value: string): Date | null {
  if (!ISO_WITH_ZONE.test(value)) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}

/**
 * Whether a consent that showed `version` (empty: the one in use then) at `shownAt` (undefined:
 * now, online; a string is parsed as ISO 8601) may be recorded at `now`. Returns the version to
 * record, or why not.
 */
export function checkConsentShown(
  version: string,
  shownAtIn: Date | string | undefined,
  now: Date = new Date(),
  versions: readonly ConsentTextVersion[] = FACILITATED_CONSENT_VERSIONS,
): { ok: true; version: string } | ({ ok: false } & ConsentShownRefusal) {
  const shownAt = typeof shownAtIn === "string" ? parseShownAt(shownAtIn) : shownAtIn;
  if (shownAt === null || (shownAt && Number.isNaN(shownAt.getTime())))
    return { ok: false, field: "consentShownAt", message: "registration.consentShownAtInvalid" };
  if (!shownAt) {
    const current = consentVersionAt(now, versions) ?? versions[versions.length - 1].version;
    if (version && version !== current)
      return { ok: false, field: "consentTextVersion", message: "registration.consentTextChanged" };
    return { ok: true, version: current };
  }
  if (version && !versions.some((v) => v.version === version))
    return { ok: false, field: "consentTextVersion", message: "registration.consentTextChanged" };
  const t = shownAt.getTime();
  if (t > now.getTime() + CONSENT_CLOCK_SKEW_MS)
    return { ok: false, field: "consentShownAt", message: "registration.consentShownFuture" };
  if (t < now.getTime() - CONSENT_SHOWN_MAX_DAYS * 24 * 60 * 60 * 1000)
    return { ok: false, field: "consentShownAt", message: "registration.consentShownTooOld" };
  // Within the skew ahead, the time counts as now.
  const then = consentVersionAt(new Date(Math.min(t, now.getTime())), versions);
  if (!then || (version && version !== then))
    return { ok: false, field: "consentShownAt", message: "registration.consentShownNotCurrent" };
  return { ok: true, version: then };
}
