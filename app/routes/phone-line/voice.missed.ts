import type { ActionFunctionArgs } from "@remix-run/node";
import { providerMissedCall } from "~/domain/calls/index.server";
import { voiceAnswer, voiceParams } from "~/web/phone-line.server";

/** A voice provider reports a missed call to the clinic's number (decision 0080). */
export async function action({ request }: ActionFunctionArgs) {
  return voiceAnswer(async () => {
    const p = await voiceParams(request);
    return providerMissedCall(
      p.get("sig"),
      p.get("From") ?? p.get("from") ?? "",
      p.get("CallSid") ?? p.get("CallUUID"),
    );
  });
}
