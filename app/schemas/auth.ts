import { z } from "zod";
import {
  councilField,
  registrationNumberField,
  requireExpertDetails,
  specialtiesField,
  yearsField,
} from "./experts";

/** Account schemas shared by the screens (Conform), the API and the OpenAPI document. Messages are i18n keys. */
export const SIGNUP_COUNTRY_CODES = ["+91", "+1", "+44", "+61", "+81"] as const;
/** Display pictures: images only, at most 2 MiB (checked in the browser as a courtesy, enforced on the server). */
export const DISPLAY_PICTURE_MAX_BYTES = 2 * 1024 * 1024;

export const GENDERS = ["Male", "Female", "Non-Binary", "Prefer not to say", "Other"] as const;

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

const signupFields = {
  accountType: z.enum(["Patient", "Expert"], {
    errorMap: () => ({ message: "accounts.accountTypeInvalid" }),
  }),
  firstName: name("accounts.firstNameRequired"),
  lastName: name("accounts.lastNameRequired"),
  email,
  contactNumber: z
    .string(req("accounts.contactRequired"))
    .trim()
    .min(1, "accounts.contactRequired")
    .regex(/^\d{10}$/, "accounts.contactTenDigits"),
  password: newPassword(),
  confirmPassword: z
    .string(req("accounts.confirmPasswordRequired"))
    .min(1, "accounts.confirmPasswordRequired"),
};

const passwordsMatch = <T extends { password: string; confirmPassword: string }>(v: T) =>
  v.password === v.confirmPassword;
const mismatch = { message: "accounts.passwordMismatch", path: ["confirmPassword"] };

/** An expert's verification details at signup (issue 12): required on the screen, optional on the API. */
const expertSignupFields = {
  specialties: specialtiesField.optional(),
  registrationNumber: registrationNumberField.optional(),
  registrationCouncil: councilField.optional(),
  yearsOfPractice: yearsField,
};

export const signupFormSchema = z
  .object({
    ...signupFields,
    ...expertSignupFields,
    countryCode: z
      .enum(SIGNUP_COUNTRY_CODES, { errorMap: () => ({ message: "validation.countryCodeRequired" }) })
      .default("+91"),
  })
  .refine(passwordsMatch, mismatch)
  .superRefine((v, ctx) => {
    if (v.accountType === "Expert") requireExpertDetails(v, ctx);
  });

export const signupApiSchema = z
  .object({
    ...signupFields,
    ...expertSignupFields,
    countryCode: z.enum(SIGNUP_COUNTRY_CODES).optional(),
    otp,
  })
  .refine(passwordsMatch, mismatch);

export const sendOtpSchema = z.object({ email, checkUserPresent: z.boolean().optional() });

export const verifyCodeSchema = z.object({ code: otp });

export const loginSchema = z.object({
  email,
  password: z
    .string(req("accounts.passwordRequired"))
    .min(1, "accounts.passwordRequired")
    .max(128, "accounts.passwordTooLong"),
});

export const forgotSchema = z.object({ email });

export const resetPasswordFormSchema = z
  .object({
    password: newPassword(),
    confirmPassword: z
      .string(req("accounts.confirmPasswordRequired"))
      .min(1, "accounts.confirmPasswordRequired"),
  })
  .refine(passwordsMatch, mismatch);

export const resetPasswordApiSchema = z
  .object({
    password: newPassword(),
    confirmPassword: z
      .string(req("accounts.confirmPasswordRequired"))
      .min(1, "accounts.confirmPasswordRequired"),
    token: z
      .string(req("accounts.resetTokenInvalid"))
      .min(10, "accounts.resetTokenInvalid")
      .max(200, "accounts.resetTokenInvalid"),
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

export type SignupForm = z.infer<typeof signupFormSchema>;
export type ProfileInput = z.infer<typeof profileSchema>;

/** Deleting the account: the screen asks for the password again. */
export const deleteAccountFormSchema = z.object({
  password: z
    .string(req("profile.deletePasswordRequired"))
    .min(1, "profile.deletePasswordRequired")
    .max(128, "accounts.passwordTooLong"),
});

/** The API's DELETE /profile/delete-profile has no body in the contract; a password, when sent, is checked. */
export const deleteAccountApiSchema = z.object({
  password: z
    .string()
    .min(1, "profile.deletePasswordRequired")
    .max(128, "accounts.passwordTooLong")
    .optional(),
});
