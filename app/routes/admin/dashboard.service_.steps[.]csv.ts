import type { LoaderFunctionArgs } from "@remix-run/node";
import { stepWeeksCsv } from "~/domain/consultation/index.server";
import { requireRole } from "~/web/auth.server";

/**
 * Admin: the next steps' weekly figures (decision 0114) as CSV — steps due, overdue, closed and
 * closed on time per week over 12 weeks; every cell quoted, a leading = + - @ made text.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const csv = await stepWeeksCsv(actor);
  return new Response(csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": 'attachment; filename="next-steps-weekly.csv"',
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
