import type { AccountType } from "~/db/schema";

/**
 * The signed-in user as the domain sees them. Accounts makes it (sessions, tokens); every context
 * reads it, so it lives here, in the context that depends on none.
 */
export type Actor = {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  accountType: AccountType;
  approved: boolean;
  image: string | null;
  locale: string;
  sessionId: string;
  /**
   * An expert's specialties, when the actor came from a session lookup (which reads them in the
   * same statement, so the queue needs no second round trip); absent on actors made otherwise.
   */
  specialties?: readonly string[];
};
