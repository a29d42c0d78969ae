/** Working without a connection (decision 0063): the outbox, the room left, the offline forms. */
const offline = {
  title: "Offline and outbox",
  nav: "Offline and outbox",
  needsScript: "This screen needs JavaScript to keep your work on this phone.",
  online: "You are online. What you keep here is sent at once.",
  offline:
    "You are offline. What you do is kept on this phone, locked, and sent when the connection returns.",
  sections: "Offline sections",
  tabs: {
    outbox: "Outbox",
    register: "Register a patient",
    upload: "Upload a report",
    "follow-up": "Ask a follow-up",
  },
  outboxTitle: "Outbox",
  sendNow: "Send now",
  waitingCount: "Waiting to be sent: {{count}}",
  nothingWaiting: "Nothing is waiting to be sent.",
  kinds: {
    register: "Registration",
    upload: "Report",
    voice: "Voice description",
    "follow-up": "Follow-up question",
  },
  states: {
    waiting: "Waiting",
    sending: "Sending",
    sent: "Sent",
    "needs-you": "Needs you",
  },
  progress: "{{sent}} of {{total}} MB sent",
  signInToSend: "Sign in again to send this.",
  refusedGeneric: "The server did not accept this.",
  whatToDo: "Check the details, then try again. If it is refused again, remove it and record it anew.",
  heldWhatToDo:
    "Your centre has this now: an admin can hand it to another health worker there. You can remove it from this phone.",
  waitsForWhatToDo:
    "This goes after the item above it, which was not accepted. It stays on this phone until that one is sorted out.",
  tryAgain: "Try again",
  remove: "Remove",
  removeConfirm: "Remove this item from the outbox? It has not been sent and cannot be brought back.",
  storageTitle: "Space on this phone",
  storageUsed: "Used: {{used}} MB. Left: {{left}} MB.",
  storageKept: "The browser keeps this data even when the phone runs short of space.",
  storageNotKept:
    "The browser may clear this data if the phone runs short of space. Send what waits when you can.",
  noRoom:
    "This phone is nearly out of space for the app ({{left}} MB left). Send what is waiting first, then take the photo again.",
  keepFailed: "This could not be kept on the phone. Try again.",
  uploadTitle: "Upload a report",
  whichPatient: "Patient",
  whoseReport: "Whose report is it?",
  voiceTitle: "Voice description",
  uploadConsent: "The patient agrees that a verified expert reads this report and writes a second opinion.",
  keep: "Keep and send",
  noOpinionsYet: "No opinions have arrived yet for the patients on this phone.",
  followUpTitle: "Ask a follow-up",
  question: "The patient's question",
  labelRegister: "Registration: {{name}}",
  labelUpload: "Report for {{name}}",
  labelVoice: "Voice description for {{name}}",
  labelFollowUp: "Follow-up question for {{name}}",
  slipReference: "Reference on this phone",
  slipPending:
    "Registered offline. The patient's ID is given once this phone is back online; the centre can find the patient by this reference and name.",
  backToOutbox: "Back to the outbox",
  signedOut: "Nobody is signed in on this phone. Sign in to see and send your own outbox.",
  signIn: "Sign in",
  queueTitle: "The centre's patients",
  asOf: "As of {{time}}",
  noQueueYet: "The list has not been synced yet. Open the centre's screen once while online.",
  logoutWaiting:
    "{{count}} item(s) are still waiting to be sent. They stay on this phone, locked, and are sent when you sign in again. Nobody else who signs in here can see them.",
};

export default offline;
