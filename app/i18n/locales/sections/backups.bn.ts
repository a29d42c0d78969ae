/** Backups (decisions 0067, 0068): the Service screen's list, the admin's notices, the recovery sheet, the mails. */
const backups = {
  title: "ব্যাকআপ",
  intro:
    "প্রতিটি ব্যাকআপ রাখার পরে যাচাই করা হয়: রিপোজিটরি আবার পড়া হয়, ডেটাবেস একটি আলাদা ফোল্ডারে ফিরিয়ে এনে গোনা হয়, আর কয়েকটি ফাইল ডিক্রিপ্ট করে দেখা হয়।",
  scheduleDaily: "প্রতিদিন {{at}}-এ (সার্ভারের সময়ে) ব্যাকআপ নেওয়া হয়।",
  scheduleHours: "{{at}} (সার্ভারের সময়) থেকে শুরু করে প্রতি {{hours}} ঘণ্টায় ব্যাকআপ নেওয়া হয়।",
  scheduleOff:
    "অ্যাপ নিজে কোনো ব্যাকআপ নেয় না (BACKUP_AT=off): কোনো টাইমার থেকে npm run backup চালান, অথবা BACKUP_AT সেট করুন।",
  repository: "রিপোজিটরি",
  keep: "রাখা হয়: {{daily}} দিন পর্যন্ত দিনে একটি, {{weekly}} সপ্তাহ পর্যন্ত সপ্তাহে একটি, {{monthly}} মাস পর্যন্ত মাসে একটি।",
  none: "এখনও কোনো ব্যাকআপ নেওয়া হয়নি।",
  started: "শুরু",
  status: "ফলাফল",
  duration: "সময় লেগেছে",
  size: "আকার",
  added: "নতুন ডেটা",
  snapshot: "স্ন্যাপশট",
  reason: "কারণ",
  statusRunning: "চলছে",
  statusVerified: "যাচাই করা হয়েছে",
  statusUnverified: "রাখা হয়েছে, যাচাই হয়নি",
  statusFailed: "ব্যর্থ",
  triggerScheduled: "নির্ধারিত সময়ে",
  triggerManual: "হাতে",
  triggerUpgrade: "আপগ্রেডের আগে",
  localOnlyTitle: "ডেটার কোনো কপি এই মেশিনের বাইরে যায় না",
  localOnlyText:
    "ব্যাকআপ {{repository}}-এ, এই মেশিনেই রাখা হয়। খারাপ আপগ্রেড বা ভুল করে মুছে ফেলার পরে এগুলো কাজে আসে, কিন্তু মেশিন বা তার ডিস্ক হারালে নয়।",
  localOnlyHow:
    "অন্য কোথাও কপি রাখতে BACKUP_REPOSITORY-কে একটি USB ডিস্কের ফোল্ডার, sftp:user@host:/path, অথবা s3:https://host/bucket/path (AWS_ACCESS_KEY_ID ও AWS_SECRET_ACCESS_KEY সহ) হিসেবে সেট করুন, এবং অ্যাপ আবার চালু করুন।",
  sheetNeededTitle: "রিকভারি শিট প্রিন্ট করুন",
  sheetNeededText:
    "ব্যাকআপ এখন {{repository}}-এ যায়। তাদের পাসওয়ার্ড ছাড়া এই মেশিন হারালে কেউ সেগুলো ফিরিয়ে আনতে পারবে না। রিকভারি শিট প্রিন্ট করে এই মেশিন থেকে দূরে কোনো নিরাপদ জায়গায় রাখুন।",
  sheetLink: "রিকভারি শিট প্রিন্ট করুন",
  lastSheet: "রিকভারি শিট শেষবার {{date}} তারিখে {{name}} প্রিন্ট করেছেন।",
  sheetTitle: "রিকভারি শিট",
  sheetIntro:
    "শিটে ব্যাকআপের পাসওয়ার্ড থাকে। এটি দেখতে আপনার পাসওয়ার্ড ও অথেন্টিকেটর অ্যাপের কোড দিন; প্রতিটি প্রিন্ট রেকর্ড করা হয়।",
  sheetShow: "শিট দেখান",
  sheetNeedsTwoStep:
    "আগে দুই-ধাপের লগইন সেট করুন: রিকভারি শিট শুধু আপনার পাসওয়ার্ড ও অথেন্টিকেটর অ্যাপের কোডের পরে দেখানো হয়।",
  sheetHeading: "{{product}} রিকভারি শিট",
  sheetPassword: "ব্যাকআপ পাসওয়ার্ড",
  sheetRestoreTitle: "নতুন মেশিনে সবকিছু ফিরিয়ে আনতে",
  sheetStep1: "নতুন মেশিনে অ্যাপ ও restic ইনস্টল করুন (README: “Install on a clinic server”)।",
  sheetStep2:
    "উপরের পাসওয়ার্ডটি অ্যাপের ফোল্ডারে backup-password নামের একটি ফাইলে রাখুন, যা শুধু আপনি পড়তে পারবেন (chmod 600 backup-password)।",
  sheetStep3: "অ্যাপের ফোল্ডারে এই কমান্ডটি চালান:",
  sheetStep4: "npm start দিয়ে অ্যাপ চালু করুন: রেকর্ড, ফাইল আর তাদের চাবি ফিরে আসে।",
  sheetLocalWarning:
    "এই রিপোজিটরি অ্যাপের মেশিনেই আছে: মেশিন হারালে এই শিট কিছুই ফিরিয়ে আনতে পারবে না। BACKUP_REPOSITORY সেট করুন।",
  sheetKeepSafe:
    "এই শিট তালাবন্ধ করে রাখুন: যার কাছে এটি আছে এবং যে রিপোজিটরিতে পৌঁছাতে পারে, সে প্রত্যেক রোগীর রেকর্ড পড়তে পারে।",
  sheetPrinted: "{{date}} তারিখে {{name}} প্রিন্ট করেছেন।",
  print: "প্রিন্ট করুন",
  back: "সার্ভিস স্ক্রিনে ফিরে যান",
  mailFailedSubject: "{{product}}: একটি ব্যাকআপ ব্যর্থ হয়েছে",
  mailFailedBody:
    "{{product}}-এর ব্যাকআপ নেওয়া যায়নি: {{reason}}। এটি ঠিক না হওয়া পর্যন্ত ডেটার কোনো নতুন কপি নেই।",
  mailUnverifiedSubject: "{{product}}: একটি ব্যাকআপ যাচাই করা যায়নি",
  mailUnverifiedBody:
    "একটি ব্যাকআপ {{repository}}-এ রাখা হয়েছে, কিন্তু তার যাচাই ব্যর্থ হয়েছে: {{reason}}। এর ওপর ভরসা করবেন না; পুরোনো ব্যাকআপগুলো রাখা আছে।",
  mailAction: "সার্ভিস স্ক্রিন খুলুন",
};
export default backups;
