import type { MetaDescriptor } from "@remix-run/node";
import { site } from "~/site";

type MetaArgs = {
  data?: { title?: string } | null | unknown;
  matches: { id: string; meta: MetaDescriptor[] }[];
};

/** "<page> | CareBridge", keeping the root's description. */
export function screenMeta({ data, matches }: MetaArgs): MetaDescriptor[] {
  const title = (data as { title?: string } | null | undefined)?.title;
  return [
    ...(matches.find((m) => m.id === "root")?.meta ?? []).filter((m) => !("title" in m)),
    { title: title ? `${title} | ${site.productName}` : site.productName },
  ];
}
