/** Reminders of an opinion's next steps by SMS, call or e-mail (decision 0114). */
const reminders = {
  smsPurpose: "Next step reminder",
  what: {
    tests: "repeat tests",
    specialist: "visit to a specialist",
    facility: "hospital visit",
  },
  sms: {
    soon: "{{product}}: reminder, your {{what}} is due on {{date}}. Reply 1 done, 2 remind me later, 3 I cannot go.",
    today:
      "{{product}}: reminder, your {{what}} is due today. Reply 1 done, 2 remind me later, 3 I cannot go.",
    later:
      "{{product}}: reminder, your {{what}} was due on {{date}}. Reply 1 done, 2 remind me later, 3 I cannot go.",
  },
  mail: {
    subject: "Reminder: your {{what}}",
    body: {
      soon: "Your {{what}} is due on {{date}}. Open {{product}} to see the details or to say it is done.",
      today: "Your {{what}} is due today. Open {{product}} to see the details or to say it is done.",
      later: "Your {{what}} was due on {{date}}. Open {{product}} to see the details or to say it is done.",
    },
    action: "Open my next steps",
  },
  reply: {
    done: "Thank you. We have noted that it is done.",
    later: "We will remind you again tomorrow.",
    declined: "We have noted that you cannot go. Your health worker or doctor may contact you.",
    unknown: "Please reply 1 (done), 2 (remind me later) or 3 (I cannot go).",
    none: "There is no reminder waiting for an answer.",
  },
  cannotGoReason: "The patient said she cannot go.",
  checkFields: "Please check the highlighted fields.",
  noPhone: "There is no phone number on record for SMS or calls.",
  noEmail: "There is no e-mail address on the account.",
  offRequired: "Say whether reminders are off.",
  reportRequired: "Choose the report.",
  notAnOffer: "This report cannot be attached to this step.",
  alreadyAttached: "A report is already attached to this step.",
  saved: "Reminder settings saved.",
  attached: "The report is attached to the step.",
  title: "Reminders",
  intro:
    "We remind you of the next steps your doctor gave you: a few days before each is due, and on the day.",
  byLabel: "Remind me by",
  by: {
    sms: "SMS",
    call: "Phone call",
    email: "E-mail",
    none: "Do not remind me",
  },
  hourLabel: "At this hour",
  hourValue: "{{hour}}:00",
  phone: "Number: {{phone}}",
  noPhoneYet: "No phone number on record.",
  callNeedsProof:
    "A call needs this number proven to be yours first (see “Hearing about your opinion” above).",
  save: "Save",
  answerHint: "Answer a reminder SMS with 1 (done), 2 (remind me later) or 3 (I cannot go).",
  repeatIntro:
    "This report is the repeat test you asked for in an earlier opinion: its values are drawn beside the earlier ones.",
};
export default reminders;
