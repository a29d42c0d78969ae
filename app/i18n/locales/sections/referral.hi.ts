/** A facility's acknowledgement of a referral at /referral/{code} (decision 0114). */
const referral = {
  birthYearRequired: "मरीज़ का जन्म वर्ष दें।",
  noteTooLong: "टिप्पणी बहुत लंबी है (अधिकतम 300 अक्षर)।",
};
export default referral;
