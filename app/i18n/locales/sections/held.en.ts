/** Held items (decision 0065): offline work of a suspended or moved health worker, kept for the centre. */
const held = {
  suspendedReason: "Your account was suspended by an admin, so this was not sent.",
  movedReason: "You were moved to {{to}}; this was recorded at {{from}}.",
  keptFor:
    "What you recorded offline is kept for {{centre}}: an admin there can hand it to another health worker.",
  notKept:
    "It could not be kept for {{centre}}: {{max}} of your items are already waiting there. It stays on this phone; ask the centre's admin.",
  sendWhole: "Send it again whole to keep it for {{centre}}.",
  listed: "Held items",
  handedOver: "Handed over.",
  notFound: "This held item was not found at this centre.",
  alreadyHanded: "This item was already handed to a health worker.",
  chooseWorker: "Choose a health worker of this centre.",
  workerNotHere:
    "This health worker does not work at this centre. Choose one of its approved health workers.",
  workerSuspended: "This health worker is suspended. Choose another.",
  workerNotApproved: "This health worker is not approved yet. Choose another.",
  mailSubject: "Work handed to you at {{centre}}",
  mailBody:
    "An admin handed you something {{worker}} recorded offline at {{centre}}. It has been done in your name:",
  mailAction: "Open the centre",
  kind: {
    register: "Patient registration",
    upload: "Report upload",
    voice: "Voice note",
    "follow-up": "Follow-up question",
  },
  reason: {
    suspended: "Worker suspended",
    moved: "Worker moved",
  },
  status: {
    held: "Waiting",
    handing: "Being handed over",
    handed: "Handed over",
  },
  title: "Kept for this centre",
  intro:
    "Work a health worker recorded offline after they were suspended or moved. Hand each item to an approved health worker of this centre: it is then done once, in their name.",
  none: "Nothing is waiting.",
  colKind: "What",
  colRecordedBy: "Recorded by",
  colReason: "Why it is held",
  colRecordedAt: "Received",
  colStatus: "Status",
  handTo: "Hand to",
  handButton: "Hand over",
  noWorkers: "No approved health worker at this centre to hand it to.",
  movedNotKept: {
    after:
      "This was recorded after you moved from {{from}} to {{to}} on {{date}}, so it cannot be filed for {{from}}. Record it again at {{to}}.",
    unknown:
      "This phone did not say when this was recorded, so it cannot be filed for {{from}}, which you left on {{date}}. Update the app and send it again, or record it again at {{to}}.",
    expired:
      "You moved from {{from}} to {{to}} on {{date}}, more than {{days}} days ago: work recorded there can no longer be sent. Ask the admin of {{from}}.",
  },
};
export default held;
