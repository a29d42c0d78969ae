import {
  accessHolders,
  accessTrail,
  familyProfiles,
  revokeCentreAccess,
  revokeManager,
} from "~/domain/care/index.server";
import { consentOverview } from "~/domain/rights/index.server";
import type { Actor } from "~/domain/accounts/index.server";
import { isDomainError } from "~/domain/platform/errors";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import type { IntentArgs } from "./intent.server";
import { MY_DATA } from "./Section";

/** The trail shows this many entries a page (older ones through ?trailPage=). */
const TRAIL_PAGE = 20;

/**
 * What the "Who can act for you" and trail sections show: for a patient account's own profile only
 * (other accounts have no profile of their own). `?revoke=<managerId|centre>` asks the confirmation.
 */
export async function accessData(actor: Actor, locale: string, url: URL) {
  if (actor.accountType !== "Patient") return null;
  const page = Math.max(
    1,
    Math.min(1000, Number.parseInt(url.searchParams.get("trailPage") ?? "1", 10) || 1),
  );
  try {
    const [holders, trail] = await Promise.all([
      accessHolders(actor),
      accessTrail(actor, { locale }, { page, pageSize: TRAIL_PAGE }),
    ]);
    return { holders, trail, confirm: url.searchParams.get("revoke") ?? "" };
  } catch (err) {
    // A patient account without a profile (it was never created): nothing to show.
    if (isDomainError(err)) return null;
    throw err;
  }
}

/**
 * `?patientId=<member>`: a family manager looks at a member's consents given by others and their
 * trail (a member without a login of their own; the access rule decides). Anything else shows nothing.
 */
export async function memberData(actor: Actor, locale: string, url: URL) {
  const patientId = url.searchParams.get("patientId");
  if (actor.accountType !== "Patient" || !patientId || patientId === actor.id || patientId.length > 100)
    return null;
  try {
    const trail = await accessTrail(actor, { patientId, locale }, { page: 1, pageSize: TRAIL_PAGE });
    const overview = await consentOverview(actor, locale, { patientId });
    const member = (await familyProfiles(actor)).find((p) => p.id === patientId);
    if (!member) return null;
    return {
      patientId,
      name: `${member.firstName} ${member.lastName}`.trim(),
      consents: overview.profileConsents,
      trail,
    };
  } catch (err) {
    // Not a member this account may look at: the page shows only the account's own sections.
    if (isDomainError(err)) return null;
    throw err;
  }
}

/** Revoke one family manager's access (AccessSection, after its confirmation). */
export async function revokeManagerAction({ actor, t, client, formData }: IntentArgs) {
  const managerId = String(formData.get("managerId") ?? "");
  try {
    const before = await accessHolders(actor);
    const who = before.managers.find((m) => m.managerId === managerId);
    await revokeManager(actor, managerId, { ip: client.ip });
    const name = who ? `${who.firstName} ${who.lastName}`.trim() : "";
    return redirectWithSuccess(`${MY_DATA}#access`, t("control.managerRevoked", { name }));
  } catch (err) {
    return toastFailure(err, t, `${MY_DATA}#access`);
  }
}

/** Revoke the centre's access (AccessSection, after its confirmation). */
export async function revokeCentreAction({ actor, t, client }: IntentArgs) {
  try {
    const before = await accessHolders(actor);
    await revokeCentreAccess(actor, { ip: client.ip });
    return redirectWithSuccess(
      `${MY_DATA}#access`,
      t("control.centreRevoked", { centre: before.centre?.name ?? "" }),
    );
  } catch (err) {
    return toastFailure(err, t, `${MY_DATA}#access`);
  }
}
