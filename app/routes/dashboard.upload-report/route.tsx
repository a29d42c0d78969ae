import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { config } from "~/config.server";
import { findUserById } from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/utils/auth.server";
import { countryCodeOptions, type CountryCodeOption } from "~/utils/country-codes.server";
import { splitE164 } from "~/utils/phone.server";
import { uploadAction } from "./upload.server";
import { UploadForm } from "./UploadForm";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const title = t("reports.uploadTitle");
  const maxBytes = config().maxUploadBytes;
  if (actor.accountType !== "Patient") {
    // Experts and admins: the dashboard says why, not the not-found page.
    return data(
      {
        title,
        notAllowed: t("reports.patientsOnly"),
        countryCodes: [] as CountryCodeOption[],
        maxBytes,
        owner: "",
        contact: { countryCode: "+91", phoneNumber: "" },
      },
      { status: 403 },
    );
  }
  // The number to call is filled in from the account (the mobile number a phone patient signed up with).
  const user = await findUserById(actor.id);
  const mobile = splitE164(user?.phone);
  const contact = {
    countryCode: mobile?.countryCode ?? user?.countryCode ?? "+91",
    phoneNumber: mobile?.national ?? user?.contactNumber ?? "",
  };
  // `owner` keeps one account's unfinished uploads apart from another's on a shared phone.
  return {
    title,
    notAllowed: null,
    countryCodes: countryCodeOptions(locale),
    maxBytes,
    owner: actor.id,
    contact,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action(args: ActionFunctionArgs) {
  return uploadAction(args);
}

export default function UploadReport() {
  const { t } = useTranslation();
  const { countryCodes, maxBytes, notAllowed, owner, contact } = useLoaderData<typeof loader>();
  if (notAllowed) return <NotAllowed title={t("reports.uploadTitle")} message={notAllowed} />;
  return <UploadForm countryCodes={countryCodes} maxBytes={maxBytes} owner={owner} contact={contact} />;
}
