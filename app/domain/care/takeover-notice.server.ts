import { and, eq, inArray, isNull, or } from "drizzle-orm";
import { config } from "~/config.server";
import { db } from "~/db/client.server";
import { healthWorkers, patientManagers, users, type PatientRow } from "~/db/schema";
import type { PhoneOwner } from "~/db/types";
import { getT } from "~/i18n/i18n.server";
import { isLocale } from "~/i18n/config";
import { site } from "~/site";
import { log } from "~/lib/log.server";
import { notify, queueSms, recipientColumns } from "../messaging/index.server";

/**
 * What a take-over changed, kept on its row (take_overs.previous) so an admin can undo it: the
 * profile's number as it was, the managers whose access it ended and whether it ended the centre's.
 */
export type TakeOverPrevious = {
  phone: string | null;
  phoneOwner: PhoneOwner;
  phoneRelationship: string;
  managers: string[];
  centre: boolean;
};

/** The "this was not me" page of one take-over (the token is its only key; no sign-in). */
export const notMeUrl = (token: string) => `${config().appUrl}/take-over/not-me/${token}`;

/**
 * Announces a completed take-over at once (decision 0055), with the "this was not me" link: an SMS
 * to the number the profile had (the person's own, or the family's or worker's), a notice to every
 * family manager who had access and to the approved health workers of the centre that had it. The
 * messages never name the person (a shared phone's messages are read by the whole household); a
 * failure is logged, never undoes the take-over.
 */
export async function announceTakeOver(
  before: PatientRow,
  previous: TakeOverPrevious,
  newPhone: string,
  token: string,
): Promise<void> {
  const notMe = notMeUrl(token);
  try {
    if (before.phone) {
      const t = await getT(isLocale(before.locale) ? before.locale : "en");
      await queueSms({
        to: before.phone,
        text: t("family.smsTakeOverDone", { product: site.productName, notMe }),
        purpose: "notice",
      });
    }
    const managers = await db()
      .select({ ...recipientColumns, suspendedAt: users.suspendedAt })
      .from(patientManagers)
      .innerJoin(users, eq(users.id, patientManagers.managerId))
      .where(
        and(
          eq(patientManagers.patientId, before.id),
          previous.managers.length
            ? or(isNull(patientManagers.revokedAt), inArray(patientManagers.managerId, previous.managers))
            : isNull(patientManagers.revokedAt),
        ),
      );
    const workers =
      before.centreId && !before.centreAccessRevokedAt
        ? await db()
            .select({ ...recipientColumns, suspendedAt: users.suspendedAt })
            .from(healthWorkers)
            .innerJoin(users, eq(users.id, healthWorkers.userId))
            .where(
              and(
                eq(healthWorkers.centreId, before.centreId),
                eq(users.accountType, "HealthWorker"),
                eq(users.approved, true),
              ),
            )
        : [];
    for (const to of [...managers, ...workers]) {
      // The new number itself needs no notice (it is the person who took the profile over).
      if (to.suspendedAt || to.phone === newPhone) continue;
      notify(to, {
        subject: "family.takeOverNoticeSubject",
        body:
          to.accountType === "HealthWorker" ? "family.takeOverNoticeBodyCentre" : "family.takeOverNoticeBody",
        action: "family.takeOverNoticeAction",
        path: `/take-over/not-me/${token}`,
        vars: { shortId: before.shortId ?? "", notMe },
        sms: { key: "family.smsTakeOverDone", purpose: "notice" },
      });
    }
  } catch (err) {
    log("error", "could not announce a take-over", { error: String((err as Error)?.message ?? err) });
  }
}
