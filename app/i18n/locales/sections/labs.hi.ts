/** Lab values checked by the expert and shown to the patient (decision 0084). */
const labs = {
  notYours: "इस रिपोर्ट के मान केवल इसकी समीक्षा करने वाले विशेषज्ञ जाँच सकते हैं।",
  checkFailed: "यह मान सहेजा नहीं जा सका। चिह्नित फ़ील्ड जाँचें।",
  valueRequired: "मान लिखें।",
  valueNotNumber: "मान संख्या में लिखें, जैसे 9.8।",
  valueImpossible: "इस जाँच के लिए यह मान संभव नहीं है। संख्या और उसकी इकाई जाँचें।",
  unitRequired: "इकाई लिखें।",
  unitUnknown: "यह जाँच इस इकाई में नहीं बताई जाती।",
  rangeUnreadable: "छपी हुई सीमा ऐसे लिखें: 12.0-15.5, < 200 या > 40।",
  badAction: "पुष्टि, सुधार या हटाना चुनें।",
  analyteRequired: "जाँच चुनें।",
  analyteUnknown: "यह जाँच हमारी सूची में नहीं है।",
  valueNotFound: "यह मान इस रिपोर्ट पर नहीं मिला।",
  alreadyRemoved: "यह मान पहले ही हटा दिया गया है।",
  listed: "मान मिले।",
  checked: "मान सहेजा गया।",
  below: "{{name}} {{value}} {{unit}} — आपकी रिपोर्ट पर छपी सीमा {{range}} से कम",
  above: "{{name}} {{value}} {{unit}} — आपकी रिपोर्ट पर छपी सीमा {{range}} से अधिक",
  within: "{{name}} {{value}} {{unit}} — आपकी रिपोर्ट पर छपी सीमा {{range}} के भीतर",
  noRange: "{{name}} {{value}} {{unit}} — आपकी रिपोर्ट पर कोई सीमा नहीं छपी थी",
};
export default labs;
