import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { answerCall, callKeys, callStatus } from "~/domain/calls/index.server";
import { voiceAnswer, voiceParams } from "~/web/phone-line.server";

/** A voice provider's requests during a call (decision 0080): answer, keys, status. */
async function step({ request, params }: ActionFunctionArgs | LoaderFunctionArgs) {
  return voiceAnswer(async () => {
    const p = await voiceParams(request);
    const id = params.callId ?? "";
    const sig = p.get("sig");
    switch (params.step) {
      case "answer":
        return answerCall(id, sig);
      case "keys":
        return callKeys(id, sig, p.get("Digits") ?? p.get("digits") ?? "");
      case "status":
        return callStatus(
          id,
          sig,
          p.get("CallStatus") ?? p.get("Status") ?? "",
          Number(p.get("CallDuration") ?? p.get("Duration") ?? 0),
        );
      default:
        throw new Response("Not found", { status: 404 });
    }
  });
}

export const loader = step;
export const action = step;
