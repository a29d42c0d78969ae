import type { LoaderFunctionArgs } from "@remix-run/node";
import { fileTypeFromBuffer } from "file-type";
import { openDecrypted } from "~/domain/records/index.server";
import { isUserImageKey } from "~/domain/accounts/index.server";
import { requireActor } from "~/web/auth.server";
import { fileFrameHeaders } from "~/web/file-response.server";
import { pageError } from "~/web/screen.server";

const KEY_RE = /^[a-f0-9]{32}$/;
/** How many leading bytes decide the type (as when the file was stored). */
const SNIFF_BYTES = 4100;
const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  apng: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

const notFound = () => new Response("Not Found", { status: 404, headers: { "Content-Type": "text/plain" } });

/** A display picture, decrypted on the fly, for signed-in users only. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireActor(request);
  const key = params.key ?? "";
  if (!KEY_RE.test(key) || !(await isUserImageKey(key))) throw notFound();

  let stream: Awaited<ReturnType<typeof openDecrypted>>;
  try {
    stream = await openDecrypted(key);
  } catch (err) {
    pageError(err);
  }

  // Read the first bytes to send the real content type, then stream the rest as it comes.
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  try {
    while (headBytes < SNIFF_BYTES) {
      const next = await chunks.next();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      headBytes += next.value.length;
    }
  } catch (err) {
    stream.destroy();
    throw err;
  }
  const first = Buffer.concat(head, headBytes);
  const found = await fileTypeFromBuffer(first.subarray(0, SNIFF_BYTES));
  const contentType = found ? IMAGE_TYPES[found.ext] : undefined;
  if (!contentType) {
    stream.destroy();
    throw notFound();
  }

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.length) controller.enqueue(first);
      if (ended) controller.close();
    },
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (err) {
        // A failed integrity check ends the response with an error, never with bad bytes.
        controller.error(err);
      }
    },
    cancel() {
      stream.destroy();
    },
  });

  return new Response(body, {
    status: 200,
    headers: {
      "Content-Type": contentType,
      "Cache-Control": "private, max-age=3600",
      "X-Content-Type-Options": "nosniff",
      "Content-Disposition": "inline",
      ...fileFrameHeaders(contentType),
    },
  });
}
