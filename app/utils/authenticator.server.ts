import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { login } from "~/domain/accounts.server";
import { DomainError } from "~/domain/errors";
import { loginSchema } from "~/schemas/auth";
import { fieldErrors } from "./api.server";

type LoginResult = Awaited<ReturnType<typeof login>>;

/** remix-auth with the form strategy: the browser login checks credentials through the accounts domain. */
export const authenticator = new Authenticator<LoginResult>();

authenticator.use(
  new FormStrategy(async ({ form, request }) => {
    const parsed = loginSchema.safeParse({
      email: form.get("email") ?? undefined,
      password: form.get("password") ?? undefined,
    });
    if (!parsed.success) {
      throw new DomainError("invalid", "validation.invalidInput", { fieldErrors: fieldErrors(parsed.error) });
    }
    return login(parsed.data, request, "web");
  }),
  "form",
);
