import type { AppLoadContext } from "@remix-run/node";
import {
  HELD_PER_WORKER,
  MOVED_ITEMS_DAYS,
  holdBudget,
  holdItem,
  outboxRefusal,
  type HeldKind,
} from "~/domain/consultation/index.server";
import { isDomainError } from "~/domain/platform/errors";
import { answeredIdempotencyKey } from "~/domain/platform/index.server";
import type { UploadKind } from "~/domain/records/index.server";
import { tFor } from "~/i18n/i18n.server";
import { newId } from "~/lib/ids.server";
import { errorResponse, isOutboxRequest, jsonResponse, readJson } from "./api.server";
import { asRefusal } from "./faults.server";
import { log } from "~/lib/log.server";
import { parseUpload } from "./multipart.server";
import { replay } from "./idempotency.server";
import { DEFAULT_TIME_ZONE, formatDay } from "~/lib/format";
import { clientOf } from "./request.server";
import { actorFromCookie, sessionCookie } from "./session-cookie.server";

/** Why a moved worker's item was not kept for the old centre, in words (decision 0073). */
const NOT_KEPT_KEY = {
  after: "held.movedNotKept.after",
  unknown: "held.movedNotKept.unknown",
  expired: "held.movedNotKept.expired",
} as const;
/**
 * The HTTP half of held items (decision 0065). Before a create endpoint runs for the app's offline
 * outbox, this asks whether the item's worker was suspended (their ended session's tombstone) or
 * moved away from the centre the item was recorded at (`X-CareBridge-Centre`). If so the item is
 * refused with the reason — 403 suspended, 409 moved — and kept for that centre:
 * `{ success: false, message, reason, centre: { _id, name }, held: true, heldItem }`
 * (`held: false` when the worker's cap of waiting items is reached, or, for a resumable upload's
 * creation that carries no bytes, with `holdAt`: the multipart endpoint to send it whole to).
 * Anything else — no outbox header, a live session at the right centre, no session — goes on as
 * before (null).
 */
export const CENTRE_HEADER = "X-CareBridge-Centre";
/** When the phone recorded the item (ISO-8601): a moved worker's item is kept only if before the move. */
export const RECORDED_AT_HEADER = "X-CareBridge-Recorded-At";
const KEY = /^[\x20-\x7e]{1,255}$/;

export type HoldSpec = {
  kind: HeldKind;
  /** Multipart with this file field; JSON otherwise. */
  file?: { field: string; kind: UploadKind; maxBytes: number };
  /** A follow-up's report (from the path). */
  reportId?: string;
  /** Refuse without keeping: the item is to be sent whole to this endpoint. */
  wholeAt?: string;
};

export async function holdRefusedOutbox(
  request: Request,
  context: AppLoadContext,
  spec: HoldSpec,
): Promise<Response | null> {
  if (!isOutboxRequest(request)) return null;
  const { t, locale } = await tFor(request);
  try {
    const actor = await actorFromCookie(request);
    const endedToken = actor ? null : await sessionCookie().parse(request.headers.get("Cookie"));
    const refusal = await outboxRefusal({
      actor,
      endedToken,
      claimedCentreId: request.headers.get(CENTRE_HEADER),
      recordedAt: request.headers.get(RECORDED_AT_HEADER),
    });
    if (!refusal) return null;
    const key = request.headers.get("Idempotency-Key");
    const usable = key && KEY.test(key) ? key : null;
    // Created before the suspension and its answer lost: that answer again, nothing kept twice.
    const answered = usable ? await answeredIdempotencyKey(refusal.worker._id, usable) : null;
    if (answered) return replay(answered);
    const status = refusal.reason === "suspended" ? 403 : 409;
    const centre = refusal.centre.name;
    const why =
      refusal.reason === "suspended"
        ? t("held.suspendedReason")
        : t("held.movedReason", { to: refusal.movedTo?.name ?? "", from: centre });
    const base = { success: false, reason: refusal.reason, centre: refusal.centre };
    if (refusal.notKept) {
      // Recorded after the move (or the move is long past): not the old centre's, nothing kept (0073).
      const date = formatDay(refusal.movedAt ?? "", locale, DEFAULT_TIME_ZONE);
      const message = t(NOT_KEPT_KEY[refusal.notKept], {
        from: centre,
        to: refusal.movedTo?.name ?? "",
        date,
        days: MOVED_ITEMS_DAYS,
      });
      return jsonResponse({ ...base, message, held: false, notKept: refusal.notKept }, 409);
    }
    if (spec.wholeAt) {
      const message = `${why} ${t("held.sendWhole", { centre })}`;
      return jsonResponse({ ...base, message, held: false, holdAt: spec.wholeAt }, status);
    }
    const client = clientOf(context);
    await holdBudget(refusal, spec.kind, client);
    let fields: Record<string, unknown>;
    let file = null;
    if (spec.file) {
      ({ fields, file } = await parseUpload(request, {
        fileField: spec.file.field,
        kind: spec.file.kind,
        maxBytes: spec.file.maxBytes,
      }));
    } else fields = await readJson(request);
    if (spec.reportId !== undefined) fields = { ...fields, reportId: spec.reportId };
    const item = await holdItem(refusal, { kind: spec.kind, key: usable ?? newId(), fields, file }, client);
    if (!item) {
      const message = `${why} ${t("held.notKept", { centre, max: HELD_PER_WORKER })}`;
      return jsonResponse({ ...base, message, held: false }, status);
    }
    const message = `${why} ${t("held.keptFor", { centre })}`;
    return jsonResponse({ ...base, message, held: true, heldItem: item }, status);
  } catch (err) {
    const refusal = isDomainError(err) ? err : asRefusal(err);
    if (isDomainError(refusal)) return errorResponse(refusal, t);
    log("error", "api fault", {
      path: new URL(request.url).pathname,
      error: String((err as Error)?.stack ?? err),
    });
    return jsonResponse({ success: false, message: t("errors.serverError") }, 500);
  }
}
