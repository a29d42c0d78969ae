/** Reminders of an opinion's next steps by SMS, call or e-mail (decision 0114). */
const reminders = {
  smsPurpose: "Next step reminder",
};
export default reminders;
