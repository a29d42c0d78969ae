import { useEffect, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { takePassword } from "~/offline/pending.client";

/** The accounts that work offline (decision 0063); experts and admins stay online-only. */
export const OFFLINE_ROLES = ["Patient", "HealthWorker"] as const;

export function worksOffline(accountType: string): accountType is (typeof OFFLINE_ROLES)[number] {
  return (OFFLINE_ROLES as readonly string[]).includes(accountType);
}

/**
 * On a health worker's or patient's dashboard: remember who is signed in here, unlock this phone's
 * outbox with the password just typed on /login (decision 0072), keep the lists the offline forms
 * need and send what waits. The code is fetched only for those accounts. Returns how many items
 * wait locked (a reload or a code sign-in: the offline screen asks for the password).
 */
export function useOfflineSync(
  user: { id: string; firstName: string; accountType: string; approved: boolean },
  centre: { _id: string; name: string } | null,
) {
  const { i18n } = useTranslation();
  const locale = i18n.language;
  const [locked, setLocked] = useState(0);
  useEffect(() => {
    const role = user.accountType;
    if (!worksOffline(role) || (role === "HealthWorker" && !centre)) {
      // An account without an outbox: the typed password is not kept, nor the key the sign-in
      // page prepared from it (decision 0087; a browser without the outbox's database gets none).
      takePassword();
      void import("~/offline/keys").then((m) => m.discardPrepared()).catch(() => {});
      return;
    }
    void import("~/offline/dashboard-sync.client")
      .then((m) =>
        m.syncForOffline({
          accountId: user.id,
          role,
          locale,
          firstName: user.firstName,
          centre: centre ?? undefined,
        }),
      )
      .then((r) => setLocked(r.locked))
      .catch(() => {});
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the centre's id and name, not the loader's new object
  }, [user.id, user.accountType, user.firstName, centre?._id, centre?.name, locale]);
  return locked;
}
