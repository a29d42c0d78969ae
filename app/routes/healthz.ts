import { sqlite } from "~/db/client.server";

export function loader() {
  try {
    sqlite().prepare("select 1").get();
    return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
  } catch {
    return Response.json({ status: "error" }, { status: 503, headers: { "Cache-Control": "no-store" } });
  }
}
