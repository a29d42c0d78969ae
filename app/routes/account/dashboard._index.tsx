import { redirect } from "@remix-run/node";

/** /dashboard itself has no screen: the dashboard starts at Home. */
export const loader = () => redirect("/dashboard/home");
