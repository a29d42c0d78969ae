import { z } from "zod";
import { CALL_WINDOWS, NOTICE_BY } from "~/db/types";

/** How a profile hears that an opinion is ready, and when it may be called (decision 0080). */
export const noticeSchema = z.object({
  noticeBy: z.enum(NOTICE_BY, { errorMap: () => ({ message: "calls.noticeByRequired" }) }),
  callWindow: z.enum(CALL_WINDOWS, { errorMap: () => ({ message: "calls.windowRequired" }) }),
});

/** The code sent by SMS to prove the number a call would go to (decision 0102). */
export const numberProofSchema = z.object({
  code: z
    .string({ errorMap: () => ({ message: "calls.proofCodeShape" }) })
    .trim()
    .regex(/^\d{6}$/, "calls.proofCodeShape"),
});
