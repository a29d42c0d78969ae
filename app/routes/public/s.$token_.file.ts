import type { LoaderFunctionArgs } from "@remix-run/node";
import { openSharedFile } from "~/domain/sharing/index.server";
import { fileResponse } from "~/web/file-response.server";
import { clientOf } from "~/web/request.server";
import { grantOf, sharedResourceRefusal, withShareHeaders } from "~/web/share-page.server";

/**
 * The shared report file, for a browser that opened the link (the grant cookie): every request
 * re-checks the link (revoked, expired, locked) and does not count another open. Without an open,
 * the browser is sent to the link's page.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const token = params.token ?? "";
  try {
    const file = await openSharedFile(token, grantOf(request, token), clientOf(context));
    return withShareHeaders(fileResponse(file), request);
  } catch (err) {
    return sharedResourceRefusal(err, request, token);
  }
}
