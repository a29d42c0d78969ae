import { uploadReportFormFields, urgentNeedsReason } from "~/schemas/reports";
import { z } from "zod";

/** Photos the browser may make smaller before sending (their size is checked after that, by the server). */
export const SHRINKABLE = /^image\/(?:jpeg|png|webp)$/;

/** The same rules in the browser, plus the file: present and not over the size limit. */
export function clientSchema(maxBytes: number) {
  return uploadReportFormFields
    .extend({
      report: z.any().superRefine((value, ctx) => {
        const isFile = typeof File !== "undefined" && value instanceof File && value.size > 0;
        if (!isFile) ctx.addIssue({ code: z.ZodIssueCode.custom, message: "reports.fileRequired" });
        else if ((value as File).size > maxBytes && !SHRINKABLE.test((value as File).type))
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: "files.tooLarge" });
      }),
    })
    .superRefine(urgentNeedsReason);
}
