import type { AccountType } from "~/db/types";
import type { NavIconName } from "./NavIcon";
import type { DashboardUser } from "./route";

type NavItem = { to: string; label: string; icon: NavIconName; count?: number };
/** The admin's approvals waiting: experts and health workers. */
export type Waiting = { experts: number; workers: number };
type NavGroup = { group: string; label: string; icon: NavIconName; items: NavItem[]; alsoActive?: string[] };
export type NavEntry = NavItem | NavGroup;

export const TITLE_KEY: Record<AccountType, string> = {
  Patient: "dashboard.patientTitle",
  Expert: "dashboard.expertTitle",
  Admin: "dashboard.adminTitle",
  HealthWorker: "care.healthWorkerTitle",
};

/** The sidebar of each account type, exactly as in the spec's table (plus the admin's audit log and messages). */
export function sidebarFor(
  user: Pick<DashboardUser, "id" | "accountType">,
  t: (k: string) => string,
  waiting: Waiting | null = null,
): NavEntry[] {
  const all: NavEntry[] = [
    { to: "/dashboard/home", label: t("dashboard.home"), icon: "home" },
    { to: "/dashboard/my-profile", label: t("dashboard.myProfile"), icon: "user" },
  ];
  switch (user.accountType) {
    case "Patient":
      return [
        ...all,
        {
          group: "report",
          label: t("dashboard.report"),
          icon: "report",
          // Sharing a report with a doctor belongs to the patient's reports.
          alsoActive: ["/dashboard/share"],
          items: [
            { to: "/dashboard/upload-report", label: t("dashboard.uploadReport"), icon: "upload" },
            {
              to: `/dashboard/previous-report/${user.id}`,
              label: t("dashboard.previousReport"),
              icon: "history",
            },
          ],
        },
        // Dependants: whose reports the patient manages (decision 0030).
        { to: "/dashboard/family", label: t("care.navFamily"), icon: "user" },
        // Consents, requests, erasure, nominee: the patient's own entry (others reach it from Settings).
        { to: "/dashboard/my-data", label: t("rights.navMyData"), icon: "shield" },
        // What this phone keeps to send, and the forms that work without a connection (decision 0063).
        { to: "/offline", label: t("offline.nav"), icon: "list" },
      ];
    case "HealthWorker":
      return [
        ...all,
        { to: "/dashboard/centre", label: t("care.navCentre"), icon: "history" },
        // The centre's worklist of next steps (decision 0114), beside its patients.
        { to: "/dashboard/centre/steps", label: t("worklist.nav"), icon: "clock" },
        { to: "/dashboard/centre/register", label: t("care.navRegister"), icon: "user" },
        { to: "/dashboard/upload-report", label: t("dashboard.uploadReport"), icon: "upload" },
        { to: "/offline", label: t("offline.nav"), icon: "list" },
      ];
    case "Expert":
      return [
        ...all,
        {
          group: "report",
          label: t("dashboard.report"),
          icon: "report",
          // Adding a review belongs to the pending-report flow.
          alsoActive: ["/dashboard/add-review"],
          items: [
            { to: "/dashboard/pending-report", label: t("dashboard.pendingReport"), icon: "clock" },
            {
              to: "/dashboard/previous-reviewed-report",
              label: t("dashboard.previousReviewedReport"),
              icon: "history",
            },
            { to: "/dashboard/follow-ups", label: t("dashboard.followUps"), icon: "chat" },
          ],
        },
      ];
    case "Admin":
      return [
        ...all,
        {
          group: "report",
          label: t("dashboard.report"),
          icon: "report",
          items: [
            { to: "/dashboard/pending-report", label: t("dashboard.pendingReport"), icon: "clock" },
            {
              to: "/dashboard/previous-reviewed-reports",
              label: t("dashboard.previousReviewedReport"),
              icon: "history",
            },
            { to: "/dashboard/turnaround", label: t("dashboard.turnaround"), icon: "gauge" },
          ],
        },
        {
          to: "/dashboard/pending-expert",
          label: t("dashboard.pendingExpert"),
          icon: "userPlus",
          count: waiting?.experts,
        },
        // Health workers waiting for approval, counted as experts are (they are approved on Centres).
        {
          to: "/dashboard/centres/workers",
          label: t("dashboard.pendingWorkers"),
          icon: "userPlus",
          count: waiting?.workers,
        },
        { to: "/dashboard/approved-expert", label: t("dashboard.approvedExperts"), icon: "users" },
        { to: "/dashboard/users", label: t("dashboard.users"), icon: "users" },
        { to: "/dashboard/centres", label: t("care.navCentres"), icon: "gauge" },
        { to: "/dashboard/audit-log", label: t("dashboard.auditLog"), icon: "list" },
        { to: "/dashboard/messages", label: t("dashboard.messages"), icon: "mail" },
        // Sentences with reviewed translations that experts choose beside an opinion (decision 0081).
        { to: "/dashboard/phrases", label: t("phrases.nav"), icon: "list" },
        // The lab words a patient reads, reviewed and corrected by the clinic (decision 0108).
        { to: "/dashboard/lab-words", label: t("labWords.nav"), icon: "list" },
        { to: "/dashboard/rights-requests", label: t("rights.navRequests"), icon: "shield" },
        // Take-overs to review and undo (decision 0055).
        { to: "/dashboard/take-overs", label: t("family.takeOversTitle"), icon: "shield" },
        // How the service is doing: requests, response times, queues (decision 0034).
        { to: "/dashboard/service", label: t("service.nav"), icon: "gauge" },
      ];
  }
}

/** Whether `pathname` is `to` or below it (so a plural path never matches its singular). */
export function isUnder(pathname: string, to: string) {
  return pathname === to || pathname.startsWith(`${to}/`);
}
