import type { LoaderFunctionArgs } from "@remix-run/node";
import { providerSound } from "~/domain/calls/index.server";
import { voiceAnswer } from "~/web/phone-line.server";

/** The sound of a call's prompt, as the voice provider fetches it (decision 0080). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const sig = new URL(request.url).searchParams.get("sig");
  return voiceAnswer(() => providerSound(params.callId ?? "", params.prompt ?? "", sig));
}
