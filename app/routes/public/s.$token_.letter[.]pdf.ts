import type { LoaderFunctionArgs } from "@remix-run/node";
import { sharedLetter } from "~/domain/sharing/index.server";
import { contentDisposition, fileFrameHeaders } from "~/web/file-response.server";
import { clientOf } from "~/web/request.server";
import { grantOf, sharedResourceRefusal, withShareHeaders } from "~/web/share-page.server";

/** The opinion letter (PDF, in the patient's language) through a sharing link that includes it. */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const token = params.token ?? "";
  try {
    const { pdf, fileName } = await sharedLetter(token, grantOf(request, token), clientOf(context));
    return withShareHeaders(
      new Response(new Uint8Array(pdf), {
        status: 200,
        headers: {
          "Content-Type": "application/pdf",
          "Content-Length": String(pdf.length),
          "Content-Disposition": contentDisposition(fileName, "attachment"),
          "X-Content-Type-Options": "nosniff",
          ...fileFrameHeaders("application/pdf"),
        },
      }),
      request,
    );
  } catch (err) {
    return sharedResourceRefusal(err, request, token);
  }
}
