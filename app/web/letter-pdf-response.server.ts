import type { AppLoadContext } from "@remix-run/node";
import type { Actor } from "~/domain/accounts/index.server";
import { DomainError } from "~/domain/platform/errors";
import { tFor } from "~/i18n/i18n.server";
import { errorResponse } from "./api.server";
import { fileActor } from "./file-access.server";
import { contentDisposition, fileFrameHeaders } from "./file-response.server";
import { clientOf } from "./request.server";

/** A signed letter's PDF as a download (the opinion letter, decision 0012; a referral letter, 0114): who may fetch it is the drawing function's rule. */
export async function letterPdfResponse(
  request: Request,
  context: AppLoadContext,
  draw: (actor: Actor, ip: string) => Promise<{ pdf: Buffer; fileName: string }>,
): Promise<Response> {
  try {
    const actor = await fileActor(request);
    const { pdf, fileName } = await draw(actor, clientOf(context).ip);
    return new Response(new Uint8Array(pdf), {
      status: 200,
      headers: {
        "Content-Type": "application/pdf",
        "Content-Length": String(pdf.length),
        "Content-Disposition": contentDisposition(fileName, "attachment"),
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
        ...fileFrameHeaders("application/pdf"),
      },
    });
  } catch (err) {
    if (err instanceof DomainError) return errorResponse(err, (await tFor(request)).t);
    throw err;
  }
}
