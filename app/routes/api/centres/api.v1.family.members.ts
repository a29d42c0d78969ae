import { addFamilyMember, listFamily } from "~/domain/care/index.server";
import { DomainError } from "~/domain/platform/errors";
import { api, apiRoute, JSON_MAX_BYTES, readJson, requireApiActor } from "~/web/api.server";
import { idempotent } from "~/web/idempotency.server";
import { clientOf } from "~/web/request.server";

/**
 * A patient account's family (decision 0030): the profiles it acts for (its own first), and a new
 * family member added with a guardian's consent (a child) or the person's own (an adult).
 */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return { message: "family.listSuccess", data: await listFamily(actor) };
    }),
  POST: (request, _params, context) =>
    idempotent(request, { maxBytes: JSON_MAX_BYTES, reread: rereadMember }, (request) =>
      api(request, async () => {
        const actor = await requireApiActor(request);
        const body = await readJson(request);
        const member = await addFamilyMember(actor, body, { ip: clientOf(context).ip });
        return { status: 201, message: "family.addSuccess", data: member };
      }),
    ),
});
/** A replayed new member: as the account's family list shows them today (decision 0074). */
async function rereadMember(actor: Parameters<typeof listFamily>[0], id: string) {
  const member = (await listFamily(actor)).find((m) => m._id === id);
  if (!member) throw new DomainError("forbidden", "family.notYours");
  return member;
}
export const loader = route.loader;
export const action = route.action;
