import { uploadReportFormFields, urgentNeedsReason } from "~/schemas/reports";
import { z } from "zod";

/** Photos the browser may make smaller before sending (their size is checked after that, by the server). */
export const SHRINKABLE = /^image\/(?:jpeg|png|webp)$/;

/** The same rules in the browser, plus the file: present and not over the size limit. */
/** Medical images, by name or type (the browser rarely knows DICOM's type): MAX_STUDY_MB applies. */
const STUDY_FILE = /\.(?:dcm|dicom|zip)$/i;

export function clientSchema(maxBytes: number, studyBytes = maxBytes) {
  return uploadReportFormFields
    .extend({
      report: z.any().superRefine((value, ctx) => {
        const isFile = typeof File !== "undefined" && value instanceof File && value.size > 0;
        if (!isFile) ctx.addIssue({ code: z.ZodIssueCode.custom, message: "reports.fileRequired" });
        else if (
          (value as File).size >
            (STUDY_FILE.test((value as File).name) || /dicom|zip/.test((value as File).type)
              ? studyBytes
              : maxBytes) &&
          !SHRINKABLE.test((value as File).type)
        )
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: "files.tooLarge" });
      }),
    })
    .superRefine(urgentNeedsReason);
}
