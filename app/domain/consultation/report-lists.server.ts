import type { ReportType } from "~/schemas/reports";
import type { Paged, PageQuery } from "../platform/paging";
import { accessTrailFromColumns, accessTrailsForReports, labelLinkOpens } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { specialtiesOf } from "../accounts/index.server";
import { hidePhonesOfFlagged } from "../rights/index.server";
import type { Actor } from "../platform/index.server";
import { reportTypesFor } from "~/schemas/specialties";
import { requirePatientAccessKind, traceAccess } from "../care/index.server";
import type { ApiReport, PatientReport } from "./api-report.server";
import { secondIdsOf, withFollowUpsOf, withSecondOpinions } from "./report-case.server";
import { pageOfSegments } from "./report-list-paging.server";
import { preparedSegment, secondsSegment, typesSegment, type Segment } from "./report-list-statements.server";
import { fromJoined, matches, requireApprovedExpert, type Joined } from "./report-rows.server";
import { withSteps } from "./next-steps.server";

/**
 * The report lists: the patient's reports (with the case's access trail), the pending queue for
 * experts and admins, the expert's reviewed reports, every reviewed report for admins and the
 * expert's follow-up threads. Every rule of the API contract lives here once; screens and /api/v1
 * routes both call these functions.
 */

/** The contact gate on a page of joined rows: they carry the patient's refusal already. */
function hidePhonesOfJoined<T extends { patient: { _id: string }; phoneNumber: string }>(
  viewer: Actor,
  items: T[],
  found: Joined[],
): T[] {
  const refusing = new Set(found.filter((r) => Number(r.refusesCalls) === 1).map((r) => r.patient.id));
  return hidePhonesOfFlagged(viewer, items, (r) => refusing.has(r.patient._id));
}

/** Experts whose account is not approved yet see patients masked. */
function masksFor(actor: Actor) {
  return actor.accountType === "Expert" && !actor.approved;
}

