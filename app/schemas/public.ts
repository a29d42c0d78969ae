import { z } from "zod";

/** Messages are i18n keys; screens translate them, the API sends the English text. */
export const contactSchema = z.object({
  name: z
    .string({ required_error: "validation.nameRequired" })
    .trim()
    .min(1, "validation.nameRequired")
    .max(100, "validation.nameTooLong"),
  email: z
    .string({ required_error: "validation.emailRequired" })
    .trim()
    .min(1, "validation.emailRequired")
    .max(254, "validation.emailInvalid")
    .email("validation.emailInvalid"),
  message: z
    .string({ required_error: "validation.messageRequired" })
    .trim()
    .min(1, "validation.messageRequired")
    .max(5000, "validation.messageTooLong"),
});

export const DIAL_CODE_RE = /^\+[1-9]\d{0,3}$/;

export const callbackSchema = z.object({
  name: z
    .string({ required_error: "validation.nameRequired" })
    .trim()
    .min(1, "validation.nameRequired")
    .max(100, "validation.nameTooLong"),
  countryCode: z
    .string({ required_error: "validation.countryCodeRequired" })
    .regex(DIAL_CODE_RE, "validation.countryCodeRequired"),
  phoneNumber: z
    .string({ required_error: "validation.phoneRequired" })
    .trim()
    .min(1, "validation.phoneRequired")
    .regex(/^\d{6,14}$/, "validation.phoneInvalid"),
  message: z.string().trim().max(1000, "validation.messageTooLong").optional(),
});
