/** Reminders of an opinion's next steps by SMS, call or e-mail (decision 0114). */
const reminders = {
  smsPurpose: "அடுத்த படி நினைவூட்டல்",
};
export default reminders;
