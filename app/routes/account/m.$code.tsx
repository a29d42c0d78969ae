import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { SHORT_LINKS, type ShortLink } from "~/domain/messaging/index.server";
import { requireActor } from "~/web/auth.server";

/**
 * The short links in SMS: `/m/o` is "my opinions", `/m/f` follow-ups and so on. They
 * hold no ids; signed out, the login page brings the person back here.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const code = params.code as ShortLink;
  if (code === "o") throw redirect(`${SHORT_LINKS.o}/${encodeURIComponent(actor.id)}`);
  throw redirect(Object.hasOwn(SHORT_LINKS, code) ? SHORT_LINKS[code] : "/dashboard/home");
}
