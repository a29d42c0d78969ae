import type en from "./care.en";

const care: typeof en = {
  healthWorkerTitle: "স্বাস্থ্যকর্মী",
  healthWorkerWelcome:
    "আপনার কেন্দ্রে আসা রোগীদের নিবন্ধন করুন, তাঁদের রিপোর্ট দ্বিতীয় মতামতের জন্য পাঠান এবং উত্তর ছাপিয়ে তাঁদের দিন।",
  navCentre: "কেন্দ্রের রোগী",
  navRegister: "রোগী নিবন্ধন করুন",
  navFamily: "পরিবার",
  navCentres: "কেন্দ্র",
  awaitApproval: "একজন অ্যাডমিন এখনও আপনার স্বাস্থ্যকর্মী অ্যাকাউন্ট অনুমোদন করেননি।",
  choosePatient: "এই রিপোর্টটি কার, তা বেছে নিন।",
  notYourPatient: "আপনি এই ব্যক্তির জন্য রিপোর্ট পাঠাতে পারবেন না।",
  consentMissing: "এই ব্যক্তির সম্মতি নথিভুক্ত নেই। রিপোর্ট পাঠানোর আগে তা নথিভুক্ত করুন।",
};
export default care;
