/** Reminders of an opinion's next steps by SMS, call or e-mail (decision 0114). */
const reminders = {
  smsPurpose: "পরবর্তী পদক্ষেপের অনুস্মারক",
};
export default reminders;
