import { z } from "zod";
import { strictBoolean } from "./strict";
import { NOTIFY_CHANNELS } from "~/db/types";
import { looksLikePhone, phoneCandidate } from "~/lib/phone-shape";
import {
  councilField,
  registrationNumberField,
  requireExpertDetails,
  specialtiesField,
  yearsField,
} from "./experts";
import { healthWorkerSignupFields, requireHealthWorkerDetails } from "./centres";
import { SIGNUP_COUNTRY_CODES } from "./limits";
import { DISPLAY_PICTURE_MAX_BYTES, GENDERS, GENDER_LABEL_KEYS } from "./limits";

export { DISPLAY_PICTURE_MAX_BYTES, GENDERS, GENDER_LABEL_KEYS };

/** Account schemas shared by the screens (Conform), the API and the OpenAPI document. Messages are i18n keys. */
export { SIGNUP_COUNTRY_CODES };

const req = (key: string) => ({ required_error: key, invalid_type_error: key });

export const email = z
  .string(req("validation.emailRequired"))
  .trim()
  .min(1, "validation.emailRequired")
  .max(254, "validation.emailInvalid")
  .email("validation.emailInvalid")
  .transform((e) => e.toLowerCase());

export const newPassword = (requiredKey = "accounts.passwordRequired") =>
  z
    .string(req(requiredKey))
    .min(1, requiredKey)
    .min(8, "accounts.passwordTooShort")
    .max(128, "accounts.passwordTooLong");

const name = (requiredKey: string) =>
  z.string(req(requiredKey)).trim().min(1, requiredKey).max(50, "validation.nameTooLong");

export const otp = z
  .string(req("accounts.otpRequired"))
  .trim()
  .regex(/^\d{6}$/, "accounts.otpInvalid");

/** A mobile number in any common form, as E.164 (decision 0020); "+91" is assumed without a country code. */
export const phone = z
  .string(req("accounts.mobileRequired"))
  .trim()
  .min(1, "accounts.mobileRequired")
  .max(32, "accounts.mobileInvalid")
  .transform((v, ctx) => {
    const e164 = phoneCandidate(v);
    if (!e164) {
      ctx.addIssue({ code: "custom", message: "accounts.mobileInvalid" });
      return z.NEVER;
    }
    return e164;
  });

/** A dial code as the country select sends it ("+91"). */
const dialCode = z
  .string()
  .trim()
  .regex(/^\+[1-9]\d{0,3}$/, "accounts.mobileCountryRequired");

/** The screen's two mobile fields (dial code select + number) as one E.164 number, or an issue on `mobileNumber`. */
function mobileFromParts(v: { mobileCountryCode?: string; mobileNumber?: string }, ctx: z.RefinementCtx) {
  if (v.mobileCountryCode !== undefined && !dialCode.safeParse(v.mobileCountryCode).success) {
    ctx.addIssue({ code: "custom", path: ["mobileCountryCode"], message: "accounts.mobileCountryRequired" });
    return null;
  }
  if (!v.mobileNumber) {
    ctx.addIssue({ code: "custom", path: ["mobileNumber"], message: "accounts.mobileRequired" });
    return null;
  }
  const e164 = phoneCandidate(v.mobileNumber, v.mobileCountryCode ?? "+91");
  if (!e164) ctx.addIssue({ code: "custom", path: ["mobileNumber"], message: "accounts.mobileInvalid" });
  return e164;
}

/** A screen's mobile number: `mobileCountryCode` + `mobileNumber` → `phone` (E.164). */
export const mobileFormSchema = z
  .object({
    mobileCountryCode: dialCode.optional(),
    mobileNumber: z.string().trim().max(32, "accounts.mobileInvalid").optional(),
  })
  .transform((v, ctx) => ({ phone: mobileFromParts(v, ctx) ?? "" }));

const contactNumber = z
  .string(req("accounts.contactRequired"))
  .trim()
  .min(1, "accounts.contactRequired")
  .regex(/^\d{10}$/, "accounts.contactTenDigits");

const signupFields = {
  accountType: z.enum(["Patient", "Expert", "HealthWorker"], {
    errorMap: () => ({ message: "accounts.accountTypeInvalid" }),
  }),
  firstName: name("accounts.firstNameRequired"),
  lastName: name("accounts.lastNameRequired"),
  // An e-mail, or (patients) a mobile number instead: the refinements below decide.
  email: email.optional(),
  contactNumber: contactNumber.optional(),
  password: newPassword(),
  confirmPassword: z
    .string(req("accounts.confirmPasswordRequired"))
    .min(1, "accounts.confirmPasswordRequired"),
};

const passwordsMatch = <T extends { password: string; confirmPassword: string }>(v: T) =>
  v.password === v.confirmPassword;
const mismatch = { message: "accounts.passwordMismatch", path: ["confirmPassword"] };

/** An expert's verification details at signup (decision 0013): required on the screen, optional on the API. */
const expertSignupFields = {
  specialties: specialtiesField.optional(),
  registrationNumber: registrationNumberField.optional(),
  registrationCouncil: councilField.optional(),
  yearsOfPractice: yearsField,
};

