/** A facility's acknowledgement of a referral at /referral/{code} (decision 0114). */
const referral = {
  birthYearRequired: "Give the patient's year of birth.",
  noteTooLong: "The note is too long (300 characters at most).",
};
export default referral;
