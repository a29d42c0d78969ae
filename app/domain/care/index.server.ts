/**
 * Care: the people CareBridge serves and who acts for them (decision 0030).
 *
 * - patients: patient profiles apart from logins, the one rule of who may act for a profile
 *   (self, family manager, centre, admin), the access trail, short IDs.
 * - family: a patient account's dependants (added with a guardian's or the person's consent).
 * - takeover: a dependant or a centre's patient taking their profile over with their own number.
 * - registration: a centre registers a patient after the facilitated consent; one patient's page.
 * - centre-queue: a centre's patients with where their reports stand.
 * - centres: the admin's centres, their figures (turnaround, overdue) and the public directory.
 * - workers: health workers' approval, rejection, moves and suspension.
 *
 * Other contexts and the adapters import from here; modules inside the domain import the module
 * they need directly, so the indexes never form an import circle.
 */
export * from "./patients.server";
export * from "./notices.server";
export * from "./family.server";
export * from "./takeover.server";
export * from "./registration.server";
export * from "./centre-queue.server";
export * from "./centres.server";
export * from "./workers.server";
export * from "./access.server";
