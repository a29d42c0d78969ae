import { z } from "zod";
import { SMS_STATUSES } from "~/db/types";

/** Admin list filters (query parameters); messages are i18n keys. */
export const smsListQuerySchema = z.object({
  status: z.preprocess(
    (v) => (v === "" || v === null ? undefined : v),
    z.enum(SMS_STATUSES, { errorMap: () => ({ message: "messages.smsStatusInvalid" }) }).optional(),
  ),
});
