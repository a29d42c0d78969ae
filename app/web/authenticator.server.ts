import { AsyncLocalStorage } from "node:async_hooks";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { login } from "~/domain/accounts/index.server";
import { UNKNOWN_CLIENT, type Client } from "~/domain/platform/client";
import { DomainError } from "~/domain/platform/errors";
import { loginSchema } from "~/schemas/auth";
import { fieldErrors } from "./api.server";

type LoginResult = Awaited<ReturnType<typeof login>>;

/** remix-auth with the form strategy: the browser login checks credentials through the accounts domain. */
const authenticator = new Authenticator<LoginResult>();

/** remix-auth hands the strategy a copy of the Request only; the resolved client travels beside it. */
const currentClient = new AsyncLocalStorage<Client>();

authenticator.use(
  new FormStrategy(async ({ form }) => {
    const parsed = loginSchema.safeParse({
      email: form.get("email") ?? undefined,
      password: form.get("password") ?? undefined,
    });
    if (!parsed.success) {
      throw new DomainError("invalid", "validation.invalidInput", { fieldErrors: fieldErrors(parsed.error) });
    }
    return login(parsed.data, currentClient.getStore() ?? UNKNOWN_CLIENT, "web");
  }),
  "form",
);

/** The browser login: remix-auth's form strategy for the request, as this client. */
export function authenticateForm(request: Request, client: Client): Promise<LoginResult> {
  return currentClient.run(client, () => authenticator.authenticate("form", request));
}
