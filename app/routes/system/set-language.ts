import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { setUserLocale } from "~/domain/accounts/index.server";
import { actorFromCookie } from "~/web/session-cookie.server";
import { isLocale } from "~/i18n/config";
import { localeCookie } from "~/i18n/i18n.server";
import { readForm, safeRedirect } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";

export async function action({ request }: ActionFunctionArgs) {
  await guardForm(request);
  const form = await readForm(request);
  const lng = form.get("lng");
  const to = safeRedirect(form.get("redirectTo"));
  if (!isLocale(lng)) return redirect(to);
  const actor = await actorFromCookie(request);
  if (actor) await setUserLocale(actor.id, lng);
  return redirect(to, { headers: { "Set-Cookie": await localeCookie.serialize(lng) } });
}

export const loader = () => redirect("/");
