import { z } from "zod";

/**
 * Two-step login (decision 0017): the inputs of the screens and /api/v1, and the objects the API
 * answers with (for the OpenAPI document). Messages are i18n keys.
 */
const req = (key: string) => ({ required_error: key, invalid_type_error: key });

/** A 6-digit code from the authenticator app (spaces around or in the middle are tolerated). */
export const totpCode = z
  .string(req("mfa.codeRequired"))
  .trim()
  .min(1, "mfa.codeRequired")
  .max(12, "mfa.codeShape")
  .regex(/^\d{3} ?\d{3}$/, "mfa.codeShape");

/** A recovery code as printed ("ab3de-fgh7k"); case, spaces and dashes do not matter. */
export const recoveryCode = z
  .string(req("mfa.recoveryRequired"))
  .trim()
  .min(1, "mfa.recoveryRequired")
  .max(40, "mfa.recoveryWrong");

const proofShape = {
  code: totpCode.optional().describe("The 6-digit code from the authenticator app"),
  recoveryCode: recoveryCode.optional().describe("Or one of the recovery codes (each works once)"),
};

/** The account's current password, asked again before changing how it signs in. */
const currentPassword = z
  .string(req("accounts.passwordRequired"))
  .min(1, "accounts.passwordRequired")
  .max(128, "accounts.passwordTooLong")
  .describe("The account's current password");

const hasProof = (v: { code?: string; recoveryCode?: string }) => !!(v.code || v.recoveryCode);
const proofMissing = { message: "mfa.proofRequired", path: ["code"] };

export const mfaToken = z
  .string(req("mfa.tokenRequired"))
  .trim()
  .min(1, "mfa.tokenRequired")
  .max(200, "mfa.challengeExpired")
  .describe("The `mfaToken` of the login answer (valid 5 minutes, 5 tries)");

/** POST /auth/login-2fa: the second step of an API login. */
export const loginSecondStepSchema = z.object({ mfaToken, ...proofShape }).refine(hasProof, proofMissing);

/** POST /auth/login-2fa-setup: an admin who must set up two-step login asks for the secret. */
export const mfaTokenSchema = z.object({ mfaToken });

/** Starting a setup: the current password first (a session or token alone is not enough). */
export const startTwoFactorSchema = z.object({ password: currentPassword });

/** Confirming a new authenticator: the current password and its first code. */
export const confirmTwoFactorSchema = z.object({ password: currentPassword, code: totpCode });

/** New recovery codes: a code (or a recovery code) first. */
export const proofSchema = z.object(proofShape).refine(hasProof, proofMissing);

/** Turning two-step login off: the password and a code (or a recovery code). */
export const turnOffTwoFactorSchema = z
  .object({
    password: currentPassword,
    ...proofShape,
  })
  .refine(hasProof, proofMissing);

/** Admin: reset another account's second factor. */
export const resetTwoFactorSchema = z.object({
  userId: z
    .string(req("mfa.userIdRequired"))
    .trim()
    .min(1, "mfa.userIdRequired")
    .max(100, "mfa.userIdRequired"),
  password: currentPassword
    .optional()
    .describe("Resetting another admin: the acting admin's own password (required then)"),
  code: totpCode
    .optional()
    .describe("Resetting another admin: a code from the acting admin's own authenticator app"),
  recoveryCode: recoveryCode.optional().describe("Or one of the acting admin's recovery codes"),
});

// Response objects

export const twoFactorSetupObject = z.object({
  secret: z.string().describe("Base32 secret, for typing into an authenticator app by hand"),
  otpauthUrl: z.string().describe("The otpauth://totp/… URI the QR code holds"),
  qrCode: z.string().describe("The QR code as a data:image/svg+xml;base64 URL"),
});

export const twoFactorStatusObject = z.object({
  enabled: z.boolean(),
  pending: z.boolean().describe("A setup was started and not confirmed yet"),
  enabledAt: z.string().datetime().nullable(),
  recoveryCodesLeft: z.number().int(),
  required: z.boolean().describe("Required for this account (admins): it cannot be turned off"),
});

export const recoveryCodesObject = z.object({
  recoveryCodes: z.array(z.string()).describe("10 single-use codes; shown only this once"),
});

/**
 * One text field that takes either (screens): six digits are a code from the app, anything else
 * a recovery code. Empty counts as a missing code.
 */
export function proofFromText(text: string): { code?: string; recoveryCode?: string } {
  const v = text.trim();
  return !v || /^\d{3} ?\d{3}$/.test(v) ? { code: v } : { recoveryCode: v };
}
