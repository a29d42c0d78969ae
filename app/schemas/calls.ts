import { z } from "zod";
import { CALL_WINDOWS, NOTICE_BY } from "~/db/types";

/** How a profile hears that an opinion is ready, and when it may be called (decision 0080). */
export const noticeSchema = z.object({
  noticeBy: z.enum(NOTICE_BY, { errorMap: () => ({ message: "calls.noticeByRequired" }) }),
  callWindow: z.enum(CALL_WINDOWS, { errorMap: () => ({ message: "calls.windowRequired" }) }),
});
