/** The phrase book (decision 0081): the opinion form's sentences, the patient's view, the admin's screen. */
const phrases = {
  tooMany: "Choose at most 12 sentences.",
  unknown: "One of the chosen sentences is not in the phrase book any more. Please choose again.",
  textTooLong: "Keep each sentence under 200 characters.",
  textRequired: "Write the sentence in every language.",
  kindRequired: "Choose whether it is a finding or advice.",
  reviewerRequired: "Say who reviewed the translations.",
  adminsOnly: "Only admins can change the phrase book.",
  checkFields: "Please check the highlighted fields.",
  notFound: "That phrase was not found.",
  added: "The phrase was added.",
  retiredDone: "The phrase was retired.",
  formLegend: "Sentences the patient reads and hears in her language",
  formHint:
    "Each sentence has a reviewed translation in Hindi, Bengali and Tamil. Your free text above is shown as you wrote it.",
  finding: "Findings",
  advice: "Advice",
  doctorSays: "The doctor says",
  title: "Phrase book",
  intro:
    "Sentences experts can choose beside an opinion. Patients read and hear them in their language, so every translation must be written and checked by a person who speaks it — never by machine translation.",
  builtInNote:
    "Built-in sentences were written by the CareBridge team: have a clinician fluent in each language check them before you rely on them.",
  addTitle: "Add a phrase",
  kind: "Kind",
  textEn: "English",
  textHi: "Hindi (हिन्दी)",
  textBn: "Bengali (বাংলা)",
  textTa: "Tamil (தமிழ்)",
  reviewedBy: "Reviewed by",
  reviewedByHint: "Name and qualification of the person who checked the translations",
  add: "Add phrase",
  retire: "Retire",
  builtIn: "Built-in",
  retired: "Retired",
  nav: "Phrase book",
};

export default phrases;
