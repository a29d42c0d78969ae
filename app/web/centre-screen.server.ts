import { data } from "@remix-run/node";
import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import { requireWorkerCentre, type PublicCentre } from "~/domain/care/index.server";
import { isDomainError } from "~/domain/platform/errors";

/**
 * The centre screens' gate: the approved health worker's centre, or — for anyone else (a worker
 * still waiting for approval, a patient, an expert) — the screen's title and why, with 403, shown
 * inside the dashboard rather than the not-found page.
 */
export async function centreOrRefusal(
  actor: Actor,
  t: TFunction,
  title: string,
): Promise<
  { centre: PublicCentre; refusal: null } | { centre: null; refusal: ReturnType<typeof refusalData> }
> {
  try {
    return { centre: await requireWorkerCentre(actor), refusal: null };
  } catch (err) {
    if (isDomainError(err) && err.code === "forbidden")
      return { centre: null, refusal: refusalData(title, t(err.message)) };
    throw err;
  }
}

function refusalData(title: string, notAllowed: string) {
  return data({ title, notAllowed } as const, { status: 403 });
}
