/** Phone calls (decision 0080): what a call says, in the person's language, and its line in the access trail. */
const phonecall = {
  greeting: "Hello.",
  from: "This call is from {{name}}.",
  askYear: "To hear your message, please press the year you were born, four digits, on your phone's keypad.",
  askAgain: "That did not match. Please press the year you were born again.",
  notVerified:
    "We could not confirm who you are. Please visit your health centre or open CareBridge on a phone. Goodbye.",
  noSecret: "We cannot confirm who you are by phone. Please visit your health centre. Goodbye.",
  readyOne: "One opinion on your reports is ready.",
  readyMany: "{{count}} opinions on your reports are ready.",
  noneReady: "No opinion is ready yet. We will call you when it is. Goodbye.",
  doctorSaid: "The doctor recorded this message for you.",
  doctorWrote: "The doctor wrote:",
  readInApp: "The doctor's full opinion is in CareBridge. Your health worker can read it to you.",
  menu: "Press 1 to hear this again. Press 2 to ask your health worker or the clinic to call you. Press 9 to hear these choices again.",
  callbackAsked: "Thank you. We have asked your health worker or the clinic to call you. Goodbye.",
  general:
    "Hello. This is CareBridge, a service for second opinions on medical reports. To use it, please visit your health centre or ask your health worker. Goodbye.",
  badSignature: "This address is not valid for this call.",
  noNumber: "The caller's number is missing.",
  trailUnverified: "A phone call was answered, but the year of birth did not match: nothing was told",
  trailNoticeSet: "How opinions are told (SMS or a call) changed by {{who}}",
  trailProvenByCode: "Phone number for calls proven with a code sent to it, by {{who}}",
  trailProvenByMissedCall: "Phone number for calls proven by a missed call from it",
  trailHeard: "Opinion heard by phone",
  stepSoon: "This is a reminder: your {{what}} is due on {{date}}.",
  stepToday: "This is a reminder: your {{what}} is due today.",
  stepLate: "This is a reminder: your {{what}} was due on {{date}}.",
  stepMenu:
    "If it is done, press 1. To be reminded tomorrow, press 2. If you cannot go, press 3. To hear this again, press 9.",
};

export default phonecall;
