/** Backups (decisions 0067, 0068): the Service screen's list, the admin's notices, the recovery sheet, the mails. */
const backups = {
  title: "बैकअप",
  intro:
    "हर बैकअप रखे जाने के बाद जाँचा जाता है: रिपॉज़िटरी दोबारा पढ़ी जाती है, डेटाबेस एक अलग फ़ोल्डर में वापस लाकर गिना जाता है, और कुछ फ़ाइलें डिक्रिप्ट करके देखी जाती हैं।",
  scheduleDaily: "हर दिन {{at}} बजे (सर्वर के समय से) बैकअप लिया जाता है।",
  scheduleHours: "{{at}} बजे (सर्वर के समय से) से शुरू करके हर {{hours}} घंटे में बैकअप लिया जाता है।",
  scheduleOff:
    "ऐप अपने आप कोई बैकअप नहीं लेता (BACKUP_AT=off): किसी टाइमर से npm run backup चलाएँ, या BACKUP_AT सेट करें।",
  repository: "रिपॉज़िटरी",
  keep: "रखे जाते हैं: {{daily}} दिन तक रोज़ का एक, {{weekly}} हफ़्ते तक हर हफ़्ते का एक, {{monthly}} महीने तक हर महीने का एक।",
  none: "अभी तक कोई बैकअप नहीं लिया गया है।",
  started: "शुरू हुआ",
  status: "नतीजा",
  duration: "लगा समय",
  size: "आकार",
  added: "नया डेटा",
  snapshot: "स्नैपशॉट",
  reason: "कारण",
  statusRunning: "चल रहा है",
  statusVerified: "जाँचा गया",
  statusUnverified: "रखा गया, जाँचा नहीं जा सका",
  statusFailed: "विफल",
  triggerScheduled: "तय समय पर",
  triggerManual: "हाथ से",
  triggerUpgrade: "अपग्रेड से पहले",
  localOnlyTitle: "डेटा की कोई कॉपी इस मशीन से बाहर नहीं जाती",
  localOnlyText:
    "बैकअप {{repository}} में, इसी मशीन पर रखे जाते हैं। ये किसी ख़राब अपग्रेड या ग़लती से कुछ मिट जाने पर काम आते हैं, पर मशीन या उसकी डिस्क खो जाने पर नहीं।",
  localOnlyHow:
    "कहीं और कॉपी रखने के लिए BACKUP_REPOSITORY को USB डिस्क के किसी फ़ोल्डर, sftp:user@host:/path, या s3:https://host/bucket/path (AWS_ACCESS_KEY_ID और AWS_SECRET_ACCESS_KEY के साथ) पर सेट करें, और ऐप दोबारा शुरू करें।",
  sheetNeededTitle: "रिकवरी शीट प्रिंट करें",
  sheetNeededText:
    "बैकअप अब {{repository}} में जाते हैं। उनके पासवर्ड के बिना, यह मशीन खो जाने पर कोई उन्हें वापस नहीं ला सकता। रिकवरी शीट प्रिंट करें और उसे इस मशीन से दूर किसी सुरक्षित जगह रखें।",
  sheetLink: "रिकवरी शीट प्रिंट करें",
  lastSheet: "रिकवरी शीट आख़िरी बार {{date}} को {{name}} ने प्रिंट की थी।",
  sheetTitle: "रिकवरी शीट",
  sheetIntro:
    "शीट में बैकअप का पासवर्ड होता है। उसे देखने के लिए अपना पासवर्ड और ऑथेंटिकेटर ऐप का कोड डालें; हर प्रिंट दर्ज किया जाता है।",
  sheetShow: "शीट दिखाएँ",
  sheetNeedsTwoStep:
    "पहले दो-चरणीय लॉगिन सेट करें: रिकवरी शीट केवल आपके पासवर्ड और ऑथेंटिकेटर ऐप के कोड के बाद दिखाई जाती है।",
  sheetHeading: "{{product}} रिकवरी शीट",
  sheetPassword: "बैकअप पासवर्ड",
  sheetRestoreTitle: "नई मशीन पर सब कुछ वापस लाने के लिए",
  sheetStep1: "नई मशीन पर ऐप और restic इंस्टॉल करें (README: “Install on a clinic server”)।",
  sheetStep2:
    "ऊपर दिया पासवर्ड ऐप के फ़ोल्डर में backup-password नाम की फ़ाइल में सहेजें, जिसे केवल आप पढ़ सकें (chmod 600 backup-password)।",
  sheetStep3: "ऐप के फ़ोल्डर में यह कमांड चलाएँ:",
  sheetStep4: "npm start से ऐप शुरू करें: रिकॉर्ड, फ़ाइलें और उनकी चाबियाँ वापस आ जाती हैं।",
  sheetLocalWarning:
    "यह रिपॉज़िटरी ऐप वाली मशीन पर ही है: मशीन खो जाने पर यह शीट कुछ भी वापस नहीं ला सकती। BACKUP_REPOSITORY सेट करें।",
  sheetKeepSafe:
    "इस शीट को ताले में रखें: जिसके पास यह शीट हो और जो रिपॉज़िटरी तक पहुँच सके, वह हर मरीज़ के रिकॉर्ड पढ़ सकता है।",
  sheetPrinted: "{{date}} को {{name}} ने प्रिंट की।",
  print: "प्रिंट करें",
  back: "सर्विस स्क्रीन पर वापस जाएँ",
  mailFailedSubject: "{{product}}: एक बैकअप विफल रहा",
  mailFailedBody:
    "{{product}} का बैकअप नहीं लिया जा सका: {{reason}}। जब तक यह ठीक नहीं होता, डेटा की कोई नई कॉपी नहीं है।",
  mailUnverifiedSubject: "{{product}}: एक बैकअप जाँचा नहीं जा सका",
  mailUnverifiedBody:
    "एक बैकअप {{repository}} में रखा गया, पर उसकी जाँच विफल रही: {{reason}}। उस पर भरोसा न करें; पुराने बैकअप रखे गए हैं।",
  mailAction: "सर्विस स्क्रीन खोलें",
};
export default backups;