/** The identity of a new account: an e-mail, or for patients a mobile number. */
function requireIdentity(
  v: { accountType: string; email?: string; contactNumber?: string; phone?: string | null },
  ctx: z.RefinementCtx,
  phoneField: string,
) {
  if (v.phone) {
    if (v.accountType === "Expert")
      ctx.addIssue({ code: "custom", path: [phoneField], message: "accounts.mobileSignupPatientsOnly" });
    return;
  }
  if (!v.email) ctx.addIssue({ code: "custom", path: ["email"], message: "validation.emailRequired" });
  if (!v.contactNumber)
    ctx.addIssue({ code: "custom", path: ["contactNumber"], message: "accounts.contactRequired" });
}

export const SIGNUP_WITH = ["email", "phone"] as const;

/**
 * Experts always sign up with e-mail, whatever the (hidden) choice says; patients and health
 * workers (many have a mobile number and no e-mail) choose.
 */
const byPhone = (v: { signupWith: string; accountType: string }) =>
  v.signupWith === "phone" && v.accountType !== "Expert";

export const signupFormSchema = z
  .object({
    ...signupFields,
    ...expertSignupFields,
    ...healthWorkerSignupFields,
    // Checked below by the chosen way of signing up: a half-typed e-mail does not block a
    // mobile signup, nor a stray mobile number an e-mail one.
    email: z.string().optional(),
    contactNumber: z.string().optional(),
    countryCode: z
      .enum(SIGNUP_COUNTRY_CODES, { errorMap: () => ({ message: "validation.countryCodeRequired" }) })
      .default("+91"),
    /** Patients choose: sign up with an e-mail or with a mobile number (the screen's two tabs). */
    signupWith: z.enum(SIGNUP_WITH).default("email"),
    mobileCountryCode: z.string().optional(),
    mobileNumber: z.string().optional(),
  })
  // A refinement (unlike a transform) also runs when another field failed, so every message shows at once.
  .superRefine((v, ctx) => {
    if (byPhone(v)) mobileFromParts(v, ctx);
    else {
      for (const [key, schema] of [
        ["email", email],
        ["contactNumber", contactNumber],
      ] as const) {
        const r = schema.safeParse(v[key]);
        if (!r.success) ctx.addIssue({ code: "custom", path: [key], message: r.error.issues[0].message });
      }
    }
    if (v.password !== v.confirmPassword) ctx.addIssue({ code: "custom", ...mismatch });
    if (v.accountType === "Expert") requireExpertDetails(v, ctx);
    requireHealthWorkerDetails(v, ctx);
  })
  .transform((v) => {
    const phone = byPhone(v) ? phoneCandidate(v.mobileNumber, v.mobileCountryCode) : null;
    return {
      ...v,
      signupWith: phone ? ("phone" as const) : ("email" as const),
      phone,
      email: phone ? undefined : email.parse(v.email),
      contactNumber: phone ? undefined : contactNumber.parse(v.contactNumber),
    };
  });

export const signupApiSchema = z
  .object({
    ...signupFields,
    ...expertSignupFields,
    /** A health worker's centre, role and ID (required with accountType "HealthWorker"). */
    ...healthWorkerSignupFields,
    countryCode: z.enum(SIGNUP_COUNTRY_CODES).optional(),
    /** A patient or a health worker may sign up with a mobile number (E.164, or digits with +91 assumed) instead of an e-mail. */
    phone: phone.optional(),
    otp,
  })
  .refine(passwordsMatch, mismatch)
  .superRefine((v, ctx) => {
    requireIdentity(v, ctx, "phone");
    requireHealthWorkerDetails(v, ctx);
  });

/** A signup code by e-mail, or by SMS to `phone`. */
export const sendOtpSchema = z
  .object({ email: email.optional(), phone: phone.optional(), checkUserPresent: strictBoolean().optional() })
  .superRefine((v, ctx) => {
    if (!v.email && !v.phone)
      ctx.addIssue({ code: "custom", path: ["email"], message: "validation.emailRequired" });
  });

export const verifyCodeSchema = z.object({ code: otp });

/**
 * Login: `email` — which on the screen may also hold a mobile number — or
 * `phone`, with the password, or with an SMS code (`otp`, phone accounts) instead of the password.
 */
export const loginSchema = z
  .object({
    email: z.string(req("validation.emailRequired")).trim().max(254, "validation.emailInvalid").optional(),
    phone: phone.optional(),
    password: z.string(req("accounts.passwordRequired")).max(128, "accounts.passwordTooLong").optional(),
    otp: otp.optional(),
  })
  .transform((v, ctx) => {
    let byPhone = v.phone ?? null;
    let byEmail: string | null = null;
    if (!byPhone && v.email) {
      if (looksLikePhone(v.email)) {
        byPhone = phoneCandidate(v.email);
        if (!byPhone) ctx.addIssue({ code: "custom", path: ["email"], message: "accounts.mobileInvalid" });
      } else {
        const parsed = email.safeParse(v.email);
        if (parsed.success) byEmail = parsed.data;
        else ctx.addIssue({ code: "custom", path: ["email"], message: parsed.error.issues[0].message });
      }
    }
    if (!byPhone && !byEmail && !v.email)
      ctx.addIssue({ code: "custom", path: ["email"], message: "validation.emailRequired" });
    if (!v.password && !v.otp)
      ctx.addIssue({ code: "custom", path: ["password"], message: "accounts.passwordRequired" });
    return { email: byEmail, phone: byPhone, password: v.password ?? null, otp: v.otp ?? null };
  });

