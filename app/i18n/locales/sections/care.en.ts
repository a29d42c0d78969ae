/** Care through centres and families (decision 0030): what every part of it shares. */
const care = {
  healthWorkerTitle: "Health worker",
  healthWorkerWelcome:
    "Register the patients who come to your centre, send their reports for a second opinion and print the answer for them.",
  navCentre: "Centre patients",
  navRegister: "Register a patient",
  navFamily: "Family",
  navCentres: "Centres",
  awaitApproval: "An admin has not approved your health worker account yet.",
  choosePatient: "Choose whose report this is.",
  notYourPatient: "You cannot send a report for this person.",
  consentMissing: "This person's consent is not recorded. Record it before sending a report.",
};
export default care;
