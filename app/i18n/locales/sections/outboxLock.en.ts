/** The outbox locked with the person's password (decision 0072). */
const outboxLock = {
  lockedNotice: "{{count}} item(s) wait on this phone, locked with your password.",
  open: "Open the outbox to send them",
  title: "Unlock your outbox",
  text: "What this phone keeps for you is locked with your password. Enter it to see and send your outbox.",
  earlierText:
    "This phone's outbox was locked with your earlier password. Enter that password once; after that your new one opens it.",
  password: "Password",
  unlock: "Unlock",
  unlocking: "Unlocking…",
  wrong: "That is not the password this phone's outbox is locked with.",
  signInWithPassword:
    "To keep work on this phone, sign out and sign in once with your password (not with a code). If you have no password yet, set one in Settings first.",
};

export default outboxLock;
