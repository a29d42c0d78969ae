import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { config } from "~/config.server";
import { findUserById } from "~/domain/accounts/index.server";
import { centreQueue, familyProfiles, getCarePatient, workerCentreId } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import type { Actor } from "~/domain/accounts/index.server";
import { requireActor } from "~/web/auth.server";
import { countryCodeOptions, type CountryCodeOption } from "~/lib/country-codes.server";
import { splitE164 } from "~/lib/phone.server";
import { uploadActionOnce } from "./upload.server";
import { UploadForm } from "./UploadForm";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const title = t("reports.uploadTitle");
  const maxBytes = config().maxUploadBytes;
  const worker = actor.accountType === "HealthWorker";
  if (actor.accountType !== "Patient" && !(worker && (await workerCentreId(actor)))) {
    // Experts, admins, health workers awaiting approval: the dashboard says why, not the not-found page.
    return data(
      {
        title,
        notAllowed: t(worker ? "care.awaitApproval" : "reports.patientsOnly"),
        whose: null as Whose | null,
        countryCodes: [] as CountryCodeOption[],
        studyBytes: 0,
        maxBytes,
        owner: "",
        forPatient: false,
        contact: { countryCode: "+91", phoneNumber: "" },
      },
      { status: 403 },
    );
  }
  const whose = await whoseChoices(actor, new URL(request.url).searchParams);
  // Whose number the expert may call: the uploader's own (the mobile number a phone patient signed up
  // with); when a health worker or a family member sends for someone else, that person's number on
  // their profile, or nothing — never the sender's own.
  const forPatient = worker || (!!whose?.selected && whose.selected !== actor.id);
  let contact: { countryCode: string; phoneNumber: string };
  if (forPatient) {
    const p = whose?.selected
      ? await getCarePatient(actor, whose.selected, { trace: false }).catch(() => null)
      : null;
    const theirs = splitE164(p?.phone);
    contact = { countryCode: theirs?.countryCode ?? "+91", phoneNumber: theirs?.national ?? "" };
  } else {
    const user = await findUserById(actor.id);
    const mobile = splitE164(user?.phone);
    contact = {
      countryCode: mobile?.countryCode ?? user?.countryCode ?? "+91",
      phoneNumber: mobile?.national ?? user?.contactNumber ?? "",
    };
  }
  // `owner` keeps one account's unfinished uploads apart from another's on a shared phone.
  return {
    title,
    notAllowed: null,
    forPatient,
    whose,
    countryCodes: countryCodeOptions(locale),
    maxBytes,
    studyBytes: config().maxStudyBytes,
    owner: actor.id,
    contact,
  };
}

/** Whose report an upload may be: a worker's centre patients (searched), or a family's members. */
export type Whose = {
  kind: "centre" | "family";
  options: { id: string; label: string }[];
  selected: string;
  q: string;
};

async function whoseChoices(actor: Actor, params: URLSearchParams): Promise<Whose | null> {
  const asked = params.get("patient") ?? "";
  if (actor.accountType === "HealthWorker") {
    const q = (params.get("q") ?? "").slice(0, 100);
    const page = await centreQueue(actor, { page: 1, pageSize: 100 }, { q });
    const options = page.items.map((p) => ({
      id: p._id,
      label: `${p.firstName} ${p.lastName}`.trim() + (p.shortId ? ` (${p.shortId})` : ""),
    }));
    if (asked && !options.some((o) => o.id === asked)) {
      const p = await getCarePatient(actor, asked, { trace: false }).catch(() => null);
      if (p?.access === "centre")
        options.unshift({
          id: p._id,
          label: `${p.firstName} ${p.lastName}`.trim() + ` (${p.shortId ?? ""})`,
        });
    }
    return { kind: "centre", options, selected: options.some((o) => o.id === asked) ? asked : "", q };
  }
  const family = await familyProfiles(actor);
  if (family.length < 2) return null;
  const options = family.map((p) => ({
    id: p.id,
    label: `${p.firstName} ${p.lastName}`.trim() + (p.relationship ? ` (${p.relationship})` : ""),
  }));
  return { kind: "family", options, selected: options.some((o) => o.id === asked) ? asked : actor.id, q: "" };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action(args: ActionFunctionArgs) {
  return uploadActionOnce(args);
}

export default function UploadReport() {
  const { t } = useTranslation();
  const { countryCodes, maxBytes, studyBytes, notAllowed, owner, contact, whose, forPatient } =
    useLoaderData<typeof loader>();
  if (notAllowed) return <NotAllowed title={t("reports.uploadTitle")} message={notAllowed} />;
  return (
    <UploadForm
      countryCodes={countryCodes}
      maxBytes={maxBytes}
      studyBytes={studyBytes}
      owner={owner}
      contact={contact}
      whose={whose}
      forPatient={forPatient}
    />
  );
}
