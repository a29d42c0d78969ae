/** A facility's acknowledgement of a referral at /referral/{code} (decision 0114). */
const referral = {
  birthYearRequired: "রোগীর জন্মসাল দিন।",
  noteTooLong: "মন্তব্যটি খুব লম্বা (সর্বাধিক ৩০০ অক্ষর)।",
};
export default referral;
