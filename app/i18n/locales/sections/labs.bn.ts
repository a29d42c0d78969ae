/** Lab values checked by the expert and shown to the patient (decision 0084). */
const labs = {
  notYours: "এই রিপোর্টের মান কেবল এটি পর্যালোচনাকারী বিশেষজ্ঞ যাচাই করতে পারেন।",
  checkFailed: "এই মান সংরক্ষণ করা যায়নি। চিহ্নিত ঘরগুলি দেখুন।",
  valueRequired: "মান লিখুন।",
  valueNotNumber: "মান সংখ্যায় লিখুন, যেমন 9.8।",
  valueImpossible: "এই পরীক্ষার জন্য এই মান সম্ভব নয়। সংখ্যা ও তার একক দেখুন।",
  unitRequired: "একক লিখুন।",
  unitUnknown: "এই পরীক্ষা এই এককে জানানো হয় না।",
  rangeUnreadable: "ছাপা সীমা এভাবে লিখুন: 12.0-15.5, < 200 বা > 40।",
  badAction: "নিশ্চিত, সংশোধন বা সরানো বেছে নিন।",
  analyteRequired: "পরীক্ষাটি বেছে নিন।",
  analyteUnknown: "এই পরীক্ষা আমাদের তালিকায় নেই।",
  valueNotFound: "এই মান এই রিপোর্টে পাওয়া যায়নি।",
  alreadyRemoved: "এই মান আগেই সরানো হয়েছে।",
  listed: "মান পাওয়া গেছে।",
  checked: "মান সংরক্ষিত হয়েছে।",
  below: "{{name}} {{value}} {{unit}} — আপনার রিপোর্টে ছাপা সীমা {{range}}-এর নিচে",
  above: "{{name}} {{value}} {{unit}} — আপনার রিপোর্টে ছাপা সীমা {{range}}-এর উপরে",
  within: "{{name}} {{value}} {{unit}} — আপনার রিপোর্টে ছাপা সীমা {{range}}-এর মধ্যে",
  noRange: "{{name}} {{value}} {{unit}} — আপনার রিপোর্টে কোনো সীমা ছাপা ছিল না",
};
export default labs;
