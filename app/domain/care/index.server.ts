/**
 * Care: the people CareBridge serves and who acts for them (decision 0030).
 *
 * - patients: patient profiles apart from logins, the one rule of who may act for a profile
 *   (self, family manager, centre, admin), the access trail, short IDs.
 *
 * Other contexts and the adapters import from here; modules inside the domain import the module
 * they need directly, so the indexes never form an import circle.
 */
export * from "./patients.server";
export * from "./notices.server";
export * from "./access.server";