/** That patient or an Admin: the patient's reports, newest first, with who opened each file and the follow-ups. */
export async function listPatientReports(
  actor: Actor,
  patientId: string,
  page: PageQuery,
): Promise<Paged<PatientReport>> {
  // The page is asked for beside the access check (both keyed by the profile id) and thrown away
  // unless access is granted: a refusal wins over anything the page would have said.
  const [access, paged] = await Promise.allSettled([
    requirePatientAccessKind(actor, patientId),
    pageOfSegments([preparedSegment("patient", patientId)], page),
  ]);
  if (access.status === "rejected") throw access.reason;
  if (paged.status === "rejected") throw paged.reason;
  const { found, total, nextCursor } = paged.value;
  const listed = withFollowUpsOf(
    found.map((r) => fromJoined(r)),
    found,
  );
  // Each case's trail came with its row. A case's file is opened through its second opinions too
  // (their experts): their ids came with the rows, so their rows and trails are asked for side by
  // side, and only for the cases that have any.
  const trails = found.map(accessTrailFromColumns);
  const secondIds = found.flatMap(secondIdsOf);
  const asked = new Set(listed.filter((_, i) => found[i].secondIds).map((r) => r._id));
  const [seconds] = await Promise.all([
    secondIds.length ? accessTrailsForReports(secondIds, []) : undefined,
    // The opinions' next steps (decision 0114): her side and her centre, not admins.
    actor.accountType === "Admin" ? undefined : withSteps(listed),
    withSecondOpinions(listed, asked),
    labelLinkOpens(trails.map((t) => t.opens)),
    traceAccess(actor, access.value, "patient.reports_open"),
  ]);
  const items = hidePhonesOfJoined(actor, listed, found);
  const viewsOf = (i: number) =>
    [...trails[i].views, ...secondIdsOf(found[i]).flatMap((id) => seconds?.views.get(id) ?? [])].sort(
      (a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0),
    );
  return {
    items: items.map((r, i) => ({ ...r, fileViews: viewsOf(i), linkOpens: trails[i].opens })),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}

export type PendingOptions = {
  reportType?: ReportType | null;
  /** "newest" (the contract's default order) or "queue" (urgent first, then oldest). */
  sort?: "newest" | "queue";
  /** For experts: reports their specialties read "first" (then the rest), "only" those, or "all" alike. */
  match?: "all" | "first" | "only";
};

/**
 * Experts and Admins: reports waiting for a review — newest first (the contract), or as a queue
 * (urgent first, then oldest); experts may put the reports their specialties read first, or see
 * only those. A report someone is reviewing is in the list with `claimedBy` set.
 */
export async function listPendingReports(
  actor: Actor,
  page: PageQuery,
  opts: PendingOptions | ReportType | null = {},
): Promise<Paged<ApiReport>> {
  if (actor.accountType !== "Expert" && actor.accountType !== "Admin") {
    throw new DomainError("forbidden", "reports.expertsOrAdmins");
  }
  const o: PendingOptions = typeof opts === "string" || opts === null ? { reportType: opts } : opts;
  const queue = o.sort === "queue";
  const mySpecialties =
    actor.accountType === "Expert" ? (actor.specialties ?? (await specialtiesOf(actor.id))) : [];
  const mine = reportTypesFor(mySpecialties);
  let segments: Segment[];
  if (o.reportType) {
    segments = [preparedSegment(queue ? "queueOfType" : "pendingOfType", o.reportType)];
    if (o.match === "only" && actor.accountType === "Expert" && !mine.includes(o.reportType)) segments = [];
  } else if (actor.accountType === "Expert" && (o.match === "first" || o.match === "only")) {
    // Second opinions asked of the expert's specialties come first; those asked of others last.
    segments =
      o.match === "only"
        ? [secondsSegment(mySpecialties, true), typesSegment(mine, true)]
        : [
            secondsSegment(mySpecialties, true),
            typesSegment(mine, true),
            typesSegment(mine, false),
            secondsSegment(mySpecialties, false),
          ];
  } else {
    segments = [preparedSegment(queue ? "queue" : "pending", null)];
  }
  if (!segments.length)
    return { items: [], total: 0, page: page.page, pageSize: page.pageSize, nextCursor: null };
  const { found, total, nextCursor } = await pageOfSegments(segments, page);
  const mask = masksFor(actor);
  const items = found.map((r) => {
    const item = fromJoined(r, mask);
    if (actor.accountType === "Expert") item.matchesSpecialties = matches(item, mySpecialties);
    return item;
  });
  return {
    items: hidePhonesOfJoined(actor, items, found),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}

/** Expert: the reports they reviewed, with their follow-ups; Admin: every reviewed report. Newest review first. */
export async function listReviewedByExpert(actor: Actor, page: PageQuery): Promise<Paged<ApiReport>> {
  if (actor.accountType === "Admin") return listAllReviewed(actor, page);
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "reports.expertsOrAdmins");
  const { found, total, nextCursor } = await pageOfSegments([preparedSegment("expert", actor.id)], page);
  // Follow-ups reach the expert who holds them (the reviewer, unless an admin reassigned them).
  const items = withFollowUpsOf(
    found.map((r) => fromJoined(r, masksFor(actor))),
    found,
    (_, i) => found[i].report.followupExpertId === actor.id,
  );
  // The next steps the expert gave (decision 0114), once approved (awaiting approval masks the patient).
  if (actor.approved) await withSteps(items);
  return {
    items: hidePhonesOfJoined(actor, items, found),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}

/** Admin: every reviewed report with patient and expert names and follow-ups, newest review first. */
export async function listAllReviewed(actor: Actor, page: PageQuery): Promise<Paged<ApiReport>> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  const { found, total, nextCursor } = await pageOfSegments([preparedSegment("reviewed", null)], page);
  const items = withFollowUpsOf(
    found.map((r) => fromJoined(r)),
    found,
  );
  return {
    items: hidePhonesOfJoined(actor, items, found),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}

/** Expert: the reviewed reports whose follow-up questions they hold (their own, or reassigned to them). */
export async function listFollowUpThreads(actor: Actor, page: PageQuery): Promise<Paged<ApiReport>> {
  requireApprovedExpert(actor);
  const { found, total, nextCursor } = await pageOfSegments([preparedSegment("followups", actor.id)], page);
  const items = withFollowUpsOf(
    found.map((r) => fromJoined(r)),
    found,
  );
  await withSteps(items);
  return {
    items: hidePhonesOfJoined(actor, items, found),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}
