import { eq } from "drizzle-orm";
import { db, exec, first, transaction } from "~/db/client.server";
import { patients, profiles, users } from "~/db/schema";
import type { ProfileInput } from "~/schemas/auth";
export { DISPLAY_PICTURE_MAX_BYTES } from "~/schemas/auth";
import { DomainError } from "../platform/errors";
import { deleteStored, type StoredFile } from "../records/index.server";
import { type Actor } from "./sessions.server";
import { smsNumberOf } from "../messaging/index.server";
import type { NotifyChannel } from "~/db/types";
import { findUserById } from "./users.server";

/** The profile: reading it, the name and contact details, the notice channel, the display picture. */

export async function getProfile(userId: string) {
  const user = await findUserById(userId);
  if (!user) throw new DomainError("not_found", "api.notFound");
  const profile = await first(db().select().from(profiles).where(eq(profiles.userId, userId)));
  return { user, profile };
}

/**
 * Experts and admins choose e-mail, SMS or both for their notifications (decision 0020). SMS go to
 * their contact number, which must then be a valid mobile number. Patients do not choose: mail
 * when they have an e-mail address, SMS when they signed up with their mobile number.
 */
export async function setNotifyChannel(actor: Actor, channel: NotifyChannel) {
  if (actor.accountType === "Patient") throw new DomainError("forbidden", "profile.notifyPatients");
  const user = await findUserById(actor.id);
  if (!user) throw new DomainError("not_found", "api.notFound");
  if (channel !== "email" && !smsNumberOf(user)) {
    throw new DomainError("invalid", "profile.notifyNoMobile", {
      fieldErrors: { notify: ["profile.notifyNoMobile"] },
    });
  }
  await db().update(users).set({ notify: channel, updatedAt: new Date() }).where(eq(users.id, actor.id));
  return getProfile(actor.id);
}

export async function updateProfile(actor: Actor, input: ProfileInput) {
  const now = new Date();
  await transaction(function* (tx) {
    yield* exec(
      tx
        .update(users)
        .set({
          firstName: input.firstName,
          lastName: input.lastName ?? "",
          contactNumber: input.contactNumber,
          updatedAt: now,
        })
        .where(eq(users.id, actor.id)),
    );
    // The name is the person's: their own patient profile carries it too (decision 0030).
    yield* exec(
      tx
        .update(patients)
        .set({ firstName: input.firstName, lastName: input.lastName ?? "", updatedAt: now })
        .where(eq(patients.accountId, actor.id)),
    );
    yield* exec(
      tx
        .insert(profiles)
        .values({
          userId: actor.id,
          about: input.about,
          gender: input.gender,
          dateOfBirth: input.dateOfBirth,
          contactNumber: input.contactNumber,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          target: profiles.userId,
          set: {
            about: input.about,
            gender: input.gender,
            dateOfBirth: input.dateOfBirth,
            contactNumber: input.contactNumber,
            updatedAt: now,
          },
        }),
    );
  });
  return getProfile(actor.id);
}

/**
 * Makes an already stored (encrypted) image the account's display picture and removes the
 * previous one; with no file it is the field error "profile.pictureRequired". On failure the
 * new file is removed, so no file is left without an owner.
 */
export async function updateDisplayPicture(actor: Actor, file: StoredFile | null) {
  if (!file) {
    throw new DomainError("invalid", "profile.pictureRequired", {
      fieldErrors: { displayPicture: ["profile.pictureRequired"] },
    });
  }
  let previous: string | null;
  try {
    const user = await findUserById(actor.id);
    if (!user) throw new DomainError("not_authenticated", "api.notAuthenticated");
    previous = user.image;
    await db().update(users).set({ image: file.key, updatedAt: new Date() }).where(eq(users.id, actor.id));
  } catch (err) {
    await deleteStored(file.key).catch(() => {});
    throw err;
  }
  if (previous && previous !== file.key) await deleteStored(previous).catch(() => {});
  return getProfile(actor.id);
}
