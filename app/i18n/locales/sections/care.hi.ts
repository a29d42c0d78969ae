import type en from "./care.en";

const care: typeof en = {
  healthWorkerTitle: "स्वास्थ्य कार्यकर्ता",
  healthWorkerWelcome:
    "अपने केंद्र पर आने वाले मरीज़ों का पंजीकरण करें, उनकी रिपोर्ट दूसरी राय के लिए भेजें और जवाब छापकर उन्हें दें।",
  navCentre: "केंद्र के मरीज़",
  navRegister: "मरीज़ का पंजीकरण करें",
  navFamily: "परिवार",
  navCentres: "केंद्र",
  awaitApproval: "किसी एडमिन ने अभी तक आपके स्वास्थ्य कार्यकर्ता खाते को स्वीकृत नहीं किया है।",
  choosePatient: "चुनें कि यह रिपोर्ट किसकी है।",
  notYourPatient: "आप इस व्यक्ति के लिए रिपोर्ट नहीं भेज सकते।",
  consentMissing: "इस व्यक्ति की सहमति दर्ज नहीं है। रिपोर्ट भेजने से पहले इसे दर्ज करें।",
};
export default care;