/** A mobile number to send a login code to (the SMS-code login). */
export const loginCodeSchema = z.object({ phone });

/** Forgot password: the account's e-mail, or its mobile number (a code by SMS). */
export const forgotSchema = z
  .object({
    email: z
      .string(req("validation.emailRequired"))
      .trim()
      .min(1, "validation.emailRequired")
      .max(254)
      .optional(),
    phone: phone.optional(),
  })
  .transform((v, ctx) => {
    if (v.phone) return { email: null, phone: v.phone };
    const raw = v.email ?? "";
    if (looksLikePhone(raw)) {
      const e164 = phoneCandidate(raw);
      if (!e164) ctx.addIssue({ code: "custom", path: ["email"], message: "accounts.mobileInvalid" });
      return { email: null, phone: e164 };
    }
    const parsed = email.safeParse(raw);
    if (!parsed.success) {
      ctx.addIssue({ code: "custom", path: ["email"], message: parsed.error.issues[0].message });
      return { email: null, phone: null };
    }
    return { email: parsed.data, phone: null };
  });

export const resetPasswordFormSchema = z
  .object({
    password: newPassword(),
    confirmPassword: z
      .string(req("accounts.confirmPasswordRequired"))
      .min(1, "accounts.confirmPasswordRequired"),
  })
  .refine(passwordsMatch, mismatch);

/** The API's reset: with the link's token, or (phone accounts) with `phone` and the SMS `otp`. */
export const resetPasswordApiSchema = z
  .object({
    password: newPassword(),
    confirmPassword: z
      .string(req("accounts.confirmPasswordRequired"))
      .min(1, "accounts.confirmPasswordRequired"),
    token: z
      .string(req("accounts.resetTokenInvalid"))
      .min(10, "accounts.resetTokenInvalid")
      .max(200, "accounts.resetTokenInvalid")
      .optional(),
    phone: phone.optional(),
    otp: otp.optional(),
  })
  .refine(passwordsMatch, mismatch)
  .superRefine((v, ctx) => {
    if (!v.token && !(v.phone && v.otp))
      ctx.addIssue({ code: "custom", path: ["token"], message: "accounts.resetTokenInvalid" });
  });

/** The screen's reset by SMS code: the number (kept in the page), the code and the new password. */
export const resetByCodeFormSchema = z
  .object({
    phone,
    code: otp,
    password: newPassword(),
    confirmPassword: z
      .string(req("accounts.confirmPasswordRequired"))
      .min(1, "accounts.confirmPasswordRequired"),
  })
  .refine(passwordsMatch, mismatch);

export const changePasswordSchema = z
  .object({
    oldPassword: z
      .string(req("accounts.currentPasswordRequired"))
      .min(1, "accounts.currentPasswordRequired")
      .max(128, "accounts.passwordTooLong"),
    newPassword: newPassword("accounts.newPasswordRequired"),
    confirmNewPassword: z
      .string(req("accounts.confirmNewPasswordRequired"))
      .min(1, "accounts.confirmNewPasswordRequired"),
  })
  .refine((v) => v.newPassword === v.confirmNewPassword, {
    message: "accounts.passwordMismatch",
    path: ["confirmNewPassword"],
  });

const isoDate = /^\d{4}-\d{2}-\d{2}$/;

export const profileSchema = z.object({
  firstName: name("profile.firstNameRequired"),
  lastName: z.string().trim().max(50, "validation.nameTooLong").optional().default(""),
  dateOfBirth: z
    .string(req("profile.dobRequired"))
    .trim()
    .min(1, "profile.dobRequired")
    .regex(isoDate, "profile.dobInvalid")
    .refine(
      (d) =>
        !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
      "profile.dobInvalid",
    )
    .refine((d) => d <= new Date().toISOString().slice(0, 10), "profile.dobFuture")
    .refine((d) => d >= "1900-01-01", "profile.dobInvalid"),
  gender: z.enum(GENDERS, { errorMap: () => ({ message: "profile.genderRequired" }) }),
  contactNumber: z
    .string(req("profile.contactRequired"))
    .trim()
    .min(1, "profile.contactRequired")
    .regex(/^\d{10,12}$/, "profile.contactInvalid"),
  about: z
    .string(req("profile.aboutRequired"))
    .trim()
    .min(1, "profile.aboutRequired")
    .max(1000, "profile.aboutTooLong"),
});

/** Experts and admins choose how notifications reach them (decision 0020). */
export const notifySchema = z.object({
  notify: z.enum(NOTIFY_CHANNELS, { errorMap: () => ({ message: "profile.notifyInvalid" }) }),
});

export type SignupForm = z.infer<typeof signupFormSchema>;
export type ProfileInput = z.infer<typeof profileSchema>;
