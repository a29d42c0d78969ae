import { z } from "zod";
import { strictBoolean } from "./strict";
import {
  SHARE_LABEL_MAX,
  SHARE_DAYS_DEFAULT,
  SHARE_DAYS_MAX,
  SHARE_PASSCODE_MIN,
  SHARE_PASSCODE_MAX,
  SHARE_MAX_OPENS_MAX,
} from "./limits";

export {
  SHARE_LABEL_MAX,
  SHARE_DAYS_DEFAULT,
  SHARE_DAYS_MAX,
  SHARE_PASSCODE_MIN,
  SHARE_PASSCODE_MAX,
  SHARE_MAX_OPENS_MAX,
};

/**
 * Sharing links (decision 0016): what a patient fills in to share one report with a
 * doctor, and what the doctor types on the public page. Shared by the share screen (Conform), the
 * JSON API, the domain and the OpenAPI document. Messages are i18n keys (section `share`).
 */

/** Devanagari, Bengali and Tamil digits typed on a local keyboard count as 0–9. */
const DIGIT_BASES = [0x0966, 0x09e6, 0x0be6];
export function normalizePasscode(raw: string): string {
  let out = "";
  for (const ch of raw.trim()) {
    const code = ch.codePointAt(0)!;
    const base = DIGIT_BASES.find((b) => code >= b && code <= b + 9);
    out += base === undefined ? ch : String(code - base);
  }
  return out;
}

const blankToUndefined = (v: unknown) => (v === "" || v === null ? undefined : v);

const labelField = z
  .preprocess(
    blankToUndefined,
    z
      .string({ invalid_type_error: "share.labelTooLong" })
      .trim()
      .max(SHARE_LABEL_MAX, "share.labelTooLong")
      .default(""),
  )
  .describe("Who the link is for, in the patient's words (shown to the patient only)");

const daysField = z
  .preprocess(
    blankToUndefined,
    z.coerce
      .number({ invalid_type_error: "share.daysInvalid" })
      .int("share.daysInvalid")
      .min(1, "share.daysInvalid")
      .max(SHARE_DAYS_MAX, "share.daysInvalid")
      .default(SHARE_DAYS_DEFAULT),
  )
  .describe("Days until the link expires");

const passcodeField = z
  .preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : blankToUndefined(v)),
    z
      .string({ invalid_type_error: "share.passcodeTooShort" })
      .transform(normalizePasscode)
      .pipe(
        z
          .string()
          .min(SHARE_PASSCODE_MIN, "share.passcodeTooShort")
          .max(SHARE_PASSCODE_MAX, "share.passcodeTooLong"),
      )
      .optional(),
  )
  .describe(
    `${SHARE_PASSCODE_MIN} to ${SHARE_PASSCODE_MAX} characters, told to the doctor separately; the link locks after 5 wrong ones`,
  );

const maxOpensField = z
  .preprocess(
    blankToUndefined,
    z.coerce
      .number({ invalid_type_error: "share.maxOpensInvalid" })
      .int("share.maxOpensInvalid")
      .min(1, "share.maxOpensInvalid")
      .max(SHARE_MAX_OPENS_MAX, "share.maxOpensInvalid")
      .optional(),
  )
  .describe("How many times the link may be opened (absent: no limit besides the expiry)");

const reportIdField = z
  .string({ required_error: "reports.reportIdRequired", invalid_type_error: "reports.reportIdRequired" })
  .trim()
  .min(1, "reports.reportIdRequired")
  .max(100, "reports.reportIdRequired");

/** At least one part: a link that shows nothing is a mistake. */
function somethingShared(
  v: { includeFile?: boolean; includeOpinion?: boolean; includeLetter?: boolean },
  ctx: z.RefinementCtx,
) {
  if (!v.includeFile && !v.includeOpinion && !v.includeLetter)
    ctx.addIssue({ code: "custom", path: ["includeFile"], message: "share.choosePart" });
}

const common = {
  reportId: reportIdField,
  label: labelField,
  expiresInDays: daysField,
  passcode: passcodeField,
  maxOpens: maxOpensField,
};

const jsonFlag = (v: boolean) => strictBoolean("share.partInvalid").default(v).describe(`default ${v}`);
/** A checkbox: absent means no (read through formSchema: "on"/"true"/"false"). */
const formFlag = () => strictBoolean("share.partInvalid").default(false);

/** The API: each part defaults to true (a JSON client that says nothing shares everything there is). */
export const createShareLinkSchema = z
  .object({
    ...common,
    includeFile: jsonFlag(true),
    includeOpinion: jsonFlag(true),
    includeLetter: jsonFlag(true),
  })
  .superRefine(somethingShared);

/** The share screen: unticked checkboxes are absent from the form, so absent means no. */
const formFields = z.object({
  ...common,
  includeFile: formFlag(),
  includeOpinion: formFlag(),
  includeLetter: formFlag(),
});
export const createShareLinkFormSchema = formFields.superRefine(somethingShared);
/** The same rules in the browser, where the report is the page's (not a form field). */
export const shareFormClientSchema = formFields.omit({ reportId: true }).superRefine(somethingShared);

export type CreateShareLinkInput = z.input<typeof createShareLinkSchema>;
export type CreateShareLinkData = z.output<typeof createShareLinkSchema>;

/** `?reportId=` on the API list: only that report's links. */
export const shareLinkListQuery = z.object({
  reportId: z.preprocess(blankToUndefined, reportIdField.optional()),
});

export const SHARE_STATUSES = ["active", "expired", "revoked", "used_up", "locked"] as const;
export type ShareLinkStatus = (typeof SHARE_STATUSES)[number];

/** A sharing link as its owner sees it (never the token: it is shown once, at creation). */
export const shareLinkObject = z.object({
  _id: z.string(),
  reportId: z.string(),
  reportType: z.string(),
  label: z.string(),
  includeFile: z.boolean(),
  includeOpinion: z.boolean(),
  includeLetter: z.boolean(),
  /** Whether the doctor must type a passcode (the passcode itself is never returned). */
  passcode: z.boolean(),
  expiresAt: z.string().datetime(),
  maxOpens: z.number().int().nullable(),
  opens: z.number().int(),
  lastOpenedAt: z.string().datetime().nullable(),
  revokedAt: z.string().datetime().nullable(),
  createdAt: z.string().datetime(),
  status: z.enum(SHARE_STATUSES),
});

/** The answer to creating a link: the link, and its URL — the only time the URL is ever shown. */
export const createdShareLinkObject = shareLinkObject.extend({
  url: z.string().url(),
});
